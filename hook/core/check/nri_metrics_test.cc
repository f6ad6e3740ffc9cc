#include "check/nri_metrics.h"

#include <doctest/doctest.h>

#include "check/metrics.h"

using namespace gnh;

namespace {
const Metric* find(const std::vector<Metric>& m, const std::string& name) {
  for (const auto& x : m)
    if (x.name == name) return &x;
  return nullptr;
}
double value(const std::vector<Metric>& m, const std::string& name) {
  const Metric* x = find(m, name);
  if (!x) FAIL("no metric " << name);
  return x ? x->value : -1;
}
NriPluginState serving(long long now) {
  NriPluginState s;
  s.connected = true;
  s.runtime = "containerd v2.1.9";
  s.heartbeat = now - 3;
  s.connects = 2;
  s.connected_since = now - 600;
  s.calls = NriCallCounts{5, 1};
  return s;
}
}  // namespace

TEST_CASE("the plugin's own metrics: serving, counts, drop class and the hook's decisions") {
  const long long now = 1763700000;
  NriPluginState s = serving(now);
  DecisionCounts d;
  d.add("refuse");
  d.add("refuse");
  auto m = nri_plugin_metrics(s, d, now);
  CHECK(value(m, "gpu_numa_hook_nri_plugin_connected") == 1);
  CHECK(value(m, "gpu_numa_hook_nri_hook_present") == 1);
  CHECK(value(m, "gpu_numa_hook_nri_injections_total") == 5);
  CHECK(value(m, "gpu_numa_hook_nri_calls_failed_total") == 1);
  CHECK(value(m, "gpu_numa_hook_nri_connects_total") == 2);
  CHECK(value(m, "gpu_numa_hook_nri_drops_total") == 0);
  const Metric* info = find(m, "gpu_numa_hook_nri_last_drop_info");
  REQUIRE(info);
  CHECK(info->labels == std::vector<std::pair<std::string, std::string>>{{"reason", "none"}});
  std::string text = render_metrics(m);
  CHECK(text.find("gpu_numa_hook_decisions_total{action=\"refuse\"} 2\n") != std::string::npos);
  CHECK(text.find("gpu_numa_hook_decisions_total{action=\"patch\"} 0\n") != std::string::npos);

  // No decision file: the counters are left out, not exported as 0.
  CHECK(!find(nri_plugin_metrics(s, std::nullopt, now), "gpu_numa_hook_decisions_total"));
}

TEST_CASE("the plugin reports 0 when disconnected, flapping or without its hook, as check does") {
  const long long now = 1763700000;
  NriPluginState s = serving(now);
  s.connected = false;
  CHECK(value(nri_plugin_metrics(s, std::nullopt, now), "gpu_numa_hook_nri_plugin_connected") == 0);

  s = serving(now);
  for (int i = 0; i < kNriFlapDrops; ++i) record_nri_drop(&s, now - 60 + i, "the runtime closed the connection");
  s.connected = true;
  s.connected_since = now - 5;
  auto m = nri_plugin_metrics(s, std::nullopt, now);
  CHECK(value(m, "gpu_numa_hook_nri_plugin_connected") == 0);
  CHECK(value(m, "gpu_numa_hook_nri_drops_total") == kNriFlapDrops);
  CHECK(find(m, "gpu_numa_hook_nri_last_drop_info")->labels[0].second == "runtime_closed");

  s = serving(now);
  s.hook_present = false;
  s.hook_problem = "No such file or directory";
  m = nri_plugin_metrics(s, std::nullopt, now);
  CHECK(value(m, "gpu_numa_hook_nri_plugin_connected") == 1);
  CHECK(value(m, "gpu_numa_hook_nri_hook_present") == 0);
}

TEST_CASE("drop reasons fall into a few classes: the label's values stay bounded") {
  CHECK(std::string(nri_drop_reason_class("")) == "none");
  CHECK(std::string(nri_drop_reason_class("the runtime closed the connection")) == "runtime_closed");
  CHECK(std::string(nri_drop_reason_class("the runtime closed the connection in the middle of a frame (4 bytes of it received)")) ==
        "runtime_closed");
  CHECK(std::string(nri_drop_reason_class("the runtime asked the plugin to shut down")) == "shutdown");
  CHECK(std::string(nri_drop_reason_class("protocol error, connection dropped: bad frame")) == "protocol_error");
  CHECK(std::string(nri_drop_reason_class("the runtime did not configure the plugin within 5000 ms of RegisterPlugin")) ==
        "timeout");
  CHECK(std::string(nri_drop_reason_class("the runtime stopped in the middle of a frame (3 bytes of it received, nothing for 2000 ms)")) ==
        "timeout");
  CHECK(std::string(nri_drop_reason_class("the runtime did not read our answer within 2000 ms")) == "timeout");
  CHECK(std::string(nri_drop_reason_class("read from the runtime failed: Connection reset by peer")) == "io_error");
  CHECK(std::string(nri_drop_reason_class("something new")) == "other");
}

TEST_CASE("check's textfile carries the same NRI metrics, by the same definitions") {
  CheckResult r;
  r.nri_applicable = true;
  r.nri_calls = NriCallCounts{3, 0};
  r.nri_connections = NriConnectionCounts{4, 1, "the runtime asked the plugin to shut down"};
  std::string file = render_metrics(check_metrics(&r, 1763700000)) + render_metrics(counter_metrics(r));
  NriPluginState s = serving(1763700000);
  s.calls = r.nri_calls;
  s.connects = 4;
  s.drops = 1;
  s.last_drop_reason = r.nri_connections->last_drop_reason;
  // Every line the plugin serves (no decision file here) is a line of check's file.
  std::string served = render_metrics(nri_plugin_metrics(s, std::nullopt, 1763700000));
  size_t pos = 0, lines = 0;
  while (pos < served.size()) {
    size_t nl = served.find('\n', pos);
    std::string line = served.substr(pos, nl - pos + 1);
    CHECK_MESSAGE(file.find(line) != std::string::npos, line);
    pos = nl + 1;
    ++lines;
  }
  CHECK(lines >= 13);
}
