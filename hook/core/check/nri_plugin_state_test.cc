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
  // another pid namespace, the heartbeat still fresh, but nobody holds the plugin's lock: killed
  live.lock_held = false;
  CHECK(*nri_not_connected(s, live) ==
        "NRI plugin not connected: containerd starts GPU containers without the hook; gpu-numa-nri (pid 42) is gone: "
        "no process holds its lock /run/gpu-numa-hook/nri-state.json.lock; last state: connected to containerd v2.1.9");
  live.lock_held = true;
  CHECK_FALSE(nri_not_connected(s, live));
  live.lock_held = std::nullopt;
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

TEST_CASE("nri state: connects and drops are written and read back, the recent list bounded") {
  NriPluginState s;
  s.connected = true;
  s.connects = 7;
  s.last_connect = 990;
  s.connected_since = 990;
  for (long long t = 100; t < 130; ++t) record_nri_drop(&s, t, "plugin does not handle split sync requests");
  CHECK(s.drops == 30);
  CHECK(s.connected_since == 0);
  CHECK(s.recent_drops.size() == kNriRecentDropsKept);
  CHECK(s.recent_drops.back() == 129);
  record_nri_drop(&s, 129 + kNriFlapWindowSeconds + 1, "the runtime closed the connection");
  CHECK(s.recent_drops == std::vector<long long>{129 + kNriFlapWindowSeconds + 1});  // older ones aged out
  auto back = parse_nri_state(format_nri_state(s));
  REQUIRE(back);
  CHECK(back->connects == 7);
  CHECK(back->drops == 31);
  CHECK(back->last_connect == 990);
  CHECK(back->last_drop == 129 + kNriFlapWindowSeconds + 1);
  CHECK(back->last_drop_reason == "the runtime closed the connection");
  CHECK(back->recent_drops == s.recent_drops);
  // A file from an older plugin, without these keys, still reads (no drops known).
  auto old = parse_nri_state(R"({"connected": true, "pid": 1})");
  REQUIRE(old);
  CHECK(old->drops == 0);
  CHECK(old->recent_drops.empty());
}

TEST_CASE("nri state: a plugin the runtime keeps dropping is not protecting, whatever instant the file shows") {
  NriPluginState s;
  s.pid = 42;
  s.runtime = "containerd 2.1.9";
  NriPluginLiveness live{true, true, 10000};
  s.heartbeat = 10000;
  SUBCASE("reconnecting twice a second: connected in this snapshot, dropped over and over") {
    s.connected = true;
    for (long long t = 9990; t < 10000; ++t) record_nri_drop(&s, t, "plugin does not handle split sync requests");
    s.connected_since = 10000;
    CHECK(*nri_not_connected(s, live) ==
          "NRI plugin keeps being dropped: the runtime ended its connection 10 times in the last 10 min (last: plugin "
          "does not handle split sync requests); GPU containers created while it is away start without the hook "
          "(gpu-numa-nri's log, the runtime's log)");
  }
  SUBCASE("exactly kNriFlapDrops in the window is flapping; one fewer, settled for long enough, is protecting") {
    s.connected = true;
    record_nri_drop(&s, 10000 - kNriFlapWindowSeconds, "x");
    record_nri_drop(&s, 9500, "x");
    s.connected_since = 9500;
    CHECK_FALSE(nri_not_connected(s, live));  // two drops, registered for 500 s
    record_nri_drop(&s, 9600, "the runtime closed the connection");
    s.connected_since = 9600;
    CHECK(nri_not_connected(s, live)->starts_with("NRI plugin keeps being dropped: the runtime ended its connection 3 times"));
    live.now = 10000 + 1;  // the oldest drop leaves the window
    s.heartbeat = live.now;
    CHECK_FALSE(nri_not_connected(s, live));
  }
  SUBCASE("one drop (a runtime restart): not protecting until registered for kNriSettleSeconds") {
    s.connected = true;
    record_nri_drop(&s, 9980, "the runtime closed the connection");
    s.connected_since = 9990;
    CHECK(*nri_not_connected(s, live) ==
          "NRI plugin not settled: it registered again 10 s ago after being dropped (last: the runtime closed the "
          "connection); counted as protecting once it stays registered for 30 s");
    live.now = 9990 + kNriSettleSeconds;
    s.heartbeat = live.now;
    CHECK_FALSE(nri_not_connected(s, live));
  }
  SUBCASE("no drops: a fresh registration protects at once (a node's first start)") {
    s.connected = true;
    s.connected_since = 10000;
    CHECK_FALSE(nri_not_connected(s, live));
  }
  SUBCASE("disconnected says so first") {
    s.connected = false;
    s.since = "T";
    s.last_error = "the runtime closed the connection";
    record_nri_drop(&s, 9999, "the runtime closed the connection");
    CHECK(nri_not_connected(s, live)->ends_with("is disconnected since T: the runtime closed the connection"));
    record_nri_drop(&s, 9999, "x");
    record_nri_drop(&s, 9999, "x");
    CHECK(nri_not_connected(s, live)->ends_with(
        "is disconnected since T: the runtime closed the connection (the runtime ended its connection 3 times in the "
        "last 10 min)"));
  }
}

TEST_CASE("nri state: the container counts are written and read back - absent in an older plugin's file") {
  NriPluginState s;
  s.connected = true;
  s.calls = NriCallCounts{12, 3, 2};
  std::string text = format_nri_state(s);
  CHECK(text.find("\"injections\": 12,\n  \"calls_failed\": 3,\n  \"calls_stuck\": 2\n") != std::string::npos);
  auto back = parse_nri_state(text);
  REQUIRE(back);
  REQUIRE(back->calls);
  CHECK(back->calls->injections == 12);
  CHECK(back->calls->calls_failed == 3);
  CHECK(back->calls->calls_stuck == 2);
  // a plugin from before the stuck count: none stuck
  auto before = parse_nri_state("{\"connected\": true, \"injections\": 1, \"calls_failed\": 0}");
  REQUIRE(before);
  REQUIRE(before->calls);
  CHECK(before->calls->calls_stuck == 0);
  s.calls.reset();
  auto old = parse_nri_state(format_nri_state(s));
  REQUIRE(old);
  CHECK_FALSE(old->calls);  // not zero: an older plugin counts nothing, so nothing is exported
  CHECK_FALSE(parse_nri_state("{\"connected\": true, \"injections\": -1, \"calls_failed\": 0}"));
}

TEST_CASE("nri state: container calls stuck in host reads are a note, and at the limit not protected") {
  NriPluginState s;
  s.connected = true;
  bool all = true;
  CHECK_FALSE(nri_calls_stuck(s, &all));  // an older plugin: no counts
  CHECK_FALSE(all);
  s.calls = NriCallCounts{5, 1, 0};
  CHECK_FALSE(nri_calls_stuck(s, &all));
  s.calls->calls_stuck = 1;
  CHECK(nri_calls_stuck(s, &all) ==
        "NRI plugin: 1 container call(s) stuck in host reads past their deadline (a hung driver or cgroup file? the "
        "plugin's log names the container); those containers started without the hook, later ones still get it while "
        "fewer than 4 are stuck");
  CHECK_FALSE(all);
  s.calls->calls_stuck = kNriMaxStuckCalls;
  CHECK(nri_calls_stuck(s, &all) ==
        "NRI plugin: 4 container call(s) stuck in host reads past their deadline (a hung driver or cgroup file? the "
        "plugin's log names the container); those containers started without the hook, and every GPU container now "
        "does until one of the reads returns");
  CHECK(all);
}
