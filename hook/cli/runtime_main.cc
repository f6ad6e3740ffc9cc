// gpu-numa-runtime: an OCI runtime shim, the pattern of nvidia-container-runtime and
// oci-add-hooks, for engines that have no hooks directory (Docker, containerd, Kubernetes through
// a RuntimeClass). It takes runc's command line unchanged and:
//   create / run : adds `gpu-numa-hook prestart` to the bundle's config.json, then execs the runtime;
//                  a container that cannot get a GPU, before runc or crun, is passed on untouched;
//   update       : keeps the container's GPU memory nodes in a new cpuset.mems, then execs it;
//   anything else: execs the runtime at once.
// The runtime is the first of [runtime] next that exists (never this program); run back by it (a
// runtime whose own low-level runtime is this shim), it passes on to an entry after it. On any failure
// nothing is changed and the start stops with one line on stderr, in our log and in runc's --log.
#include <sys/mman.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "base/error.h"
#include "base/exit_code.h"
#include "host/runtime/bundle_registration.h"
#include "host/config/config_loader.h"
#include "host/log/event_log.h"
#include "host/fs/host_fs.h"
#include "host/runtime/next_runtime.h"
#include "host/runtime/runtime_update.h"
#include "host/fs/deadline.h"
#include "host/oci/stdin_reader.h"
#include "report/log_record.h"
#include "runtime/runc_command_line.h"
#include "runtime/runc_log_entry.h"
#include "runtime/update_mems.h"

