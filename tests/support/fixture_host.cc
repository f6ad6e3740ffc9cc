#include "fixture_host.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <cstdio>
#include <cstdlib>
#include <stdexcept>

namespace fs = std::filesystem;

namespace fixture {

namespace {
const char* kInformationTemplate =
    "Model: \t\t NVIDIA Tesla V100-SXM2-16GB\nIRQ:   \t\t 41\nGPU UUID: \t %UUID%\nVideo BIOS: \t 88.00.80.00.01\n"
    "Bus Type: \t PCIe\nDMA Size: \t 47 bits\nDMA Mask: \t 0x7fffffffffff\nBus Location: \t %BUS%\n"
    "Device Minor: \t %MINOR%\nGPU Excluded:\t No\n";

std::string replace_all(std::string s, const std::string& from, const std::string& to) {
  for (size_t p = s.find(from); p != std::string::npos; p = s.find(from, p + to.size())) s.replace(p, from.size(), to);
  return s;
}

std::string trim(std::string s) {
  while (!s.empty() && (s.back() == '\n' || s.back() == ' ')) s.pop_back();
  return s;
}

}  // namespace

std::string read_file(const std::string& path) {
  std::ifstream f(path);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

Host::Host(Version v) : version_(v) {
  char tmpl[] = "/tmp/gnh-fixture-XXXXXX";
  if (!::mkdtemp(tmpl)) throw std::runtime_error("mkdtemp failed");
  root_ = tmpl;
  std::string mountinfo =
      "22 27 0:21 / /proc rw,relatime - proc proc rw\n"
      "23 27 0:22 / /sys rw,relatime - sysfs sysfs rw\n"
      "27 1 254:0 / / rw,relatime - ext4 /dev/vda rw\n";
  if (v == Version::v1) {
    mountinfo +=
        "30 23 0:25 / /sys/fs/cgroup ro,nosuid,nodev,noexec shared:4 - tmpfs tmpfs ro,mode=755\n"
        "31 30 0:26 / /sys/fs/cgroup/unified rw,nosuid,nodev,noexec,relatime shared:5 - cgroup2 cgroup2 rw,nsdelegate\n"
        "35 30 0:30 / /sys/fs/cgroup/cpuset rw,nosuid,nodev,noexec,relatime shared:15 - cgroup cgroup rw,cpuset\n"
        "36 30 0:31 / /sys/fs/cgroup/memory rw,nosuid,nodev,noexec,relatime shared:16 - cgroup cgroup rw,memory\n";
  } else {
    mountinfo += "32 23 0:28 / /sys/fs/cgroup rw,nosuid,nodev,noexec,relatime - cgroup2 cgroup2 rw,nsdelegate,memory_recursiveprot\n";
  }
  write("/proc/self/mountinfo", mountinfo);
  fs::create_directories(root_ + "/proc/driver/nvidia/gpus");
  fs::create_directories(root_ + "/var/log");
  fs::create_directories(root_ + "/run");
}

Host::~Host() {
  // GNH_KEEP_FIXTURES=1 leaves the tree for a look after a failure.
  if (std::getenv("GNH_KEEP_FIXTURES")) { std::fprintf(stderr, "fixture kept: %s\n", root_.c_str()); return; }
  std::error_code ec;
  fs::remove_all(root_, ec);
}

std::string Host::cgroup_mount() const {
  return version_ == Version::v1 ? "/sys/fs/cgroup/cpuset" : "/sys/fs/cgroup";
}

void Host::write(const std::string& host_path, const std::string& content) {
  fs::path p = root_ + host_path;
  fs::create_directories(p.parent_path());
  std::ofstream f(p, std::ios::trunc);
  f << content;
}

std::string Host::read(const std::string& host_path) const { return read_file(root_ + host_path); }
bool Host::exists(const std::string& host_path) const { return fs::exists(root_ + host_path); }

void Host::add_gpu(const GpuSpec& g) {
  std::string dir = "/proc/driver/nvidia/gpus/" + g.bus;
  std::string info = replace_all(kInformationTemplate, "%UUID%", g.uuid);
  info = replace_all(info, "%BUS%", g.bus);
  info = replace_all(info, "%MINOR%", std::to_string(g.minor));
  write(dir + "/information", info);
  if (g.memory_node)
    write(dir + "/numa_status", "Node:      " + std::to_string(*g.memory_node) + "\nStatus:    " + g.memory_status + "\n");
  write("/sys/bus/pci/devices/" + g.bus + "/numa_node",
        std::to_string(g.affinity_node ? *g.affinity_node : -1) + "\n");
  rebind_gpu(g.bus);
}

void Host::rebind_gpu(const std::string& bus) {
  // sysfs makes both links anew, each with a new inode, at every bind: the device's "driver" and
  // the driver's link to the device. Each new link is made before the old one goes, so its inode
  // number cannot be the old one's.
  const std::string link = root_ + "/sys/bus/pci/devices/" + bus + "/driver";
  fs::create_symlink("../../../bus/pci/drivers/nvidia", link + ".new");
  fs::rename(link + ".new", link);
  const std::string back = root_ + "/sys/bus/pci/drivers/nvidia/" + bus;
  fs::create_directories(fs::path(back).parent_path());
  fs::create_symlink("../../devices/" + bus, back + ".new");
  fs::rename(back + ".new", back);
}

void Host::set_numa_status(unsigned, const std::string& bus, int node, const std::string& status) {
  write("/proc/driver/nvidia/gpus/" + bus + "/numa_status",
        "Node:      " + std::to_string(node) + "\nStatus:    " + status + "\n");
}

void Host::set_memory_nodes(const std::string& list) {
  write("/sys/devices/system/node/has_memory", list + "\n");
  write("/sys/devices/system/node/online", list + "\n");
}

void Host::make_cgroup(const std::string& path, const std::string& mems) {
  std::string dir = cgroup_mount() + (path == "/" ? "" : path);
  fs::create_directories(root_ + dir);
  write(dir + "/cpuset.mems", mems + "\n");
  if (version_ == Version::v1) {
    write(dir + "/cpuset.cpus", "0-1\n");
    write(dir + "/tasks", "");
  } else {
    write(dir + "/cgroup.threads", "");
    if (path == "/") write(dir + "/cpuset.mems.effective", mems + "\n");
  }
}

std::string Host::mems(const std::string& path) const {
  return trim(read(cgroup_mount() + (path == "/" ? "" : path) + "/cpuset.mems"));
}

void Host::add_process(int pid, const std::string& cgroup_path) {
  std::string text = version_ == Version::v1
                         ? "12:memory:" + cgroup_path + "\n5:cpuset:" + cgroup_path + "\n0::" + cgroup_path + "\n"
                         : "0::" + cgroup_path + "\n";
  write("/proc/" + std::to_string(pid) + "/cgroup", text);
}

std::string Host::add_bundle(const std::string& id, const nlohmann::json& config, int indent) {
  std::string path = "/run/bundles/" + id;
  write(path + "/config.json", config.dump(indent));
  return path;
}

void Host::write_config(const std::string& toml) { write("/etc/gpu-numa-hook/config.toml", toml); }
std::string Host::log() const { return read("/var/log/gpu-numa-hook.log"); }

void make_ac922(Host& h, bool stale) {
  const char* buses[] = {"0004:04:00.0", "0004:05:00.0", "0035:03:00.0", "0035:04:00.0"};
  const int nodes[] = {255, 254, 253, 252};
  for (unsigned i = 0; i < 4; ++i)
    h.add_gpu({i, buses[i], "GPU-a0c0ffee-0000-4000-8000-00000000000" + std::to_string(i), nodes[i], "online",
               i < 2 ? 0 : 8});
  h.set_memory_nodes("0,8,252-255");
  h.write("/sys/devices/system/node/has_cpu", "0,8\n");
  const std::string all = "0,8,252-255", slice = stale ? "0,8" : all;
  h.make_cgroup("/", all);
  for (const char* s : {"/docker", "/system.slice", "/kubepods.slice", "/kubepods.slice/kubepods-burstable.slice",
                        "/machine.slice"})
    h.make_cgroup(s, h.version() == Version::v1 ? slice : (stale ? slice : ""));
}

void make_grace_hopper(Host& h, bool stale) {
  h.add_gpu({0, "0009:01:00.0", "GPU-9a9a9a9a-1111-4222-8333-444444444444", 1, "online", 0});
  h.set_memory_nodes("0-1");
  h.write("/sys/devices/system/node/has_cpu", "0\n");
  h.write("/sys/devices/system/node/possible", "0-8\n");
  h.make_cgroup("/", "0-1");
  for (const char* s : {"/system.slice", "/kubepods.slice", "/kubepods.slice/kubepods-burstable.slice", "/docker"})
    h.make_cgroup(s, h.version() == Version::v1 ? (stale ? "0" : "0-1") : "");
  // On v2 staleness comes from explicit values (kubelet memory manager, --cpuset-mems).
  if (h.version() == Version::v2 && stale) h.make_cgroup("/kubepods.slice/kubepods-burstable.slice", "0");
}

std::string state_json(const std::string& id, int pid, const std::string& bundle) {
  return nlohmann::json{{"ociVersion", "1.0.2-dev"}, {"id", id}, {"status", "creating"}, {"pid", pid}, {"bundle", bundle}}.dump();
}

nlohmann::json container_config(const std::vector<std::string>& env, const std::vector<nlohmann::json>& devices) {
  nlohmann::json envs = nlohmann::json::array({"PATH=/usr/bin:/bin"});
  for (const auto& e : env) envs.push_back(e);
  return {{"ociVersion", "1.0.2"},
          {"process", {{"args", {"sh"}}, {"env", envs}, {"cwd", "/"}}},
          {"root", {{"path", "rootfs"}}},
          {"linux", {{"devices", nlohmann::json(devices)}, {"cgroupsPath", "/docker/x"}}}};
}

nlohmann::json legacy_mode(nlohmann::json config) {
  config["hooks"]["prestart"].push_back({{"path", "/usr/bin/nvidia-container-runtime-hook"},
                                         {"args", {"nvidia-container-runtime-hook", "prestart"}}});
  return config;
}

nlohmann::json gpu_device(unsigned minor) {
  return {{"path", "/dev/nvidia" + std::to_string(minor)}, {"type", "c"}, {"major", 195}, {"minor", minor}};
}

RunResult run_hook_binary(const std::vector<std::string>& args, const std::string& stdin_text) {
  // Bounded: a hook that hangs fails its test (exit_code -1) instead of hanging the suite.
  Spawned s = spawn_hook_binary(args, stdin_text);
  return wait_hook_binary(s, 60000);
}

Spawned spawn_hook_binary(const std::vector<std::string>& args, const std::string& stdin_text, bool keep_stdin_open) {
  char dir_t[] = "/tmp/gnh-run-XXXXXX";
  if (!::mkdtemp(dir_t)) throw std::runtime_error("mkdtemp");
  Spawned s;
  s.dir = dir_t;
  int pipefd[2] = {-1, -1};
  if (keep_stdin_open) {
    // A pipe the test keeps open: the hook sees the text but never an end of file.
    if (::pipe2(pipefd, O_CLOEXEC) != 0) throw std::runtime_error("pipe");
    if (stdin_text.size() > 60000) throw std::runtime_error("keep_stdin_open takes at most a pipe's worth");
  } else {
    std::ofstream(s.dir + "/in") << stdin_text;
  }
  pid_t pid = ::fork();
  if (pid < 0) throw std::runtime_error("fork");
  if (pid == 0) {
    int in = keep_stdin_open ? pipefd[0] : ::open((s.dir + "/in").c_str(), O_RDONLY);
    int out = ::open((s.dir + "/out").c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
    int err = ::open((s.dir + "/err").c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
    ::dup2(in, 0);
    ::dup2(out, 1);
    ::dup2(err, 2);
    std::vector<char*> argv;
    std::string bin = GNH_BINARY;
    argv.push_back(bin.data());
    std::vector<std::string> copy = args;
    for (auto& a : copy) argv.push_back(a.data());
    argv.push_back(nullptr);
    ::execv(bin.c_str(), argv.data());
    _exit(127);
  }
  s.pid = pid;
  if (keep_stdin_open) {
    ::close(pipefd[0]);
    if (::write(pipefd[1], stdin_text.data(), stdin_text.size()) != static_cast<ssize_t>(stdin_text.size()))
      throw std::runtime_error("write to the hook's stdin");
    s.stdin_fd = pipefd[1];
  }
  return s;
}

bool wait_for_line(const Spawned& s, const std::string& line, int timeout_ms) {
  auto end = std::chrono::steady_clock::now() + std::chrono::milliseconds(timeout_ms);
  while (true) {
    std::string out = read_file(s.dir + "/out");
    if (out.rfind(line, 0) == 0 || out.find("\n" + line) != std::string::npos) return true;
    if (std::chrono::steady_clock::now() >= end) return false;
    siginfo_t info{};
    // WNOWAIT: the child stays reapable for wait_hook_binary.
    if (::waitid(P_PID, static_cast<id_t>(s.pid), &info, WEXITED | WNOHANG | WNOWAIT) == 0 && info.si_pid == s.pid) {
      // Exited: one last read, then it will print nothing more.
      out = read_file(s.dir + "/out");
      return out.rfind(line, 0) == 0 || out.find("\n" + line) != std::string::npos;
    }
    ::usleep(2000);
  }
}

RunResult wait_hook_binary(Spawned& s, int timeout_ms) {
  RunResult r;
  int status = 0;
  auto end = std::chrono::steady_clock::now() + std::chrono::milliseconds(timeout_ms);
  bool done = false;
  while (!done) {
    pid_t w = ::waitpid(s.pid, &status, WNOHANG);
    if (w == s.pid) { done = true; break; }
    if (std::chrono::steady_clock::now() >= end) break;
    ::usleep(2000);
  }
  if (done) {
    r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  } else {
    ::kill(s.pid, SIGKILL);
    ::waitpid(s.pid, &status, 0);
    r.exit_code = -1;  // did not end in time: the test reports a hang
  }
  if (s.stdin_fd >= 0) ::close(s.stdin_fd);
  s.stdin_fd = -1;
  r.out = read_file(s.dir + "/out");
  r.err = read_file(s.dir + "/err");
  std::error_code ec;
  fs::remove_all(s.dir, ec);
  return r;
}

std::map<std::string, std::string> snapshot_mems(const Host& h) {
  std::map<std::string, std::string> out;
  std::string base = h.root() + h.cgroup_mount();
  std::error_code ec;
  for (auto it = fs::recursive_directory_iterator(base, fs::directory_options::none, ec);
       !ec && it != fs::recursive_directory_iterator(); it.increment(ec)) {
    if (it->path().filename() != "cpuset.mems" || it->is_symlink()) continue;
    std::string rel = it->path().parent_path().string().substr(base.size());
    out[rel.empty() ? "/" : rel] = read_file(it->path().string());
  }
  return out;
}

}  // namespace fixture
