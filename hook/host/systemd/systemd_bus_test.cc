// The hook's conversation with systemd over its private socket, against a scripted systemd that
// answers as a systemd with AllowedMemoryNodes= (252, RHEL 8's 239) and one without (upstream 239)
// do: which calls are made, in which order, and what the hook concludes. The socket's sandboxing is in host/sandbox/sandbox_test.cc.
#include <doctest/doctest.h>
#include <stdlib.h>

#include <filesystem>
#include <thread>

#include "systemd/dbus_test_replies.h"
#include "host/systemd/systemd_bus.h"
#include "scripted_systemd.h"
#include "systemd/dbus_message.h"

using namespace gnh;

namespace {

struct FakeHost {
  std::string dir;
  FakeHost() {
    char t[] = "/tmp/gnh-dbus-XXXXXX";
    REQUIRE(::mkdtemp(t));
    dir = t;
    std::filesystem::create_directories(dir + "/run/systemd");
  }
  ~FakeHost() { std::filesystem::remove_all(dir); }
};

// One SetUnitProperties attempt for runc-c1.scope = 0-1 against `replies`; the calls it made.
AllowedNodesAnswer tell(const std::vector<std::vector<unsigned char>>& replies,
                        std::vector<std::vector<unsigned char>>* calls) {
  FakeHost h;
  ScriptedSystemd systemd(h.dir + "/run/systemd/private");
  std::thread server([&] { systemd.serve(replies); });
  AllowedNodesAnswer a = set_unit_allowed_memory_nodes(HostFs(h.dir), "runc-c1.scope", NodeSet::of({0, 1}),
                                                       Deadline(std::chrono::milliseconds(5000)));
  server.join();
  *calls = systemd.calls;
  return a;
}

const auto kProbeCall = [] {
  return dbus_get_property_call(2, "/org/freedesktop/systemd1/unit/runc_2dc1_2escope", "org.freedesktop.systemd1.Scope",
                                "AllowedMemoryNodes");
};

}  // namespace

TEST_CASE("a systemd with AllowedMemoryNodes (244 on, RHEL 8's 239): the unit is asked, then the property set") {
  std::vector<std::vector<unsigned char>> calls;
  auto a = tell({dbus_replies::byte_array_property_reply(2, {0x01}), dbus_replies::method_return(3)}, &calls);
  CHECK(a.error == "");
  CHECK_FALSE(a.unsupported);
  REQUIRE(calls.size() == 2);
  CHECK(calls[0] == kProbeCall());
  CHECK(calls[1] == dbus_set_allowed_memory_nodes_call(3, "runc-c1.scope", true, {0x03}));
}

TEST_CASE("upstream systemd 239: the unit has no AllowedMemoryNodes, nothing is set") {
  std::vector<std::vector<unsigned char>> calls;
  auto a = tell({dbus_replies::error_reply(2, "org.freedesktop.DBus.Error.UnknownProperty",
                                           "Unknown interface org.freedesktop.systemd1.Scope or property AllowedMemoryNodes.")},
                &calls);
  CHECK(a.error == "");
  CHECK(a.unsupported);
  REQUIRE(calls.size() == 1);  // no SetUnitProperties
  CHECK(calls[0] == kProbeCall());
}

TEST_CASE("a unit systemd does not know: the Set goes out and its error is the answer") {
  std::vector<std::vector<unsigned char>> calls;
  auto a = tell({dbus_replies::error_reply(2, "org.freedesktop.systemd1.NoSuchUnit", "Unit runc-c1.scope not loaded."),
                 dbus_replies::error_reply(3, "org.freedesktop.systemd1.NoSuchUnit", "Unit runc-c1.scope not loaded.")},
                &calls);
  CHECK_FALSE(a.unsupported);
  CHECK(a.error.find("org.freedesktop.systemd1.NoSuchUnit: Unit runc-c1.scope not loaded.") != std::string::npos);
  CHECK(calls.size() == 2);
}
