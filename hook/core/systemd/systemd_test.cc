#include <doctest/doctest.h>

#include <string>

#include "systemd/dbus_test_replies.h"
#include "systemd/dbus_message.h"
#include "systemd/systemd_unit.h"
#include "systemd/allowed_nodes_probe.h"

using namespace gnh;

namespace {

std::vector<unsigned char> bytes_of(std::initializer_list<int> v) {
  std::vector<unsigned char> b;
  for (int x : v) b.push_back(static_cast<unsigned char>(x));
  return b;
}

using dbus_replies::error_reply;
using dbus_replies::pad8;
using dbus_replies::put;
using dbus_replies::u32;

}  // namespace

TEST_CASE("systemd unit of a cgroup path: scopes and slices, nothing else") {
  CHECK(systemd_unit_of_cgroup("/system.slice/runc-c1.scope") == std::optional<std::string>("runc-c1.scope"));
  CHECK(systemd_unit_of_cgroup("/kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod1.slice/"
                               "cri-containerd-abc.scope") == std::optional<std::string>("cri-containerd-abc.scope"));
  CHECK(systemd_unit_of_cgroup("/machine.slice/") == std::optional<std::string>("machine.slice"));
  CHECK(systemd_unit_of_cgroup("/system.slice/docker.service") == std::optional<std::string>("docker.service"));
  // cgroupfs driver, a container's sub-cgroup below a delegated scope, the root, the root slice
  CHECK_FALSE(systemd_unit_of_cgroup("/docker/c1"));
  CHECK_FALSE(systemd_unit_of_cgroup("/system.slice/runc-c1.scope/init"));
  CHECK_FALSE(systemd_unit_of_cgroup("/"));
  CHECK_FALSE(systemd_unit_of_cgroup(""));
  CHECK_FALSE(systemd_unit_of_cgroup("/-.slice"));
  CHECK_FALSE(systemd_unit_of_cgroup("/.scope"));
  // characters systemd never puts in a unit name: not ours to pass on
  CHECK_FALSE(systemd_unit_of_cgroup("/system.slice/a b.scope"));
  CHECK_FALSE(systemd_unit_of_cgroup("/system.slice/a\nb.scope"));
  CHECK_FALSE(systemd_unit_of_cgroup("/system.slice/" + std::string(300, 'a') + ".scope"));
}

TEST_CASE("AllowedMemoryNodes bitmask: runc's RangeToBits byte order") {
  CHECK(allowed_nodes_bitmask(NodeSet::of({0})) == bytes_of({0x01}));
  CHECK(allowed_nodes_bitmask(NodeSet::of({0, 1})) == bytes_of({0x03}));
  CHECK(allowed_nodes_bitmask(NodeSet::of({1})) == bytes_of({0x02}));
  CHECK(allowed_nodes_bitmask(NodeSet::of({8})) == bytes_of({0x00, 0x01}));
  auto ac922 = allowed_nodes_bitmask(*NodeSet::parse("0,8,252-255"));
  REQUIRE(ac922.size() == 32);
  CHECK(ac922[0] == 0x01);
  CHECK(ac922[1] == 0x01);
  CHECK(ac922[31] == 0xf0);
  CHECK(allowed_nodes_bitmask(NodeSet()).empty());
}

