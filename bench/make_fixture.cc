// make_fixture: builds an 8-GPU host tree for the benchmark with the test suite's fixture code
// (tests/support/fixture_host.cc: driver procfs, node sysfs, cgroup files, mountinfo,
// /proc/<pid>/cgroup and bundles in their real formats).
//
//   make_fixture ac922|gh|gh:N|gh-mig ok|stale OUT_DIR [CONFIG_TOML [--cgroups N]]
//
// Writes OUT_DIR/root (the host tree, for --host-root; its bundles hold Docker's config.json,
// tests/fixtures/docker-20.10, with the devices below), OUT_DIR/state-gpu.json (a container that
// asks for all 8 GPUs through linux.devices /dev/nvidia0-7), OUT_DIR/state-gpu-last.json (one that
// asks for the last GPU only), OUT_DIR/state-nogpu.json (a container
// without GPUs: the fast path) and OUT_DIR/reset.tsv (every cpuset.mems file of the tree with its
// content as built, "PATH<TAB>CONTENT" with \n escaped: the benchmark driver restores them before
// each patch run). CONFIG_TOML, when given, is installed as /etc/gpu-numa-hook/config.toml.
// --cgroups N adds N more cgroups for `check` (a kubelet-like tree: pods of one pod cgroup and 9
// container cgroups under the burstable slice, each holding every memory node; reset.tsv then
// lists only the fixture's own cgroups).
//
// ac922: an AC922-like host, grown to 8 GPUs: CPU nodes 0 and 8, GPU memory nodes 255..248
//   (nvidia0..7), affinity 0 for nvidia0-3 and 8 for nvidia4-7, cgroup v1. stale: the slices and
//   the container's cgroup (/docker/bench-gpu) kept mems 0,8 from boot.
// gh: a Grace-Hopper-like host of 8 superchips: CPU nodes 0-7, GPU i's memory node 8+8i (the
//   firmware reserves 8 nodes per GPU; possible 0-71), cgroup v2. stale: the kubelet's burstable
//   slice holds an explicit cpuset.mems of 0-7; the container's cgroup inherits. gh:N: N superchips
//   (1-64), laid out alike; the GPU container asks for all N.
// gh-mig: gh with its last GPU (nvidia7) in MIG state: numa_status fails with EIO, one GPU
//   instance (gi1/ci0 in the driver's capability folders) on the GPU's node, and an NVML cache
//   for this boot and driver naming it: state-gpu-last.json then starts a container on a MIG GPU.
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>

#include "fixture_host.h"

namespace fs = std::filesystem;
using namespace fixture;

