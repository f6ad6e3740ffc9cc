#include <doctest/doctest.h>

#include "check/container_drift.h"
#include "check/metrics.h"
#include "check/check_report.h"
#include "check/result.h"

using namespace gnh;

namespace {

RunningGpuContainer ctr(const char* id, const char* mems, const char* gpu_nodes) {
  return {id, "/run/runc", std::string("/system.slice/runc-") + id + ".scope", *NodeSet::parse(mems),
          *NodeSet::parse(gpu_nodes), "/dev/nvidia0(0000:01:00.0)"};
}

}  // namespace

TEST_CASE("a running GPU container lacking its GPU's online node has lost it, the others have not") {
  std::vector<RunningGpuContainer> running = {ctr("lost", "0", "1"), ctr("fine", "0-1", "1"),
                                              ctr("offline-gpu", "0", "2"), ctr("two", "0,2", "1-2")};
  auto lost = find_lost_gpu_nodes(running, NodeSet::of({1}), ExplicitMemsPolicy::widen);
  REQUIRE(lost.size() == 2);
  CHECK(lost[0].id == "lost");
  CHECK(lost[0].missing.to_string() == "1");
  CHECK(lost[0].cgroup == "/system.slice/runc-lost.scope");
  CHECK(lost[1].id == "two");
  CHECK(lost[1].missing.to_string() == "1");
  // Node 2 is not online: that is check's offline-node finding, not a loss.
  CHECK(find_lost_gpu_nodes({ctr("x", "0", "2")}, NodeSet::of({1}), ExplicitMemsPolicy::widen).empty());
  // explicit-mems = "respect": a container pinned away from its GPU was started that way.
  CHECK(find_lost_gpu_nodes(running, NodeSet::of({1}), ExplicitMemsPolicy::respect).empty());
}

TEST_CASE("check: a lost GPU node is a problem in the exit code, the text, the JSON and the metrics") {
  CheckResult r;
  r.lost = find_lost_gpu_nodes({ctr("c1", "0", "1")}, NodeSet::of({1}), ExplicitMemsPolicy::widen);
  CHECK(r.exit_code() == 1);
  CHECK(check_text(r).find("running GPU containers that lost a GPU memory node: 1") != std::string::npos);
  CHECK(check_text(r).find("c1  /system.slice/runc-c1.scope  mems 0  missing 1") != std::string::npos);
  CHECK(check_json(r).find("\"containers_lost_gpu_node\": [") != std::string::npos);
  CHECK(check_json(r).find("\"container\": \"c1\"") != std::string::npos);
  double v = -1;
  for (const auto& m : check_metrics(&r, 0))
    if (m.name == "gpu_numa_hook_containers_lost_gpu_node") v = m.value;
  CHECK(v == 1);

  // Fixed, and systemd told: clean.
  r.container_fixes.push_back({"c1", "/system.slice/runc-c1.scope", NodeSet::of({0}), NodeSet::of({0, 1}), true, false, ""});
  r.systemd_updates.push_back({"runc-c1.scope", NodeSet::of({0, 1}), "", false});
  r.lost_after = std::vector<LostGpuNode>{};
  CHECK(r.exit_code() == 0);
  CHECK(check_text(r).find("container c1 (/system.slice/runc-c1.scope)  0 -> 0-1") != std::string::npos);
  CHECK(check_text(r).find("systemd: runc-c1.scope AllowedMemoryNodes=0-1 (runtime)") != std::string::npos);
  // systemd not told: the next daemon-reload undoes the fix, so check says so and exits 1.
  r.systemd_updates[0].error = "connect /run/systemd/private: Permission denied";
  CHECK(r.exit_code() == 1);
  CHECK(check_text(r).find("systemctl set-property --runtime runc-c1.scope AllowedMemoryNodes=0-1") != std::string::npos);
  // A systemd without AllowedMemoryNodes= (upstream 239) was not sent it: it leaves cpuset.mems
  // alone, so the fix stands; said, not counted, and no command that cannot work there.
  r.systemd_updates[0] = {"runc-c1.scope", NodeSet::of({0, 1}), "", true};
  CHECK(r.exit_code() == 0);
  CHECK(check_text(r).find("  systemd: runc-c1.scope not told: its systemd has no AllowedMemoryNodes= (upstream added "
                           "it in 244) and leaves cpuset.mems alone, so the value written stays; nothing to run\n") !=
        std::string::npos);
  CHECK(check_text(r).find("set-property") == std::string::npos);
  CHECK(check_json(r).find("\"unsupported\": true") != std::string::npos);
}
