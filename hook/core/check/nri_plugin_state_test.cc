#include "check/nri_plugin_state.h"

#include <doctest/doctest.h>

using namespace gnh;

TEST_CASE("nri state: written and read back") {
  NriPluginState s;
  s.connected = true;
  s.pid = 42;
  s.pid_namespace = "pid:[4026531836]";
  s.mode = "external";
  s.socket = "/var/run/nri/nri.sock";
  s.runtime = "containerd v2.1.9";
  s.since = "2026-11-25T01:00:00.000000Z";
  s.heartbeat = 1000;
  auto back = parse_nri_state(format_nri_state(s));
  REQUIRE(back);
  CHECK(back->connected);
  CHECK(back->pid == 42);
  CHECK(back->runtime == "containerd v2.1.9");
  CHECK(back->heartbeat == 1000);
  CHECK_FALSE(parse_nri_state("not json"));
  CHECK_FALSE(parse_nri_state("{\"pid\": 1}"));
}

TEST_CASE("nri state: check's verdict") {
  NriPluginState s;
  s.connected = true;
  s.pid = 42;
  s.runtime = "containerd v2.1.9";
  s.heartbeat = 1000;
  NriPluginLiveness live{true, true, 1005};
  CHECK_FALSE(nri_not_connected(s, live));
  CHECK(*nri_not_connected(std::nullopt, live) ==
        "NRI plugin not connected: containerd starts GPU containers without the hook; gpu-numa-nri has never run on "
        "this node (no /run/gpu-numa-hook/nri-state.json)");
  live.pid_alive = false;
  CHECK(*nri_not_connected(s, live) ==
        "NRI plugin not connected: containerd starts GPU containers without the hook; gpu-numa-nri (pid 42) is gone; "
        "last state: connected to containerd v2.1.9");
  live = {false, false, 1000 + kNriStaleSeconds + 1};  // another pid namespace: the heartbeat decides
  CHECK(nri_not_connected(s, live)->find("has not updated its state for 31 s") != std::string::npos);
  live.now = 1010;
  CHECK_FALSE(nri_not_connected(s, live));
  s.connected = false;
  s.since = "T";
  s.last_error = "cannot connect to /var/run/nri/nri.sock: No such file or directory";
  CHECK(nri_not_connected(s, live)->ends_with("is disconnected since T: cannot connect to /var/run/nri/nri.sock: No such file or directory"));
}

TEST_CASE("nri state: the hook the plugin injects, missing on the host, is a problem of its own") {
  NriPluginState s;
  s.connected = true;
  s.hook_path = "/opt/gpu-numa-hook/bin/gpu-numa-hook";
  CHECK_FALSE(nri_hook_missing(s));
  CHECK_FALSE(nri_hook_missing(std::nullopt));  // never ran: nri_not_connected says so
  s.hook_present = false;
  s.hook_problem = "No such file or directory";
  auto back = parse_nri_state(format_nri_state(s));
  REQUIRE(back);
  CHECK_FALSE(back->hook_present);
  CHECK(back->hook_path == "/opt/gpu-numa-hook/bin/gpu-numa-hook");
  CHECK(*nri_hook_missing(back) ==
        "NRI plugin injects no hook: /opt/gpu-numa-hook/bin/gpu-numa-hook is not usable on this node (No such file or "
        "directory), so gpu-numa-nri starts GPU containers without it; put the hook back there (the DaemonSet's init "
        "container copies it) or point --hook at it");
  // A file written by an older plugin has no hook fields: the hook counts as present.
  auto old = parse_nri_state("{\"connected\": true, \"pid\": 7}");
  REQUIRE(old);
  CHECK(old->hook_present);
  CHECK_FALSE(nri_hook_missing(old));
}