namespace {

nlohmann::json docker_config() {
  return nlohmann::json::parse(fixture::read_file(GNH_SOURCE_DIR "/tests/fixtures/docker-20.10/config.json"));
}


// nvidia/cuda:12.4.1's NVIDIA_REQUIRE_CUDA (30 alternatives, as the image sets it).
const char* kCuda124Requirement =
    "cuda>=12.4 brand=tesla,driver>=470,driver<471 brand=unknown,driver>=470,driver<471 "
    "brand=nvidia,driver>=470,driver<471 brand=nvidiartx,driver>=470,driver<471 brand=geforce,driver>=470,driver<471 "
    "brand=geforcertx,driver>=470,driver<471 brand=quadro,driver>=470,driver<471 brand=quadrortx,driver>=470,driver<471 "
    "brand=titan,driver>=470,driver<471 brand=titanrtx,driver>=470,driver<471 brand=tesla,driver>=525,driver<526 "
    "brand=unknown,driver>=525,driver<526 brand=nvidia,driver>=525,driver<526 brand=nvidiartx,driver>=525,driver<526 "
    "brand=geforce,driver>=525,driver<526 brand=geforcertx,driver>=525,driver<526 brand=quadro,driver>=525,driver<526 "
    "brand=quadrortx,driver>=525,driver<526 brand=titan,driver>=525,driver<526 brand=titanrtx,driver>=525,driver<526 "
    "brand=tesla,driver>=535,driver<536 brand=unknown,driver>=535,driver<536 brand=nvidia,driver>=535,driver<536 "
    "brand=nvidiartx,driver>=535,driver<536 brand=geforce,driver>=535,driver<536 brand=geforcertx,driver>=535,driver<536 "
    "brand=quadro,driver>=535,driver<536 brand=quadrortx,driver>=535,driver<536 brand=titan,driver>=535,driver<536 "
    "brand=titanrtx,driver>=535,driver<536";

std::string escape(const std::string& s) {
  std::string out;
  for (char c : s) {
    if (c == '\n') out += "\\n";
    else if (c == '\\') out += "\\\\";
    else if (c == '\t') out += "\\t";
    else out += c;
  }
  return out;
}

std::string join_nodes(int from, int step, int count) {
  std::string s;
  for (int i = 0; i < count; ++i) {
    if (!s.empty()) s += ',';
    s += std::to_string(from + i * step);
  }
  return s;
}

constexpr int kGpuPid = 4242;
constexpr int kCpuPid = 4343;

// Returns the GPU container's cgroup.
std::string make_ac922_8(Host& h, bool stale) {
  const char* buses[] = {"0004:04:00.0", "0004:05:00.0", "0004:06:00.0", "0004:07:00.0",
                         "0035:03:00.0", "0035:04:00.0", "0035:05:00.0", "0035:06:00.0"};
  for (unsigned i = 0; i < 8; ++i)
    h.add_gpu({i, buses[i], "GPU-a0c0ffee-0000-4000-8000-00000000000" + std::to_string(i), 255 - static_cast<int>(i),
               "online", i < 4 ? 0 : 8});
  const std::string all = "0,8,248-255", slice = stale ? "0,8" : all;
  h.set_memory_nodes(all);
  h.write("/sys/devices/system/node/has_cpu", "0,8\n");
  h.make_cgroup("/", all);
  for (const char* s : {"/docker", "/system.slice", "/kubepods.slice", "/kubepods.slice/kubepods-burstable.slice",
                        "/machine.slice"})
    h.make_cgroup(s, slice);
  h.make_cgroup("/docker/bench-gpu", slice);
  h.make_cgroup("/docker/bench-cpu", slice);
  h.add_process(kCpuPid, "/docker/bench-cpu");
  return "/docker/bench-gpu";
}

// `gpus` superchips (1-64): CPU nodes 0..gpus-1, GPU i's memory node gpus+8i (the firmware
// reserves 8 nodes per GPU), possible 0..9*gpus-1. At 8 this is the 8-GPU layout above.
std::string make_gh(Host& h, bool stale, int gpus) {
  for (int i = 0; i < gpus; ++i) {
    char bus[16], uuid[48];
    std::snprintf(bus, sizeof bus, "%04x:01:00.0", 9 + 8 * i);
    std::snprintf(uuid, sizeof uuid, "GPU-9a9a9a9a-1111-4222-8333-%012llx", 0x444444444440ULL + unsigned(i));
    h.add_gpu({static_cast<unsigned>(i), bus, uuid, gpus + 8 * i, "online", i});
  }
  const std::string cpus = gpus == 1 ? "0" : "0-" + std::to_string(gpus - 1);
  const std::string all = cpus + "," + join_nodes(gpus, 8, gpus);
  h.set_memory_nodes(all);
  h.write("/sys/devices/system/node/has_cpu", cpus + "\n");
  h.write("/sys/devices/system/node/possible", "0-" + std::to_string(9 * gpus - 1) + "\n");
  h.make_cgroup("/", all);
  for (const char* s : {"/system.slice", "/kubepods.slice", "/kubepods.slice/kubepods-burstable.slice", "/docker"})
    h.make_cgroup(s, "");
  if (stale) h.make_cgroup("/kubepods.slice/kubepods-burstable.slice", cpus);
  const std::string cg = "/kubepods.slice/kubepods-burstable.slice/bench-gpu";
  h.make_cgroup(cg, "");
  h.make_cgroup("/docker/bench-cpu", "");
  h.add_process(kCpuPid, "/docker/bench-cpu");
  return cg;
}

void put(const std::string& path, const std::string& content) {
  int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0 || ::write(fd, content.data(), content.size()) != static_cast<ssize_t>(content.size())) {
    std::perror(path.c_str());
    std::exit(1);
  }
  ::close(fd);
}