namespace {

using namespace gnh;

void append_to(const std::string& path, const std::string& line) {
  FILE* f = std::fopen(path.c_str(), "ae");
  if (!f) return;
  std::fputs(line.c_str(), f);
  std::fclose(f);
}

// One reason, three places: the caller's stderr, our log, and runc's --log file (what containerd
// reports for a failed create).
void report_error(const Config* cfg, const RuncCommandLine& cmd, const std::string& msg) {
  std::fprintf(stderr, "gpu-numa-runtime: error: %s\n", msg.c_str());
  if (cmd.log) append_to(*cmd.log, runc_log_error_line(cmd.log_format.value_or("text"), "gpu-numa-runtime: " + msg, utc_timestamp_now()));
  LogConfig log_cfg = cfg ? cfg->log : LogConfig{};
  EventLog log(log_cfg, HostFs("/"));
  LogRecord r;
  r.program = "gpu-numa-runtime";
  r.level = "error";
  r.container = cmd.container_id.value_or("-");
  r.stage = "runtime-" + (cmd.subcommand.empty() ? std::string("-") : cmd.subcommand);
  r.action = "refuse";
  r.msg = "gpu-numa-runtime: " + msg;
  log.write(r);
}

// Replaces stdin with `text` (a memfd): runc reads `--resources -` from stdin, which we consumed.
void stdin_from(const std::string& text) {
  int fd = ::memfd_create("gpu-numa-runtime-resources", 0);
  if (fd < 0) fail_errno("cannot create a memfd for the update's resources", errno);
  size_t done = 0;
  while (done < text.size()) {
    ssize_t n = ::write(fd, text.data() + done, text.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) fail_errno("cannot write the update's resources", errno);
    done += static_cast<size_t>(n);
  }
  if (::lseek(fd, 0, SEEK_SET) != 0 || ::dup2(fd, 0) != 0) fail_errno("cannot hand the update's resources to the runtime", errno);
  ::close(fd);
}

// One log line for an update, in the hook's log and format.
void log_update(const Config& cfg, const std::string& container, LogRecord r) {
  r.program = "gpu-numa-runtime";
  r.container = container;
  r.stage = "runtime-update";
  EventLog(cfg.log, HostFs("/")).write(r);
}

// `runc update`: widen the new mems to keep the GPU nodes the container has now; say so in the log.
void keep_gpu_nodes_on_update(const Config& cfg, const RuncCommandLine& cmd, std::vector<std::string>& argv) {
  if (!cmd.container_id || (!cmd.resources && !cmd.cpuset_mems)) return;
  std::string resources_text;
  if (cmd.resources == "-") resources_text = read_all_stdin(kMaxStateBytes, Deadline(std::chrono::milliseconds(cfg.deadline_ms)));
  const std::string runc_root = cmd.root.value_or(kRuncDefaultRoot);
  if (!runc_knows_container(runc_root, *cmd.container_id)) {
    // Nothing of ours is at stake: runc itself answers an update for a container it does not know.
    LogRecord r;
    r.action = "allow";
    r.msg = "update for a container runc does not know (no " + runc_root + "/" + *cmd.container_id +
            "/state.json): nothing to keep, passed on unchanged";
    log_update(cfg, *cmd.container_id, r);
    if (cmd.resources == "-") stdin_from(resources_text);
    return;
  }
  try {
    RunningContainer c = read_running_container(runc_root, *cmd.container_id, cfg);
    std::optional<MemsUpdate> done;
    if (cmd.resources == "-") {
      ResourcesUpdate r = widen_resources_json(resources_text, c.current_mems, c.gpu_nodes);
      resources_text = r.text;
      done = r.update;
    }
    if (cmd.cpuset_mems) {
      // runc applies --cpuset-mems over the resources file's value: widen it as well.
      MemsUpdate u = widen_mems_value(*cmd.cpuset_mems, c.current_mems, c.gpu_nodes);
      argv[cmd.cpuset_mems_index] = cmd.cpuset_mems_inline ? "--cpuset-mems=" + u.widened : u.widened;
      if (!done || !u.kept.empty()) done = u;
    }
    if (done && !done->kept.empty()) {
      LogRecord r;
      r.level = "warn";
      r.action = "patch";
      r.gpus = c.gpus;
      r.required = c.gpu_nodes.to_display();
      r.mems_before = c.current_mems.to_display();
      r.mems_after = done->widened;
      r.cgroup = c.cpuset_dir;
      r.msg = "update asked for cpuset.mems " + done->requested + ", which drops GPU memory node(s) " +
              done->kept.to_display() + " the container has now; passing " + done->widened + " instead";
      log_update(cfg, *cmd.container_id, r);
    }
  } catch (const Error& e) {
    // The update is kubelet's, not ours: on-error=allow passes it on unchanged and logs why.
    if (cfg.policy.on_error == OnErrorPolicy::refuse) throw;
    LogRecord r;
    r.level = "error";
    r.action = "allow";
    r.msg = std::string("hook error: cannot check the update, passing it on unchanged: ") + e.what();
    log_update(cfg, *cmd.container_id, r);
  }
  if (cmd.resources == "-") stdin_from(resources_text);
}

// The decision the hook would have logged for this container, logged by us instead: its start
// skipped the hook's exec, not its line.
void log_not_needed(const Config& cfg, const RuncCommandLine& cmd, const ContainerNames& names, const std::string& next) {
  LogRecord r;
  r.program = "gpu-numa-runtime";
  r.container = cmd.container_id.value_or("-");
  r.names = names;
  r.stage = "runtime-" + cmd.subcommand;
  r.action = "allow";
  r.msg = "no GPU requested (fast path): " + next + " adds none, so the hook is not registered and config.json is unchanged";
  EventLog(cfg.log, HostFs("/")).write(r);
}

// A create that came back through the runtime we ran (NVIDIA's, whose own runtime is this shim): one
// line, so that the chain a container took can be read in the log.
void log_reentered(const Config& cfg, const RuncCommandLine& cmd, const std::string& by, const std::string& next) {
  LogRecord r;
  r.program = "gpu-numa-runtime";
  r.container = cmd.container_id.value_or("-");
  r.stage = "runtime-" + cmd.subcommand;
  r.action = "allow";
  r.msg = "run back by " + by + ", whose own runtime is gpu-numa-runtime: the hook was registered before it ran; passed on to " + next;
  EventLog(cfg.log, HostFs("/")).write(r);
}

constexpr const char* kShimHelp =
    "gpu-numa-runtime: the OCI runtime shim of gpu-numa-hook, for engines without a hooks directory\n"
    "(Docker, containerd, Kubernetes through a RuntimeClass). It takes runc's command line unchanged:\n"
    "on create and run it adds `gpu-numa-hook prestart` to the bundle's config.json (a container that\n"
    "cannot get a GPU goes to runc or crun untouched), on update it keeps the container's GPU memory\n"
    "nodes in a new cpuset.mems, then it execs the next runtime, the first of [runtime] next in\n"
    "/etc/gpu-numa-hook/config.toml that exists (runc, crun). See\n"
    "gpu-numa-runtime(1) and gpu-numa-hook.toml(5). The next runtime's help follows.\n\n";

int run(std::vector<std::string> argv) {
  RuncCommandLine cmd;
  Config cfg;
  const Config* loaded = nullptr;
  try {
    cfg = load_config(HostFs("/"), std::nullopt);
    loaded = &cfg;
    cmd = parse_runc_command_line(argv);
    // Run back by the runtime we ran (chained_index): that pass did the work; pass straight on.
    const std::optional<size_t> reentered = chained_index(std::getenv(kChainedEnv));
    const NextRuntime next_runtime = find_next_runtime(cfg.runtime.next, reentered ? *reentered + 1 : 0, reentered);
    const std::string& next = next_runtime.path;
    if (!reentered && (cmd.subcommand == "create" || cmd.subcommand == "run")) {
      std::string bundle = cmd.bundle.value_or("");
      if (bundle.empty()) {
        char cwd[4096];
        if (!::getcwd(cwd, sizeof cwd)) fail_errno("cannot read the working directory (the default bundle)", errno);
        bundle = cwd;
      }
      const BundleRegistration r = register_hook_in_bundle(bundle, cfg.runtime.hook, next, cfg.next_hook);
      if (r.outcome == BundleRegistration::not_needed) log_not_needed(cfg, cmd, r.names, next);
    } else if (!reentered && cmd.subcommand == "update") {
      keep_gpu_nodes_on_update(cfg, cmd, argv);
    } else if (reentered && (cmd.subcommand == "create" || cmd.subcommand == "run")) {
      log_reentered(cfg, cmd, cfg.runtime.next[*reentered], next);
    }
    exec_runtime(next_runtime, argv);
  } catch (const std::exception& e) {
    report_error(loaded, cmd, e.what());
  }
  return as_int(ExitCode::error);
}

}  // namespace

int main(int argc, char** argv) {
  // `runc --version` (docker info asks): our line first, then the next runtime's own, as
  // nvidia-container-runtime does.
  if (argc == 2 && (std::string(argv[1]) == "--version" || std::string(argv[1]) == "-v")) {
    std::printf("gpu-numa-runtime version %s\nrevision: %s\n\n", GNH_VERSION, GNH_REVISION);
    std::fflush(stdout);
  }
  // `--help`: what this program is, then the next runtime's own help (its options are ours).
  if (argc == 2 && (std::string(argv[1]) == "--help" || std::string(argv[1]) == "-h")) {
    std::fputs(kShimHelp, stdout);
    std::fflush(stdout);
  }
  return run(std::vector<std::string>(argv, argv + argc));
}
