#include "host/status/node_status_reader.h"

#include "check/nri_plugin_state.h"
#include "host/check/nri_state_reader.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <map>
#include <nlohmann/json.hpp>

#include "base/error.h"
#include "check/findings.h"
#include "host/cgroup/cgroup_locator.h"
#include "host/check/container_specs.h"
#include "host/config/config_loader.h"
#include "host/cgroup/cpuset_tree.h"
#include "host/cgroup/cpuset_walk.h"
#include "host/driver/driver_reader.h"
#include "host/install/engine_files.h"
#include "host/driver/nvml_cache_reader.h"
#include "install/containerd_config.h"
#include "install/containerd_load_order.h"
#include "install/nri_config.h"
#include "install/nvidia_mode.h"
#include "status/registration.h"

namespace gnh {

namespace {

constexpr size_t kLogTailBytes = 256 * 1024;  // the last refusals are recent: no need for the whole log
constexpr const char* kTimer = "gpu-numa-hook-check.timer";

std::string dir_of(const std::string& path) {
  size_t slash = path.rfind('/');
  return slash == std::string::npos ? "." : slash == 0 ? "/" : path.substr(0, slash);
}

BinaryFact binary(const HostFs& fs, const std::string& role, const std::string& named) {
  BinaryFact b{role, named.empty() ? "(none named)" : named, false, false};
  if (named.empty()) return b;
  std::string path = named.front() == '/' ? named : absolute_runtime(named, fs.root());
  b.path = path;
  struct stat st {};
  if (path.front() == '/' && ::stat(fs.resolve(path).c_str(), &st) == 0) {
    b.exists = true;
    b.executable = S_ISREG(st.st_mode) && (st.st_mode & 0111);
  }
  return b;
}

// What install-state.json beside our config says of one engine (as in host/install_state).
struct RecordedInstall {
  std::string config;        // the file install edited
  bool set_default = false;  // some install made gpu-numa the default
};

std::map<std::string, RecordedInstall> recorded_installs(const HostFs& fs, const std::optional<std::string>& config_path,
                                                         std::vector<std::string>* unknown_errors) {
  std::map<std::string, RecordedInstall> out;
  const std::string state = dir_of(config_path.value_or(kDefaultConfigPath)) + "/install-state.json";
  std::optional<std::string> text;
  try {
    text = config_path ? HostFs("/").read(state, 1024 * 1024) : fs.read(state, 1024 * 1024);
  } catch (const std::exception& e) {
    unknown_errors->push_back(e.what());
    return out;
  }
  if (!text) return out;
  auto j = nlohmann::json::parse(*text, nullptr, false);
  if (!j.is_object()) {
    unknown_errors->push_back(state + ": cannot parse");
    return out;
  }
  for (const auto& [engine, r] : j.items())
    if (r.is_object() && r.contains("config") && r["config"].is_string())
      out[engine] = {r["config"].get<std::string>(), r.value("set_default", false)};
  return out;
}

// The shim's own binaries, from our config: the hook it registers and the runtime it runs next.
void add_shim_chain(const HostFs& fs, const Config& config, EngineFact* e) {
  e->binaries.push_back(binary(fs, "hook (config [runtime] hook)", config.runtime.hook));
  BinaryFact next{"next runtime (config [runtime] next)", "", false, false};
  for (const std::string& n : config.runtime.next) {
    BinaryFact b = binary(fs, next.role, n);
    if (b.exists && b.executable) {
      next = b;
      break;
    }
    next.path += (next.path.empty() ? "" : ", ") + n;
  }
  if (next.path.empty()) next.path = "(none named)";
  e->binaries.push_back(next);
}

// One engine file: absent -> nothing; read and judged by `parse`.
template <typename Parse>
void add_engine(const HostFs& fs, std::vector<EngineFact>* out, const std::string& engine, const std::string& how,
                const std::string& file, Parse parse, const Config& config, bool shim) {
  EngineFact e{engine, how, file, false, false, "", {}};
  try {
    auto text = fs.read(file, 4 * 1024 * 1024);
    if (!text) return;
    auto r = parse(*text, fs.resolve(file));
    if (r) {
      e.registered = true;
      e.is_default = r->is_default;
      e.default_name = r->default_name;
      e.binaries.push_back(binary(fs, shim ? "shim" : "hook", r->binary));
      if (shim) add_shim_chain(fs, config, &e);
      if (engine == "nvidia-legacy") {
        e.never_runs = nvidia_mode_never_runs_hook(nvidia_runtime_mode(*text, fs.resolve(file)), file);
        if (!config.next_hook.empty())
          e.binaries.push_back(binary(fs, "chained hook (config [chain] next-hook)", config.next_hook));
      }
    }
  } catch (const std::exception& ex) {
    e.error = ex.what();
  }
  out->push_back(std::move(e));
}

// Files containerd reads after our drop-in can undo it (nvidia-ctk runtime configure run after
// install appends its conf.d glob to imports): a CRI table replaces ours whole on 1.x (the drop-in
// says which release install wrote it for), and a default_runtime_name takes the default on both.
void judge_files_after_dropin(const HostFs& fs, const std::string& ctd_main, const std::string& dropin, EngineFact* e) {
  const HostConfigReader files;
  try {
    const std::string root = fs.is_real_root() ? "" : fs.root();
    const std::vector<std::string> order = containerd_load_order(fs.resolve(ctd_main), files, root).files;
    const auto at = std::find(order.begin(), order.end(), fs.resolve(dropin));
    if (at == order.end()) return;
    const std::optional<std::string> ours = files.read(*at);
    const bool replaces_whole = ours && ours->find("(containerd 1.x)") != std::string::npos;
    const std::string fix = "put \"" + std::string(kContainerdDropin) + "\" last in imports of " + ctd_main +
                            ", then run gpu-numa-hook install --runtime containerd again";
    for (auto it = at + 1; it != order.end(); ++it) {
      const std::optional<std::string> text = files.read(*it);
      if (!text) continue;
      const LaterContainerdFile later = later_containerd_file(*text, *it);
      if (replaces_whole && later.defines_cri_table && e->never_runs.empty())
        e->never_runs = *it + " is read after " + dropin + " and holds a CRI plugin table: containerd 1.x replaces ours "
                        "with it, so containerd has no gpu-numa runtime (nvidia-ctk runtime configure run after install "
                        "does this; " + fix + ")";
      if (!later.default_name.empty()) {
        e->is_default = later.default_name == "gpu-numa";
        e->default_name = later.default_name;
        e->default_file = *it;
      }
    }
  } catch (const std::exception&) {
    // a file that is not TOML: containerd does not start; the engines' lines report our files
  }
}

// NVIDIA's runtime in the engine's files (each a path and a reader), when the shim's [runtime] next
// does not run it: NVIDIA's toolkit container or nvidia-ctk added it after install.
template <typename Read>
void judge_nvidia_chain(const std::vector<std::string>& files, Read read, const Config& config, EngineFact* e) {
  if (!e->registered) return;
  for (const std::string& f : files) {
    std::string binary;
    try {
      if (const std::optional<std::string> text = read(f)) binary = nvidia_runtime_binary(*text, f);
    } catch (const std::exception&) {
      continue;  // a file that does not parse is reported by the engine's own line
    }
    if (binary.empty()) continue;
    const std::string base = binary.substr(binary.rfind('/') + 1);
    for (const std::string& n : config.runtime.next)
      if (n == binary || (n.find('/') == std::string::npos && n == base)) return;
    e->nvidia_unchained = binary;
    e->nvidia_file = f;
    return;
  }
}

void read_engines(const HostFs& fs, const std::optional<std::string>& config_path, const Config& config, StatusFacts* f,
                  std::vector<std::string>* state_errors) {
  auto recorded = recorded_installs(fs, config_path, state_errors);
  auto rec = [&](const std::string& e, const std::string& dflt) { return recorded.count(e) ? recorded[e].config : dflt; };
  // what install made the default, on the engine's newest entry
  auto as_default = [&](const std::string& e) {
    if (!f->engines.empty() && f->engines.back().engine == e && recorded.count(e))
      f->engines.back().installed_as_default = recorded[e].set_default;
  };
  add_engine(fs, &f->engines, "docker", "runtime gpu-numa", rec("docker", "/etc/docker/daemon.json"), docker_registration,
             config, true);
  as_default("docker");
  // containerd: our drop-in (conf.d/99-zz-gpu-numa.toml beside the main file) or, for version 1
  // files, the main file itself.
  const std::string ctd_main = rec("containerd", "/etc/containerd/config.toml");
  const std::string ctd_dropin = dir_of(ctd_main) + "/" + kContainerdDropin;
  size_t before = f->engines.size();
  add_engine(fs, &f->engines, "containerd", "runtime gpu-numa", ctd_dropin, toml_runtime_registration, config, true);
  bool dropin_registers = f->engines.size() > before && f->engines.back().registered;
  if (!dropin_registers) {
    if (f->engines.size() > before) f->engines.pop_back();
    add_engine(fs, &f->engines, "containerd", "runtime gpu-numa", ctd_main, toml_runtime_registration, config, true);
  } else if (auto main = fs.read(ctd_main, 4 * 1024 * 1024)) {
    // the default may be set in the main file (or by a later import); the drop-in's word is kept otherwise
    try {
      if (auto m = toml_runtime_registration(*main, ctd_main); m && m->is_default) f->engines.back().is_default = true;
    } catch (const std::exception&) {
    }
  }
  if (dropin_registers) judge_files_after_dropin(fs, ctd_main, ctd_dropin, &f->engines.back());
  if (f->engines.size() > before && f->engines.back().engine == "containerd") {
    const HostConfigReader files;
    try {
      const std::string root = fs.is_real_root() ? "" : fs.root();
      judge_nvidia_chain(containerd_load_order(fs.resolve(ctd_main), files, root).files,
                         [&](const std::string& file) { return files.read(file); }, config, &f->engines.back());
    } catch (const std::exception&) {
      // a file that is not TOML: containerd does not start; the engine's line reports it
    }
  }
  as_default("containerd");
  const std::string crio_dir = rec("crio-runtime", "/etc/crio/crio.conf.d");
  if (auto names = fs.list_dir(crio_dir)) {
    for (const std::string& n : *names)
      if (n.size() > 5 && n.compare(n.size() - 5, 5, ".toml") == 0) {
        size_t k = f->engines.size();
        add_engine(fs, &f->engines, "crio-runtime", "runtime gpu-numa", crio_dir + "/" + n, toml_runtime_registration, config, true);
        if (f->engines.size() > k && !f->engines.back().registered && f->engines.back().error.empty()) f->engines.pop_back();
      }
    // crio.conf, then every file of crio.conf.d in name order, as CRI-O reads them
    std::vector<std::string> crio_files = {dir_of(crio_dir) + "/crio.conf"};
    std::vector<std::string> sorted = *names;
    std::sort(sorted.begin(), sorted.end());
    for (const std::string& n : sorted) crio_files.push_back(crio_dir + "/" + n);
    for (EngineFact& e : f->engines)
      if (e.engine == "crio-runtime")
        judge_nvidia_chain(crio_files, [&](const std::string& file) { return fs.read(file, 4 * 1024 * 1024); }, config, &e);
  }
  // the two standard hooks directories, and any other `install --runtime podman|crio` recorded
  std::vector<std::string> hook_dirs = {"/usr/share/containers/oci/hooks.d", "/etc/containers/oci/hooks.d"};
  for (const char* e : {"podman", "crio"})
    if (recorded.count(e) && std::find(hook_dirs.begin(), hook_dirs.end(), recorded[e].config) == hook_dirs.end())
      hook_dirs.push_back(recorded[e].config);
  for (const std::string& dir : hook_dirs)
    add_engine(fs, &f->engines, "podman/crio (hooks.d)", "hooks.d", dir + "/gpu-numa-hook.json", hooks_d_registration,
               config, false);
  add_engine(fs, &f->engines, "nvidia-legacy", "NVIDIA runtime hook (legacy mode)",
             rec("nvidia-legacy", "/etc/nvidia-container-runtime/config.toml"),
             nvidia_legacy_registration, config, false);
}

// containerd's NRI default validator, folded over containerd's files in its load order
// (install/containerd_load_order.h): the main file and every file it imports, wherever its
// `imports` point. A file that is not TOML (containerd would not start) leaves it not judged: the
// engines' part of status reports the main file and our drop-in.
void read_nri_validator(const HostFs& fs, const std::string& ctd_main, StatusFacts* f) {
  const HostConfigReader files;
  NriValidatorSettings v;
  try {
    const std::string root = fs.is_real_root() ? "" : fs.root();
    for (const std::string& file : containerd_load_order(fs.resolve(ctd_main), files, root).files)
      if (auto text = files.read(file)) read_containerd_nri_validator(*text, file, &v);
  } catch (const std::exception&) {
    return;
  }
  if (!v.enable) return;
  f->nri_validator_enabled = true;
  f->nri_validator_rejects_hooks = v.reject_oci_hook_adjustment;
  for (const std::string& p : v.required_plugins)
    if (p == "gpu-numa" || p == kNriPreregisteredName) f->nri_requires_us = true;
  f->nri_validator_file = v.file;
}

// The NRI plugin as check sees it: its state file and heartbeat.
void read_nri_plugin(const HostFs& fs, StatusFacts* f) {
  NriPluginCheck c = check_nri_plugin(fs, kNriStatePath);
  if (!c.applicable) return;
  f->nri_connected = c.connected;
  // The plugin injects the hook whenever it is registered now, counted as protecting or not.
  if (c.connected || c.connected_now) f->nri_runtime = c.runtime;
  const std::string to = "connected to " + (c.runtime.empty() ? std::string("the runtime") : c.runtime);
  f->nri = c.connected ? to : c.connected_now ? to + ", not counted as protecting (see below)" : "not connected";
  if (c.connects + c.drops > 0)
    f->nri += " (" + std::to_string(c.connects) + " registrations, " + std::to_string(c.drops) + " drops since it started)";
  if (c.problem) f->nri_problem = *c.problem;
  if (c.hook_problem) f->nri_hook_problem = *c.hook_problem;
  if (c.stuck) f->nri_calls_stuck = *c.stuck;
  f->nri_stuck_refuses_all = c.stuck_refuses_all;
}

// A file's last kLogTailBytes, read from its end; *from_start says whether that is the whole file.
std::string read_tail(const std::string& path, bool* from_start) {
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
  if (fd < 0) {
    if (errno == ENOENT) {
      *from_start = true;
      return "";
    }
    fail_errno("cannot open " + path, errno);
  }
  struct stat st {};
  std::string out;
  if (::fstat(fd, &st) == 0 && S_ISREG(st.st_mode)) {
    off_t start = st.st_size > static_cast<off_t>(kLogTailBytes) ? st.st_size - static_cast<off_t>(kLogTailBytes) : 0;
    *from_start = start == 0;
    out.resize(static_cast<size_t>(st.st_size - start));
    ssize_t n = ::pread(fd, out.data(), out.size(), start);
    int err = errno;
    ::close(fd);
    if (n < 0) fail_errno("cannot read " + path, err);
    out.resize(static_cast<size_t>(n));
    return out;
  }
  ::close(fd);
  fail("cannot read " + path + ": not a regular file");
}

void read_gpus_and_cgroups(const HostFs& fs, const Config& config, StatusFacts* f) {
  Inventory all;
  NodeSet memory, possible;
  std::string auto_online;
  try {
    all = read_inventory(fs, config.overrides, ReadErrors::record);
    f->mig_problem = add_cached_mig_instances(fs, config.nvml.cache_path(), all, &f->mig_unknown);
    memory = read_memory_nodes(fs);
    possible = read_possible_nodes(fs);
    auto_online = any_self_onlining_offline(all.gpus) ? read_auto_online_blocks(fs) : std::string();
    f->gpus_read = true;
  } catch (const std::exception& e) {
    f->gpus_error = e.what();
  }
  NodeSet root_mems = memory;
  try {
    CpusetLocation loc = locate_cpuset_hierarchy(fs);
    CpusetTree tree(fs, loc);
    root_mems = tree.root_mems();
    if (f->gpus_read) {
      Inventory numa = read_numa_inventory(fs, config.overrides, ReadErrors::record);
      add_cached_mig_instances(fs, config.nvml.cache_path(), numa);
      std::optional<NodeSet> cpus;
      if (auto text = fs.read("/sys/devices/system/node/has_cpu")) {
        std::string why;
        cpus = NodeSet::parse(*text, &why);
        if (!cpus) fail("cannot parse " + fs.resolve("/sys/devices/system/node/has_cpu") + ": " + why);
      }
      HostNodes nodes = host_nodes_from(numa, memory, cpus ? &*cpus : nullptr, possible, auto_online);
      CheckFindings found = find_problems_walking(tree, nodes);
      f->cgroups_walked = found.cgroups;
      for (const auto& s : found.stale) f->stale_cgroups.push_back(s.path);
      for (int n : found.root_missing.ids()) f->root_missing.push_back(std::to_string(n));
      f->cgroups_read = true;
    } else {
      f->cgroups_error = "not judged: the GPUs could not be read";
    }
  } catch (const std::exception& e) {
    f->cgroups_error = e.what();
  }
  if (!f->gpus_read) return;
  for (const Gpu& g : all.gpus)
    f->gpus.push_back({g.device_path(), g.bus_id, g.memory_node, classify_gpu_memory(g, {memory, root_mems, possible, auto_online})});
}

// What runs: every running container's real spec, judged for GPU containers without the hook.
// Its own reading of the hierarchy, so a failure here leaves the cgroups' part standing.
void read_running_containers(const HostFs& fs, StatusFacts* f) {
  try {
    CpusetLocation loc = locate_cpuset_hierarchy(fs);
    CpusetTree tree(fs, loc);
    RunningContainersScan s = scan_running_containers(fs, tree);
    f->containers.running = s.running;
    f->containers.scan = std::move(s.scan);
    f->containers.read = true;
  } catch (const std::exception& e) {
    f->containers.error = e.what();
  }
}

}  // namespace

std::string config_problem(const HostFs& fs, const std::optional<std::string>& explicit_path, Config* loaded,
                           std::vector<std::string>* warnings) {
  try {
    *loaded = load_config(fs, explicit_path);
    for (const auto& p : loaded->problems) warnings->push_back(describe(p));
    return "";
  } catch (const std::exception& e) {
    *loaded = Config{};
    return e.what();
  }
}

StatusFacts read_node_status(const HostFs& fs, const std::optional<std::string>& config_path, size_t refusals) {
  StatusFacts f;
  f.config_path = config_path.value_or(fs.resolve(kDefaultConfigPath));
  Config config;
  f.config_error = config_problem(fs, config_path, &config, &f.config_warnings);
  std::vector<std::string> state_errors;
  read_engines(fs, config_path, config, &f, &state_errors);
  for (const auto& e : state_errors) f.engines.push_back({"install-state.json", "", "install-state.json", false, false, e, {}});
  read_nri_plugin(fs, &f);
  read_nri_validator(fs, "/etc/containerd/config.toml", &f);
  read_gpus_and_cgroups(fs, config, &f);
  read_running_containers(fs, &f);
  f.log_path = config.log.file.empty() ? "" : fs.resolve(config.log.file);
  if (!f.log_path.empty()) {
    try {
      bool from_start = true;
      f.refusals = refusal_lines(read_tail(f.log_path, &from_start), from_start, refusals);
    } catch (const std::exception& e) {
      f.log_error = e.what();
    }
  }
  struct stat st {};
  f.timer_enabled = ::lstat(fs.resolve(std::string("/etc/systemd/system/timers.target.wants/") + kTimer).c_str(), &st) == 0;
  for (const char* dir : {"/etc/systemd/system/", "/usr/lib/systemd/system/", "/lib/systemd/system/"})
    if (::stat(fs.resolve(std::string(dir) + kTimer).c_str(), &st) == 0) f.timer_unit_installed = true;
  return f;
}

}  // namespace gnh