// n cgroups in pods of 10 (the pod cgroup and 9 containers) under the burstable slice, written
// with plain syscalls (100,000 directories through fstream would take minutes).
void add_many_cgroups(const std::string& root, const Host& h, long n, const std::string& mems) {
  const std::string slice = root + h.cgroup_mount() + "/kubepods.slice/kubepods-burstable.slice";
  const bool v1 = h.version() == Version::v1;
  auto make = [&](const std::string& dir) {
    if (::mkdir(dir.c_str(), 0755) != 0) { std::perror(dir.c_str()); std::exit(1); }
    put(dir + "/cpuset.mems", v1 ? mems + "\n" : "\n");
    if (v1) {
      put(dir + "/cpuset.cpus", "0-1\n");
      put(dir + "/tasks", "");
    } else {
      put(dir + "/cgroup.threads", "");
    }
  };
  long made = 0;
  for (long pod = 0; made < n; ++pod) {
    char name[64];
    std::snprintf(name, sizeof name, "/pod%08lx-bench", pod);
    std::string pod_dir = slice + name;
    make(pod_dir);
    ++made;
    for (int c = 0; c < 9 && made < n; ++c, ++made) {
      std::snprintf(name, sizeof name, "/ctr%02d-%08lx", c, pod);
      make(pod_dir + name);
    }
  }
}

// gh-mig: the last GPU in MIG state, one GPU instance on its node, and the NVML cache saying so.
void make_last_gpu_mig(Host& h, int gpus) {
  const unsigned last = static_cast<unsigned>(gpus - 1);
  char bus[16], uuid[48];
  std::snprintf(bus, sizeof bus, "%04x:01:00.0", 9 + 8 * gpus - 8);
  std::snprintf(uuid, sizeof uuid, "GPU-9a9a9a9a-1111-4222-8333-%012llx", 0x444444444440ULL + last);
  const std::string status = h.root() + "/proc/driver/nvidia/gpus/" + bus + "/numa_status";
  fs::remove(status);
  fs::create_symlink("/proc/self/mem", status);  // its read fails with EIO, as a MIG GPU's does
  const std::string gi = "/proc/driver/nvidia/capabilities/gpu" + std::to_string(last) + "/mig/gi1";
  h.write(gi + "/access", "DeviceFileMinor: 16\nDeviceFileMode: 292\nDeviceFileModify: 1\n");
  h.write(gi + "/ci0/access", "DeviceFileMinor: 210\n");
  const char* boot = "6f1e7a52-3c2b-4d8e-9a41-0c5e2b7d9f10";
  h.write("/proc/sys/kernel/random/boot_id", std::string(boot) + "\n");
  nlohmann::json gpus_json = nlohmann::json::array();
  for (unsigned i = 0; i <= last; ++i) {
    char b[16], u[48];
    std::snprintf(b, sizeof b, "%04x:01:00.0", 9 + 8 * i);
    std::snprintf(u, sizeof u, "GPU-9a9a9a9a-1111-4222-8333-%012llx", 0x444444444440ULL + i);
    nlohmann::json migs = nlohmann::json::array();
    if (i == last)
      migs.push_back({{"index", 0}, {"uuid", "MIG-5e6f7a8b-0007-4c1d-9e2f-000000000001"}, {"gpu_instance_id", 1},
                      {"compute_instance_id", 0}, {"memory_node", gpus + 8 * static_cast<int>(i)}});
    gpus_json.push_back({{"index", i}, {"uuid", u}, {"minor", i}, {"bus_id", b}, {"memory_node", i == last ? -1 : gpus + 8 * int(i)},
                         {"mig_mode", i == last ? "enabled" : "disabled"}, {"mig_devices", migs}});
  }
  nlohmann::json cache = {{"format", 1}, {"boot_id", boot}, {"driver_version", "580.159.04"}, {"gpus", gpus_json}};
  h.write("/run/gpu-numa-hook/nvml-cache.json", cache.dump() + "\n");
}

}  // namespace