TEST_CASE("SetUnitProperties(AllowedMemoryNodes) is marshalled as the D-Bus specification says") {
  auto m = dbus_set_allowed_memory_nodes_call(2, "runc-c1.scope", true, bytes_of({0x03}));
  REQUIRE(m.size() >= 16);
  CHECK(m[0] == 'l');
  CHECK(m[1] == 1);  // method call
  CHECK(m[3] == 1);
  CHECK(dbus_message_size(m.data(), 1 << 20) == std::optional<size_t>(m.size()));
  // The body, byte for byte: s "runc-c1.scope", b true, a(sv) [("AllowedMemoryNodes", <ay [3]>)].
  std::vector<unsigned char> body;
  u32(body, 13);
  put(body, "runc-c1.scope");
  body.push_back(0);
  u32(body, 1);
  u32(body, 33);  // the array's bytes, from its first (8-aligned) element
  pad8(body);
  u32(body, 18);
  put(body, "AllowedMemoryNodes");
  body.push_back(0);
  body.insert(body.end(), {2, 'a', 'y', 0});
  u32(body, 1);
  body.push_back(0x03);
  REQUIRE(m.size() > body.size());
  CHECK(std::vector<unsigned char>(m.end() - static_cast<long>(body.size()), m.end()) == body);
  CHECK((m.size() - body.size()) % 8 == 0);
  uint32_t body_len = m[4] | m[5] << 8 | m[6] << 16 | m[7] << 24;
  CHECK(body_len == body.size());
  uint32_t serial = m[8] | m[9] << 8 | m[10] << 16 | m[11] << 24;
  CHECK(serial == 2);
  std::string text(m.begin(), m.end());
  for (const char* s : {"/org/freedesktop/systemd1", "org.freedesktop.systemd1.Manager", "SetUnitProperties",
                        "org.freedesktop.systemd1", "sba(sv)"})
    CHECK(text.find(std::string(s) + '\0') != std::string::npos);
}

TEST_CASE("Hello has no body and reads back as a well-formed message") {
  auto m = dbus_hello_call(1);
  CHECK(m[4] == 0);
  CHECK(m.size() % 8 == 0);
  CHECK(dbus_message_size(m.data(), 1 << 20) == std::optional<size_t>(m.size()));
  auto r = parse_dbus_reply(m);
  REQUIRE(r);
  CHECK(r->type == 1);
}

TEST_CASE("replies: method return, error with its message, and hostile bytes") {
  std::vector<unsigned char> ok = bytes_of({'l', 2, 1, 1});
  u32(ok, 0);
  u32(ok, 5);
  u32(ok, 8);
  ok.insert(ok.end(), {5, 1, 'u', 0});
  u32(ok, 2);
  auto r = parse_dbus_reply(ok);
  REQUIRE(r);
  CHECK(r->type == 2);
  CHECK(r->reply_serial == 2);

  auto err = error_reply(2, "org.freedesktop.systemd1.NoSuchUnit", "Unit runc-x.scope not loaded.");
  CHECK(dbus_message_size(err.data(), 1 << 20) == std::optional<size_t>(err.size()));
  r = parse_dbus_reply(err);
  REQUIRE(r);
  CHECK(r->type == 3);
  CHECK(r->reply_serial == 2);
  CHECK(r->error_name == "org.freedesktop.systemd1.NoSuchUnit");
  CHECK(r->error_message == "Unit runc-x.scope not loaded.");

  // Every truncation and every single-byte change is an answer or nullopt, never a read past the end.
  for (size_t n = 0; n < err.size(); ++n) {
    std::vector<unsigned char> cut(err.begin(), err.begin() + static_cast<long>(n));
    CHECK_FALSE(parse_dbus_reply(cut));
  }
  for (size_t i = 0; i < err.size(); ++i)
    for (int v : {0x00, 0x7f, 0xff}) {
      auto bad = err;
      bad[i] = static_cast<unsigned char>(v);
      (void)parse_dbus_reply(bad);
    }
  // A header that claims more than the limit is refused before anything is read.
  auto huge = err;
  huge[7] = 0x7f;
  CHECK_FALSE(dbus_message_size(huge.data(), 1 << 20));
  huge = err;
  huge[0] = 'x';
  CHECK_FALSE(dbus_message_size(huge.data(), 1 << 20));
}

TEST_CASE("AUTH EXTERNAL carries the uid as hex of its decimal digits") {
  CHECK(dbus_auth_external_line(0) == "AUTH EXTERNAL 30\r\n");
  CHECK(dbus_auth_external_line(1000) == "AUTH EXTERNAL 31303030\r\n");
}

