// `gpu-numa-hook install --runtime docker|containerd|crio-runtime|podman|crio|nvidia-legacy`:
// registers the hook (or the runtime shim) in an engine's configuration, as `nvidia-ctk runtime
// configure` does. The edits are pure (install/engine_config.h for the engines, install/
// config_edit.h for the rest); here: read, back up, write atomically, or print the diff; our
// config's chain to NVIDIA's runtime, install-state.json; and the one line saying what to restart.
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "base/error.h"
#include "base/exit_code.h"
#include "cli/commands.h"
#include "config/config.h"
#include "host/fs/atomic_file.h"
#include "host/install/engine_files.h"
#include "host/fs/host_fs.h"
#include "host/install/install_state.h"
#include "install/boot_gate.h"
#include "install/config_edit.h"
#include "install/containerd_config.h"
#include "install/engine_config.h"
#include "install/nri_config.h"
#include "install/toml_text.h"
#include "report/json_schema.h"

namespace gnh {

namespace {

// install --json: what the run did, printed as one object at its end instead of the lines a
// person reads. One install per process, so one report.
struct InstallReport {
  bool json = false;
  nlohmann::json files = nlohmann::json::array();
  nlohmann::json notes = nlohmann::json::array();
};
InstallReport g_report;

// A file's outcome: the person's line, or an entry in the JSON report.
void said_file(const std::string& path, const char* action, const std::string& backup, const std::string& line,
               const std::string& diff = "") {
  if (!g_report.json) {
    std::fputs(line.c_str(), stdout);
    return;
  }
  nlohmann::json f = {{"path", path}, {"action", action}, {"backup", backup.empty() ? nlohmann::json(nullptr) : nlohmann::json(backup)}};
  if (!diff.empty()) f["diff"] = diff;
  g_report.files.push_back(f);
}

void said_note(const std::string& line) {
  if (g_report.json) g_report.notes.push_back(line);
  else std::printf("%s\n", line.c_str());
}

// The run's last words: dry run, nothing to do, or what to restart; or the JSON object.
int finish_install(const InstallCommandOptions& o, bool changed, const std::string& restart) {
  if (g_report.json) {
    nlohmann::json j = {{"schema_version", kJsonSchemaVersion}, {"runtime", o.runtime}, {"uninstall", o.uninstall},
                        {"dry_run", o.dry_run}, {"changed", changed}, {"files", g_report.files},
                        {"notes", g_report.notes},
                        {"restart", changed && !o.dry_run ? nlohmann::json(restart) : nlohmann::json(nullptr)}};
    std::printf("%s\n", j.dump(2, ' ', false, nlohmann::json::error_handler_t::replace).c_str());
    return as_int(ExitCode::ok);
  }
  if (o.dry_run) std::printf("dry run: nothing written\n");
  if (!changed) std::printf("nothing to do: %s\n", o.uninstall ? "not installed" : "already installed");
  else if (!o.dry_run) std::printf("%s\n", restart.c_str());
  return as_int(ExitCode::ok);
}

std::optional<std::string> read_optional(const std::string& path) {
  HostFs fs("/");
  return fs.read(path, 4 * 1024 * 1024);
}

void make_parent_dirs(const std::string& path) {
  for (size_t slash = path.find('/', 1); slash != std::string::npos; slash = path.find('/', slash + 1)) {
    std::string dir = path.substr(0, slash);
    if (::mkdir(dir.c_str(), 0755) != 0 && errno != EEXIST) fail_errno("cannot create " + dir, errno);
  }
}

// One file's change: printed as a diff (--dry-run) or made, with a backup of what was there.
// Returns whether anything changed (or would). `after` nullopt: the file is removed.
// `keep_backup`: an earlier install made the backup; it holds the operator's original and stays.
// `ours`: a file of ours, which needs no backup; `dropin`: its directory goes when left empty.
bool apply(const std::string& path, const std::optional<std::string>& before, const std::optional<std::string>& after,
           const InstallCommandOptions& o, bool keep_backup, bool ours = false, bool dropin = false) {
  const bool remove = !after;
  if ((remove && !before) || (!remove && before && *before == *after)) {
    said_file(path, "unchanged", "", "unchanged: " + path + (o.uninstall ? " (nothing of ours in it)" : "") + "\n");
    return false;
  }
  if (o.dry_run) {
    std::string d = unified_diff(before.value_or(""), after.value_or(""), before ? path : "/dev/null", remove ? "/dev/null" : path);
    said_file(path, remove ? "would_remove" : before ? "would_update" : "would_create", "", d, d);
    return true;
  }
  const std::string backup = path + ".gpu-numa-hook.bak";
  struct stat bst {};
  if (before && !ours && !(keep_backup && ::stat(backup.c_str(), &bst) == 0)) write_file_atomically(backup, *before, 0600);
  if (remove) {
    if (::unlink(path.c_str()) != 0) fail_errno("cannot remove " + path, errno);
    if (dropin) ::rmdir(path.substr(0, path.rfind('/')).c_str());  // fails, as it should, unless empty
    said_file(path, "removed", ours ? "" : backup, "removed: " + path + (ours ? "" : " (backup: " + backup + ")") + "\n");
    return true;
  }
  make_parent_dirs(path);
  struct stat st {};
  unsigned mode = ::stat(path.c_str(), &st) == 0 ? (st.st_mode & 07777) : 0644;
  write_file_atomically(path, *after, mode);
  said_file(path, before ? "updated" : "created", before && !ours ? backup : "",
            std::string(before ? "updated" : "created") + ": " + path +
                (before && !ours ? " (backup: " + backup + ")" : "") + "\n");
  return true;
}

std::string default_config_of(const std::string& runtime) {
  if (runtime == "docker") return "/etc/docker/daemon.json";
  if (runtime == "containerd") return "/etc/containerd/config.toml";
  if (runtime == "nvidia-legacy") return "/etc/nvidia-container-runtime/config.toml";
  if (runtime == "crio-runtime") return "/etc/crio/crio.conf.d";  // our drop-in goes here
  return "/usr/share/containers/oci/hooks.d";  // podman, crio: the hooks directory
}

// NVIDIA's hook as our [chain] next-hook must name it: an absolute path.
std::string absolute_nvidia_hook(const std::string& p) {
  return p.empty() || p.front() == '/' ? p : "/usr/bin/" + p;
}

// nvidia-legacy's uninstall undoes exactly what install did where it can tell: when the file is
// what install makes of its backup, the backup comes back byte for byte; when it is what install
// makes of nothing, the file goes, as it was absent. Otherwise the computed edit (which removes only
// our entries) stands. The engines (docker, containerd, crio-runtime) undo from install-state.json.
struct Undo {
  std::string after;
  bool remove = false;
};
template <typename Edit>
Undo exact_undo(const std::string& path, const std::optional<std::string>& before, std::string computed, Edit install_edit) {
  if (!before) return {std::move(computed), false};
  auto backup = read_optional(path + ".gpu-numa-hook.bak");
  if (backup && install_edit(*backup) == *before) return {*backup, false};
  if (install_edit("") == *before) return {"", true};
  return {std::move(computed), false};
}

// docker, containerd, crio-runtime: the engine's edit (install/engine_config.h), our config's
// [runtime] next chained to the NVIDIA runtime ours displaces, and install-state.json.
// The containerd release install writes for: --containerd-version, else the installed binary's.
ContainerdRelease containerd_release_of(const InstallCommandOptions& o) {
  if (!o.containerd_version) return installed_containerd();
  ContainerdRelease release = containerd_release_from(*o.containerd_version, "--containerd-version");
  if (release.major == 0) fail("--containerd-version '" + *o.containerd_version + "': give MAJOR.MINOR, e.g. 1.7 or 2.1");
  return release;
}

int install_engine(const GlobalOptions& g, const InstallCommandOptions& o) {
  const std::string& rt = o.runtime;
  const std::string file = o.runtime_config.value_or(default_config_of(rt));
  const std::string root = g.host_root.value_or("");
  InstallOptions io;
  io.runtime_path = o.runtime_path;
  io.hook_path = o.hook_path;
  io.set_default = o.set_default;
  io.uninstall = o.uninstall;
  HostConfigReader reader;
  std::unique_ptr<EngineConfig> engine;
  if (rt == "docker") {
    engine = docker_config(file, reader);
  } else if (rt == "containerd") {
    engine = containerd_config(file, reader, containerd_release_of(o), root);
  } else {
    engine = crio_config(file, reader);
  }
  const std::string ours = g.config_path.value_or(kDefaultConfigPath);
  InstallState state(ours);
  const std::optional<InstallRecord> earlier = state.get(rt);
  EngineEdit edit = o.uninstall ? engine->remove_runtime(io, earlier) : engine->add_runtime(io, earlier);
  std::vector<std::string> lines = edit.notes;  // printed once nothing can fail any more

  // Our config: chain to NVIDIA's runtime on install; the recorded next comes back on uninstall.
  auto our_before = read_optional(ours);
  std::string our_after = our_before.value_or("");
  if (o.uninstall) {
    if (earlier && earlier->previous_next) our_after = set_runtime_next(our_after, *earlier->previous_next);
    state.forget(rt);
  } else {
    if (!edit.runtimes.nvidia_binary.empty()) {
      const std::string nvidia = absolute_runtime(edit.runtimes.nvidia_binary, root.empty() ? "/" : root);
      if (!our_before)
        fail(ours + " does not exist: gpu-numa-runtime must run " + rt + "'s NVIDIA runtime (" + nvidia + ") next, "
             "through [runtime] next there, or pods lose their GPUs; nothing was changed. Install our config (the "
             "package's /etc/gpu-numa-hook/config.toml, or name it with --config) and run install again");
      if (!edit.record.previous_next) edit.record.previous_next = runtime_next(our_after, ours);
      our_after = set_runtime_next(our_after, {nvidia, "runc", "crun"});
      lines.push_back("chain: " + rt + "'s runtime '" + nvidia + "' is NVIDIA's: gpu-numa-runtime runs it next ([runtime] next in " +
                      ours + ")");
    }
    if (!edit.runtimes.base_runtime.empty())
      lines.push_back("base: the gpu-numa runtime is a copy of '" + edit.runtimes.base_runtime +
                      "' (its options, SystemdCgroup included)");
    state.put(rt, edit.record);
  }
  // The state is written before install touches a file (a failed write changes nothing) and
  // after uninstall has removed everything (a failed removal keeps the record).
  auto save_state = [&] {
    if (o.dry_run) return;
    const std::string text = state.text();
    if (text.empty()) {
      if (::unlink(state.path().c_str()) != 0 && errno != ENOENT) fail_errno("cannot remove " + state.path(), errno);
    } else if (text != state.before().value_or("")) {
      make_parent_dirs(state.path());
      write_file_atomically(state.path(), text, 0644);
    }
  };
  if (!o.uninstall) save_state();
  for (const std::string& l : lines) said_note(l);
  bool changed = false;
  for (const FileChange& c : edit.changes) changed = apply(c.path, c.before, c.after, o, earlier.has_value(), c.ours, c.dropin) || changed;
  if (our_before && our_after != *our_before) changed = apply(ours, our_before, our_after, o, true) || changed;
  if (o.uninstall) save_state();
  return finish_install(o, changed, engine->restart_hint());
}

// --boot-gate SERVICE: the `wait` drop-in for SERVICE's unit (install/boot_gate.h), beneath
// --host-root. Uninstall removes it only while it is still what install writes.
int install_boot_gate(const GlobalOptions& g, const InstallCommandOptions& o) {
  const std::string unit = boot_gate_unit(*o.boot_gate).value();
  const std::string path = boot_gate_path(g.host_root.value_or(""), unit);
  const auto before = read_optional(path);
  const std::string ours = boot_gate_dropin(unit, o.hook_path);
  std::optional<std::string> after = ours;
  if (o.uninstall) {
    if (before && *before != ours) {
      std::printf("left: %s is not what install writes (changed by hand?): remove it yourself if %s must not wait, "
                  "then: systemctl daemon-reload\n", path.c_str(), unit.c_str());
      return as_int(ExitCode::ok);
    }
    after = std::nullopt;
  }
  // A file install creates (or removes as its own) needs no backup; one it replaces keeps one.
  const bool changed = apply(path, before, after, o, false, !before || o.uninstall, true);
  if (o.dry_run) std::printf("dry run: nothing written\n");
  if (!changed) std::printf("nothing to do: %s\n", o.uninstall ? "not installed" : "already installed");
  else if (!o.dry_run)
    std::printf("run: systemctl daemon-reload (%s)\n",
                o.uninstall ? (unit + " no longer waits").c_str()
                            : (unit + " then waits at each start until the GPU memory is online, up to 300 s").c_str());
  return as_int(ExitCode::ok);
}

// --uninstall --all: each engine install-state.json records, undone from the file it records, as
// `install --uninstall --runtime E --runtime-config F` would. One engine failing leaves the others
// undone and its record kept; the exit says so.
int uninstall_all(const GlobalOptions& g, const InstallCommandOptions& o) {
  const InstallState state(g.config_path.value_or(kDefaultConfigPath));
  const std::vector<std::string> engines = state.engines();
  if (engines.empty()) {
    std::printf("nothing to do: no engine registration recorded (%s)\n", state.path().c_str());
    return as_int(ExitCode::ok);
  }
  int failed = 0;
  for (const std::string& e : engines) {
    InstallCommandOptions one = o;
    one.all = false;
    one.runtime = e;
    one.runtime_config = state.get(e)->config;
    std::printf("== %s (%s)\n", e.c_str(), one.runtime_config->c_str());
    std::fflush(stdout);
    try {
      install_engine(g, one);
    } catch (const std::exception& ex) {
      std::fflush(stdout);
      std::fprintf(stderr, "gpu-numa-hook: error: install --uninstall --all: %s: %s\n", e.c_str(), ex.what());
      ++failed;
    }
  }
  return as_int(failed ? ExitCode::error : ExitCode::ok);
}

// Two names for one file: the same inode where both exist, else the same absolute path.
bool same_file(const std::string& a, const std::string& b) {
  struct stat sa {}, sb {};
  if (::stat(a.c_str(), &sa) == 0 && ::stat(b.c_str(), &sb) == 0) return sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
  std::error_code ec1, ec2;
  auto ca = std::filesystem::weakly_canonical(std::filesystem::absolute(a), ec1);
  auto cb = std::filesystem::weakly_canonical(std::filesystem::absolute(b), ec2);
  return !ec1 && !ec2 && ca == cb;
}

// --config must name gpu-numa-hook's own file. nvidia-ctk's --config is the engine's file, and that
// habit would write our [runtime] into containerd's config: refused before anything is written,
// by path (the engine's file itself) and by content (TOML whose top level has only our tables).
// Problems the hook merely ignores (a typo in a key) do not stop install: registering the hook
// protects the node with every valid key honoured, where refusing would leave it unprotected;
// they are printed loudly instead.
void vet_our_config(const std::string& ours, const std::string& engine_file, const std::string& runtime) {
  const std::string hint = ": --config names gpu-numa-hook's own config (default " + std::string(kDefaultConfigPath) +
                           "); the engine's file is --runtime-config (nvidia-ctk calls it --config); nothing was written";
  if (same_file(ours, engine_file))
    fail("--config " + ours + " is " + runtime + "'s own file (--runtime-config)" + hint);
  auto text = read_optional(ours);
  if (!text) return;
  Config c;
  try {
    c = parse_config(*text, ours);
  } catch (const Error& e) {
    fail("--config " + ours + " is not a gpu-numa-hook config (" + e.what() + ")" + hint);
  }
  std::string foreign;
  for (const auto& p : c.problems)
    if (p.key.find_first_of(".[") == std::string::npos && p.what.rfind("unknown key", 0) == 0)
      foreign += (foreign.empty() ? "'" : ", '") + p.key + "'";
  if (!foreign.empty())
    fail("--config " + ours + " is not a gpu-numa-hook config: its top level has " + foreign +
         ", none of gpu-numa-hook's tables (policy, log, lock, chain, topology, check, runtime, nvml, systemd)" + hint);
  for (const auto& p : c.problems) std::fprintf(stderr, "gpu-numa-hook: install: warning: %s\n", describe(p).c_str());
  if (!c.problems.empty())
    std::fprintf(stderr, "gpu-numa-hook: install: warning: the hook ignores %zu key(s) of %s until they are fixed "
                         "(gpu-numa-hook config check lists them)\n", c.problems.size(), ours.c_str());
}

}  // namespace

// nri (containerd) and crio-nri: NRI turned on where it is off, nothing else of the runtime's
// changed; optionally the pre-registered plugin. The plugin itself runs as a DaemonSet or service.
int install_nri(const InstallCommandOptions& o) {
  bool changed = false;
  std::string restart = "nothing to restart";
  if (o.runtime == "nri") {
    const std::string main = o.runtime_config.value_or(default_config_of("containerd"));
    const std::string dropin = main.substr(0, main.rfind('/') + 1) + kContainerdNriDropin;
    const ContainerdRelease release = containerd_release_of(o);
    const std::string which = release.major ? "containerd " + std::to_string(release.major) + "." +
                                                  std::to_string(release.minor) + " (" + release.source + ")"
                                            : "containerd of unknown release (no `containerd --version`; taken as 1.x)";
    auto main_before = read_optional(main);
    auto dropin_before = read_optional(dropin);
    if (o.uninstall) {
      if (dropin_before) {
        changed = apply(dropin, dropin_before, std::nullopt, o, false, true, true);
        if (main_before) {
          std::string after = containerd_remove_import(*main_before, main, kContainerdNriDropin, true);
          changed = apply(main, main_before, after, o, true) || changed;
        }
        restart = "restart containerd once to apply: systemctl restart containerd (NRI goes back to " +
                  std::string(release.major >= 2 ? "on, containerd 2's default" : "off, containerd 1.x's default") + ")";
      }
    } else if (containerd_nri_enabled(main_before.value_or(""), main, release.major) && !dropin_before) {
      std::printf("unchanged: %s (NRI is on with %s: nothing of containerd's to change, no restart)\n", main.c_str(),
                  which.c_str());
    } else {
      changed = apply(dropin, dropin_before, containerd_nri_dropin(main_before.value_or(""), main), o, false, true);
      bool whole_line = false;
      bool imported = false;  // a re-run: the main file reads our drop-in already
      if (main_before) {
        const toml::table t = parse_toml_file(*main_before, main);
        if (const toml::array* a = t["imports"].as_array())
          for (const auto& e : *a) imported = imported || e.value<std::string>() == kContainerdNriDropin;
      }
      std::string main_after = !main_before ? "version = 2\nimports = [" + toml_quoted(kContainerdNriDropin) + "]\n"
                               : imported   ? *main_before
                                            : containerd_add_import(*main_before, main, kContainerdNriDropin, &whole_line);
      changed = apply(main, main_before, main_after, o, false) || changed;
      if (changed)
        restart = "restart containerd once to turn NRI on (" + which +
                " has it off): systemctl restart containerd; afterwards the plugin connects at any time, no further restart";
    }
  } else {
    const std::string dir = o.runtime_config.value_or(default_config_of("crio-runtime"));
    const std::string path = dir + "/" + kCrioNriDropin;
    auto before = read_optional(path);
    std::optional<std::string> after;
    if (!o.uninstall) after = crio_nri_dropin();
    else if (before && *before != crio_nri_dropin()) after = before;  // not ours any more: left alone
    changed = apply(path, before, after, o, false, true);
    restart = "restart CRI-O once to apply: systemctl restart crio (CRI-O 1.30 and later have NRI on already)";
  }
  if (o.nri_pre_registered) {
    const std::string path = o.nri_plugin_dir + "/" + kNriPreregisteredName;
    auto before = read_optional(path);
    std::optional<std::string> after;
    std::string socket;  // containerd's own NRI socket, for the plugin to dial if its connection drops
    if (o.runtime == "nri")
      if (auto main = read_optional(o.runtime_config.value_or(default_config_of("containerd")))) try {
          socket = containerd_nri_socket(*main, o.runtime_config.value_or(default_config_of("containerd")));
        } catch (const std::exception&) {
        }
    if (!o.uninstall) after = nri_preregistered_script(o.nri_plugin_path, o.hook_path, socket);
    bool plugin_changed = apply(path, before, after, o, false, true);
    if (plugin_changed && !o.dry_run && after && ::chmod(path.c_str(), 0755) != 0) fail_errno("cannot chmod " + path, errno);
    if (plugin_changed && restart == "nothing to restart")
      restart = "the runtime starts " + path + " at its next start (restart it once to start the plugin now)";
    changed = plugin_changed || changed;
  }
  if (o.dry_run) std::printf("dry run: nothing written\n");
  if (!changed) std::printf("nothing to do: %s\n", o.uninstall ? "not installed" : "already installed");
  else if (!o.dry_run) std::printf("%s\n", restart.c_str());
  std::printf("the plugin: run gpu-numa-nri (a DaemonSet: examples/kubernetes/nri-daemonset.yaml, or a service); "
              "`gpu-numa-hook check` reports it when it is not connected\n");
  return as_int(ExitCode::ok);
}

int run_install(const GlobalOptions& g, const InstallCommandOptions& given) {
  // The engine's file as an absolute path: install-state.json records it, and the package's
  // removal undoes it from / (--uninstall --all), not from the directory install ran in.
  InstallCommandOptions o = given;
  if (o.runtime_config && !o.runtime_config->empty() && o.runtime_config->front() != '/') {
    char cwd[4096];
    if (::getcwd(cwd, sizeof cwd)) o.runtime_config = std::string(cwd) + "/" + *o.runtime_config;
  }
  const std::string& rt = o.runtime;
  const std::string file = o.runtime_config.value_or(default_config_of(rt));
  g_report.json = o.json;
  InstallOptions io;
  io.runtime_path = o.runtime_path;
  io.hook_path = o.hook_path;
  io.set_default = o.set_default;
  io.uninstall = o.uninstall;
  if (o.all && !o.uninstall) {
    std::fprintf(stderr, "gpu-numa-hook: error: install: --all goes with --uninstall (install names one --runtime at a time)\n");
    return as_int(ExitCode::error);
  }
  if (rt.empty() && !o.all && !o.boot_gate) {
    std::fprintf(stderr, "gpu-numa-hook: error: install: give --runtime ENGINE, --boot-gate SERVICE or --uninstall --all\n");
    return as_int(ExitCode::error);
  }
  if (o.set_default && rt != "docker" && rt != "containerd" && rt != "crio-runtime") {
    std::fprintf(stderr, "gpu-numa-hook: error: install: --set-default applies to docker, containerd and crio-runtime only\n");
    return as_int(ExitCode::error);
  }
  try {
    if (o.boot_gate) return install_boot_gate(g, o);
    if (o.all) return uninstall_all(g, o);
    vet_our_config(g.config_path.value_or(kDefaultConfigPath), file, rt);
    if (rt == "docker" || rt == "containerd" || rt == "crio-runtime") return install_engine(g, o);
    if (rt == "nri" || rt == "crio-nri") return install_nri(o);
    bool changed = false;
    std::string restart;
    if (rt == "podman" || rt == "crio") {
      const std::string path = file + "/gpu-numa-hook.json";
      auto before = read_optional(path);
      std::string after = hooks_d_file_text(io);
      // Uninstall removes the file only when it is still the one we install.
      if (o.uninstall && before && *before != hooks_d_file_text(InstallOptions{io.runtime_path, io.hook_path}))
        after = *before;
      changed = apply(path, before, after.empty() ? std::nullopt : std::optional<std::string>(after), o, false);
      restart = rt == "podman" ? "nothing to restart: podman reads hooks.d on every run (check that "
                                 "containers.conf hooks_dir names " + file + ")"
                               : "restart CRI-O to apply: systemctl restart crio (crio.conf hooks_dir must name " + file + ")";
    } else if (rt == "nvidia-legacy") {
      const std::string ours = g.config_path.value_or(kDefaultConfigPath);
      auto nv_before = read_optional(file);
      auto our_before = read_optional(ours);
      std::string previous;
      const std::string restore = chain_next_hook(our_before.value_or(""), ours);
      std::string nv_after = edit_nvidia_runtime_config(nv_before.value_or(""), file, io, &previous, restore);
      std::string our_after = our_before.value_or("");
      if (o.uninstall) {
        if (previous == io.hook_path) our_after = set_chain_next_hook(our_after, "");
      } else if (previous != io.hook_path) {
        our_after = set_chain_next_hook(our_after, absolute_nvidia_hook(previous));
      }
      changed = apply(ours, our_before, our_after, o, false);
      Undo u{nv_after, false};
      if (o.uninstall)
        u = exact_undo(file, nv_before, nv_after, [&](const std::string& t) {
          InstallOptions i = io;
          i.uninstall = false;
          return edit_nvidia_runtime_config(t, file, i, nullptr, "");
        });
      changed = apply(file, nv_before, u.remove ? std::nullopt : std::optional<std::string>(u.after), o,
                      nv_before && previous == io.hook_path) || changed;
      restart = "nothing to restart: nvidia-container-runtime reads its config on each start (its mode must be "
                "\"legacy\" for the hook to run)";
    } else {
      std::fprintf(stderr, "gpu-numa-hook: error: install: --runtime must be docker, containerd, podman, crio, crio-runtime or nvidia-legacy\n");
      return as_int(ExitCode::error);
    }
    return finish_install(o, changed, restart);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "gpu-numa-hook: error: install: %s\n", e.what());
    return as_int(ExitCode::error);
  }
}

}  // namespace gnh