int main(int argc, char** argv) {
  // gh:N: N superchips instead of 8 (1-64): the check path as nodes grow
  const std::string kind = argc > 1 ? argv[1] : "";
  const bool mig = kind == "gh-mig";
  const int gh_gpus = kind == "gh" || mig ? 8 : kind.rfind("gh:", 0) == 0 ? std::atoi(kind.c_str() + 3) : 0;
  if (argc < 4 || (kind != "ac922" && (gh_gpus < 1 || gh_gpus > 64)) ||
      (std::string(argv[2]) != "ok" && std::string(argv[2]) != "stale")) {
    std::cerr << "usage: make_fixture ac922|gh|gh:N|gh-mig ok|stale OUT_DIR [CONFIG_TOML [--cgroups N]]\n";
    return 2;
  }
  const bool ac922 = kind == "ac922", stale = std::string(argv[2]) == "stale";
  const unsigned gpus = ac922 ? 8 : static_cast<unsigned>(gh_gpus);
  const fs::path out = argv[3];
  fs::create_directories(out);
  const fs::path root = out / "root";
  fs::remove_all(root);

  Host h(ac922 ? Version::v1 : Version::v2);
  std::string cg = ac922 ? make_ac922_8(h, stale) : make_gh(h, stale, gh_gpus);
  h.add_process(kGpuPid, cg);
  // The bundles are what Docker writes (tests/fixtures/docker-20.10: 9 KB with its seccomp
  // profile): the hook's cost on every start includes reading that, so the bench must too.
  nlohmann::json cpu_cfg = docker_config();
  cpu_cfg["linux"]["devices"] = nlohmann::json::array();  // Docker's capture had --device /dev/nvidia0
  cpu_cfg["linux"]["cgroupsPath"] = "/docker/bench-cpu";
  nlohmann::json gpu_cfg = docker_config();
  gpu_cfg["linux"]["devices"] = nlohmann::json::array();
  for (unsigned i = 0; i < gpus; ++i) gpu_cfg["linux"]["devices"].push_back(gpu_device(i));
  gpu_cfg["linux"]["cgroupsPath"] = cg;
  std::string gpu_bundle = h.add_bundle("bench-gpu", gpu_cfg, -1);
  // One GPU, the node's last (its information file is read last without the identity cache): a
  // pod's usual share of a large node.
  nlohmann::json last_cfg = gpu_cfg;
  last_cfg["linux"]["devices"] = nlohmann::json::array({gpu_device(gpus - 1)});
  std::string last_bundle = h.add_bundle("bench-gpu-last", last_cfg, -1);
  std::string cpu_bundle = h.add_bundle("bench-cpu", cpu_cfg, -1);
  // The same GPU container as nvidia/cuda:12.4.1 images declare it (NVIDIA_REQUIRE_CUDA, CUDA_VERSION)
  // on a driver that meets it: what the requirement check adds to a GPU container's start.
  nlohmann::json cuda_cfg = gpu_cfg;
  cuda_cfg["process"]["env"].push_back(std::string("NVIDIA_REQUIRE_CUDA=") + kCuda124Requirement);
  cuda_cfg["process"]["env"].push_back("CUDA_VERSION=12.4.1");
  std::string cuda_bundle = h.add_bundle("bench-cuda", cuda_cfg, -1);
  h.write("/proc/driver/nvidia/version",
          "NVRM version: NVIDIA UNIX Open Kernel Module for x86_64  580.159.04  Release Build  (nixbld@)  \n"
          "GCC version:  gcc version 15.3.0 (GCC) \n");
  if (mig) make_last_gpu_mig(h, gh_gpus);
  if (argc > 4) h.write_config(fixture::read_file(argv[4]));
  long many = 0;
  if (argc > 6 && std::string(argv[5]) == "--cgroups") many = std::atol(argv[6]);

  // Move the tree out of the fixture's temp dir before Host's destructor would remove it.
  std::error_code ec;
  fs::rename(h.root(), root, ec);
  if (ec) {
    fs::copy(h.root(), root, fs::copy_options::recursive);
  }
  std::ofstream(out / "state-gpu.json") << state_json("bench-gpu", kGpuPid, gpu_bundle);
  std::ofstream(out / "state-gpu-last.json") << state_json("bench-gpu-last", kGpuPid, last_bundle);
  std::ofstream(out / "state-nogpu.json") << state_json("bench-cpu", kCpuPid, cpu_bundle);
  std::ofstream(out / "state-gpu-cuda.json") << state_json("bench-cuda", kGpuPid, cuda_bundle);

  if (many > 0) add_many_cgroups(root.string(), h, many, ac922 ? "0,8,248-255" : "");
  std::ofstream reset(out / "reset.tsv");
  const fs::path cg_root = root / std::string(h.cgroup_mount()).substr(1);
  for (auto it = fs::recursive_directory_iterator(cg_root); it != fs::recursive_directory_iterator(); ++it) {
    if (it->is_directory() && it->path().filename().string().rfind("pod", 0) == 0 &&
        it->path().filename().string().find("-bench") != std::string::npos) {
      it.disable_recursion_pending();
      continue;
    }
    if (it->path().filename() != "cpuset.mems") continue;
    reset << it->path().string() << '\t' << escape(fixture::read_file(it->path().string())) << '\n';
  }
  std::cout << root.string() << "\n";
  return 0;
}