TEST_CASE("a unit's D-Bus object path and interface, as systemd names them") {
  CHECK(unit_object_path("runc-c1.scope") == "/org/freedesktop/systemd1/unit/runc_2dc1_2escope");
  CHECK(unit_object_path("kubepods-pod1_2.slice") == "/org/freedesktop/systemd1/unit/kubepods_2dpod1_5f2_2eslice");
  CHECK(unit_object_path("0a.service") == "/org/freedesktop/systemd1/unit/_30a_2eservice");  // a leading digit
  CHECK(unit_object_path("") == "/org/freedesktop/systemd1/unit/_");
  CHECK(unit_interface("runc-c1.scope") == "org.freedesktop.systemd1.Scope");
  CHECK(unit_interface("machine.slice") == "org.freedesktop.systemd1.Slice");
  CHECK(unit_interface("docker.service") == "org.freedesktop.systemd1.Service");
}

TEST_CASE("Properties.Get is marshalled as the D-Bus specification says") {
  auto m = dbus_get_property_call(2, "/org/freedesktop/systemd1/unit/runc_2dc1_2escope", "org.freedesktop.systemd1.Scope",
                                  "AllowedMemoryNodes");
  REQUIRE(m.size() >= 16);
  CHECK(dbus_message_size(m.data(), 1 << 20) == std::optional<size_t>(m.size()));
  std::vector<unsigned char> body;
  u32(body, 30);
  put(body, "org.freedesktop.systemd1.Scope");
  body.push_back(0);
  u32(body, 18);
  put(body, "AllowedMemoryNodes");
  body.push_back(0);
  CHECK(std::vector<unsigned char>(m.end() - static_cast<long>(body.size()), m.end()) == body);
  std::string text(m.begin(), m.end());
  for (const char* s : {"/org/freedesktop/systemd1/unit/runc_2dc1_2escope", "org.freedesktop.DBus.Properties", "Get",
                        "org.freedesktop.systemd1"})
    CHECK(text.find(std::string(s) + '\0') != std::string::npos);
  CHECK(text.find(std::string("\x08\x01g\x00\x02ss\x00", 7)) != std::string::npos);  // signature "ss"
}

TEST_CASE("the probe's answers: UnknownProperty is read back by name") {
  auto r = parse_dbus_reply(dbus_replies::error_reply(2, kUnknownPropertyError, "Unknown interface or property."));
  REQUIRE(r);
  CHECK(r->type == 3);
  CHECK(r->reply_serial == 2);
  CHECK(r->error_name == "org.freedesktop.DBus.Error.UnknownProperty");
  auto value = parse_dbus_reply(dbus_replies::byte_array_property_reply(2, {0x03}));  // what 252 answers
  REQUIRE(value);
  CHECK(value->type == 2);
  CHECK(value->error_name == "");
}

TEST_CASE("a systemd without AllowedMemoryNodes: named, not a failure, and no command that cannot work") {
  CHECK(no_allowed_memory_nodes_text("runc-c1.scope") ==
        "runc-c1.scope not told: its systemd has no AllowedMemoryNodes= (upstream added it in 244) and leaves "
        "cpuset.mems alone, so the value written stays; nothing to run");
  bool failed = true;
  UnitUpdate old{"runc-c1.scope", NodeSet::of({0, 1}), "", true};
  UnitUpdate ok{"machine.slice", NodeSet::of({0, 1}), "", false};
  std::string s = describe_unit_updates({ok, old}, &failed);
  CHECK_FALSE(failed);
  CHECK(s == " (systemd AllowedMemoryNodes: machine.slice=0-1); runc-c1.scope not told: its systemd has no "
             "AllowedMemoryNodes= (upstream added it in 244) and leaves cpuset.mems alone, so the value written stays; "
             "nothing to run");
  CHECK(s.find("set-property") == std::string::npos);
}
