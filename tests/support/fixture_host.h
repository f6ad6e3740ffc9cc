// A host tree on disk in the real formats (driver procfs, node sysfs, cgroup files, mountinfo,
// /proc/<pid>/cgroup) for running the real binary with --host-root. Only the NVIDIA driver and the
// kernel's cgroup files are stand-ins; their formats are copied from real hosts.
#pragma once

#include <nlohmann/json.hpp>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace fixture {

enum class Version { v1, v2 };

struct GpuSpec {
  unsigned minor = 0;
  std::string bus;   // "0004:05:00.0"
  std::string uuid;
  std::optional<int> memory_node;       // writes numa_status when set
  std::string memory_status = "online";
  std::optional<int> affinity_node;     // sysfs numa_node; -1 when unset
};

class Host {
 public:
  explicit Host(Version v);
  ~Host();
  Host(const Host&) = delete;
  Host& operator=(const Host&) = delete;

  const std::string& root() const { return root_; }
  Version version() const { return version_; }
  std::string cgroup_mount() const;  // host path of the cpuset hierarchy

  void write(const std::string& host_path, const std::string& content);
  std::string read(const std::string& host_path) const;  // "" when missing
  bool exists(const std::string& host_path) const;

  void add_gpu(const GpuSpec& g);
  // The GPU unbound and bound again: new /sys/bus/pci/devices/<bus>/driver and
  // /sys/bus/pci/drivers/nvidia/<bus> links.
  void rebind_gpu(const std::string& bus);
  void set_numa_status(unsigned minor_bus_index, const std::string& bus, int node, const std::string& status);
  void set_memory_nodes(const std::string& list);
  // v1: cpuset.mems (+cpus); v2: cpuset.mems (may be "" = inherit). The root takes `mems` too.
  void make_cgroup(const std::string& path, const std::string& mems);
  std::string mems(const std::string& path) const;  // cpuset.mems, trimmed
  void add_process(int pid, const std::string& cgroup_path);
  // returns host path; indent -1: compact, as engines write it
  std::string add_bundle(const std::string& id, const nlohmann::json& config, int indent = 2);
  void write_config(const std::string& toml);
  std::string log() const;

 private:
  std::string root_;
  Version version_;
};

// An IBM AC922: 4 GPUs, CPU nodes 0 and 8, GPU memory nodes 255,254,253 (nvidia0-2) and 252
// (nvidia3), all online. With `stale`, the slices created at boot kept mems 0,8.
// Slices: /docker, /system.slice, /kubepods.slice/kubepods-burstable.slice, /machine.slice.
void make_ac922(Host& h, bool stale);
// A Grace Hopper (GH200, one GPU): node 0 CPUs+memory, GPU memory node 1 (firmware range 1-8).
void make_grace_hopper(Host& h, bool stale);

// A whole file, "" when missing.
std::string read_file(const std::string& path);

std::string state_json(const std::string& id, int pid, const std::string& bundle);
nlohmann::json container_config(const std::vector<std::string>& env = {},
                                const std::vector<nlohmann::json>& devices = {});
nlohmann::json gpu_device(unsigned minor);
// `config` as NVIDIA's runtime in legacy mode (and docker --gpus) hands it on: NVIDIA's hook added
// at prestart, which is what turns NVIDIA_VISIBLE_DEVICES into a GPU (gpu/device_forms.h).
nlohmann::json legacy_mode(nlohmann::json config);

struct RunResult {
  int exit_code = -1;
  std::string out;
  std::string err;
};
// Runs build/gpu-numa-hook with args, feeding stdin_text.
RunResult run_hook_binary(const std::vector<std::string>& args, const std::string& stdin_text);

// Issue 6 (hostile input, faults, concurrency): runs the test starts and does not wait for at once.
struct Spawned {
  int pid = -1;
  std::string dir;       // scratch directory with out/err
  int stdin_fd = -1;     // write end of stdin when kept open, else -1
};
// Starts the binary with stdin_text as its stdin (a file); keep_stdin_open feeds it through a pipe
// whose write end stays open (a runtime that never closes it) until wait_hook_binary.
Spawned spawn_hook_binary(const std::vector<std::string>& args, const std::string& stdin_text,
                          bool keep_stdin_open = false);
// Waits at most timeout_ms; a run still going then is killed and reported with exit_code -1.
RunResult wait_hook_binary(Spawned& s, int timeout_ms);
// Blocks until the spawned binary's stdout holds `line` (a whole line, newline included) or it has
// exited or timeout_ms passed; true when the line came. Tests change the world after the program
// said what it saw, never after a sleep; timeout_ms only bounds a hang, so make it generous.
bool wait_for_line(const Spawned& s, const std::string& line, int timeout_ms = 120000);

// Every cpuset.mems beneath the fixture's cgroup mount: cgroup path -> content.
std::map<std::string, std::string> snapshot_mems(const Host& h);

}  // namespace fixture
