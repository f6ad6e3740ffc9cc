// `check` walking a large cpuset hierarchy: 10,000 and 100,000 synthetic cgroups (Kubernetes-like
// slices / pods / containers, v1 cpuset, one slice in two stale) in a temp fixture tree.
// Target: a 10,000-cgroup walk under 200 ms. Run: build/bench/check_bench
#include <benchmark/benchmark.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <map>
#include <memory>
#include <stdexcept>
#include <string>

#include "check/findings.h"
#include "host/cgroup/cpuset_walk.h"
#include "host/cgroup/cgroup_locator.h"
#include "host/driver/driver_reader.h"

namespace {

void put(const std::string& path, const std::string& text) {
  int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  if (fd < 0 || ::write(fd, text.data(), text.size()) != static_cast<ssize_t>(text.size()))
    throw std::runtime_error("cannot write " + path);
  ::close(fd);
}

void mkdirs(const std::string& path) { std::filesystem::create_directories(path); }

// An AC922-like host: CPU nodes 0 and 8, GPU memory nodes 252-255 online, `cgroups` cgroups in the
// v1 cpuset hierarchy (root included): slices of 100 pods of 4 containers each.
class SyntheticHost {
 public:
  explicit SyntheticHost(int cgroups) {
    char tmpl[] = "/tmp/gnh-check-bench-XXXXXX";
    if (!::mkdtemp(tmpl)) throw std::runtime_error("mkdtemp");
    root_ = tmpl;
    mkdirs(root_ + "/proc/self");
    put(root_ + "/proc/self/mountinfo",
        "35 30 0:30 / /sys/fs/cgroup/cpuset rw,nosuid,nodev,noexec,relatime shared:15 - cgroup cgroup rw,cpuset\n");
    mkdirs(root_ + "/sys/devices/system/node");
    put(root_ + "/sys/devices/system/node/has_memory", "0,8,252-255\n");
    put(root_ + "/sys/devices/system/node/has_cpu", "0,8\n");
    const char* buses[] = {"0004:04:00.0", "0004:05:00.0", "0035:03:00.0", "0035:04:00.0"};
    for (int i = 0; i < 4; ++i) {
      std::string d = root_ + "/proc/driver/nvidia/gpus/" + buses[i];
      mkdirs(d);
      put(d + "/information", "Model: \t\t Tesla V100\nGPU UUID: \t GPU-" + std::to_string(i) + "\nBus Location: \t " +
                                  buses[i] + "\nDevice Minor: \t " + std::to_string(i) + "\n");
      put(d + "/numa_status", "Node:      " + std::to_string(255 - i) + "\nStatus:    online\n");
    }
    std::string mount = root_ + "/sys/fs/cgroup/cpuset";
    cgroup(mount, "0,8,252-255");
    int made = 1;
    for (int s = 0; made < cgroups; ++s) {
      // Every other slice predates the GPU memory coming online, and so do its pods.
      std::string mems = s % 2 ? "0,8" : "0,8,252-255";
      std::string slice = mount + "/slice" + std::to_string(s) + ".slice";
      cgroup(slice, mems);
      ++made;
      for (int p = 0; p < 100 && made < cgroups; ++p) {
        std::string pod = slice + "/pod" + std::to_string(p) + ".slice";
        cgroup(pod, mems);
        ++made;
        for (int c = 0; c < 4 && made < cgroups; ++c, ++made) cgroup(pod + "/cri-containerd-" + std::to_string(c) + ".scope", mems);
      }
    }
  }
  ~SyntheticHost() {
    std::error_code ec;
    std::filesystem::remove_all(root_, ec);
  }
  const std::string& root() const { return root_; }

 private:
  static void cgroup(const std::string& dir, const std::string& mems) {
    mkdirs(dir);
    put(dir + "/cpuset.mems", mems + "\n");
    put(dir + "/tasks", "1\n");
  }
  std::string root_;
};

// Fixture trees are costly to make: one per size, kept for the whole run.
SyntheticHost& host(int cgroups) {
  static std::map<int, std::unique_ptr<SyntheticHost>> hosts;
  auto& h = hosts[cgroups];
  if (!h) h = std::make_unique<SyntheticHost>(cgroups);
  return *h;
}

// In process: find the hierarchy, read every cgroup, decide what is stale.
void BM_CheckWalk(benchmark::State& state) {
  int n = static_cast<int>(state.range(0));
  gnh::HostFs fs(host(n).root());
  size_t stale = 0;
  for (auto _ : state) {
    gnh::CpusetLocation loc = gnh::locate_cpuset_hierarchy(fs);
    gnh::CpusetTree tree(fs, loc);
    gnh::NodeSet cpus = gnh::NodeSet::of({0, 8});
    gnh::HostNodes nodes = gnh::host_nodes_from(gnh::read_inventory(fs, {}), gnh::read_memory_nodes(fs), &cpus);
    gnh::CheckFindings f = gnh::find_problems(gnh::snapshot_cpusets(tree), nodes);
    if (f.cgroups != static_cast<size_t>(n)) state.SkipWithError("walked the wrong number of cgroups");
    stale = f.stale.size();
    benchmark::DoNotOptimize(f);
  }
  state.counters["cgroups"] = n;
  state.counters["stale"] = static_cast<double>(stale);
  state.SetItemsProcessed(state.iterations() * n);
}

// The real binary end to end (`check --json`, output thrown away), task counts and report included.
void BM_CheckBinary(benchmark::State& state) {
  int n = static_cast<int>(state.range(0));
  std::string root = host(n).root();
  for (auto _ : state) {
    pid_t pid = ::fork();
    if (pid == 0) {
      int null = ::open("/dev/null", O_WRONLY);
      ::dup2(null, 1);
      ::execl(GNH_BINARY, GNH_BINARY, "--host-root", root.c_str(), "check", "--json", nullptr);
      _exit(127);
    }
    int status = 0;
    ::waitpid(pid, &status, 0);
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 1) state.SkipWithError("check did not exit 1 (stale found)");
  }
  state.counters["cgroups"] = n;
  state.SetItemsProcessed(state.iterations() * n);
}

}  // namespace

BENCHMARK(BM_CheckWalk)->Arg(10000)->Arg(100000)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_CheckBinary)->Arg(10000)->Arg(100000)->Unit(benchmark::kMillisecond)->UseRealTime();

BENCHMARK_MAIN();
