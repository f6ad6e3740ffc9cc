// `gpu-numa-hook install --runtime docker|containerd|crio-runtime|podman|crio|nvidia-legacy`:
// registers the hook (or the runtime shim) in an engine's configuration, as `nvidia-ctk runtime
// configure` does. The edits are pure (install/engine_config.h for the engines, install/
// config_edit.h for the rest); here: read, back up, write atomically, or print the diff; our
// config's chain to NVIDIA's runtime, install-state.json (every file of ours recorded, so
// --uninstall --all and the package's removal leave none); and the one line saying what to restart.
// Under --host-root DIR every path install reads or writes is the host's path beneath DIR.
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <string_view>
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

// --host-root DIR: the host's paths (defaults, --runtime-config, --nri-plugin-dir, what
// install-state.json records) are DIR's on this machine. install-state.json keeps host paths, so
// the same state undoes from / on the host and from DIR here.
struct HostRoot {
  std::string dir;  // "" = this machine's /
  std::string machine(const std::string& host) const { return dir + host; }
  std::string host(const std::string& machine) const {
    return !dir.empty() && machine.compare(0, dir.size() + 1, dir + "/") == 0 ? machine.substr(dir.size()) : machine;
  }
};
HostRoot g_root;  // one install per process

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

// The directories this run created (this machine's paths), recorded so uninstall removes them.
std::vector<std::string> g_made_dirs;

void make_parent_dirs(const std::string& path) {
  for (size_t slash = path.find('/', 1); slash != std::string::npos; slash = path.find('/', slash + 1)) {
    std::string dir = path.substr(0, slash);
    if (::mkdir(dir.c_str(), 0755) == 0) g_made_dirs.push_back(dir);
    else if (errno != EEXIST) fail_errno("cannot create " + dir, errno);
  }
}

// A digest of a file's text (FNV-1a, 64 bits): enough to tell whether anyone changed what install
// wrote; nothing here is adversarial (the operator owns both the file and the state).
std::string digest(std::string_view text) {
  uint64_t h = 14695981039346656037ull;
  for (unsigned char c : text) h = (h ^ c) * 1099511628211ull;
  char out[17];
  std::snprintf(out, sizeof out, "%016llx", static_cast<unsigned long long>(h));
  return out;
}

// The engine files this run wrote (this machine's path -> digest), for the record; and, on
// uninstall, what the record says install wrote, so an untouched file gets its backup back.
std::map<std::string, std::string> g_wrote;
std::map<std::string, std::string> g_exact;

// Uninstall: install's backup of `path` goes once the file holds exactly what the backup does
// (install undone, nothing of the operator's lost); a backup that differs stays, it is theirs.
bool drop_spent_backup(const std::string& path, const std::string& now) {
  const std::string backup = path + ".gpu-numa-hook.bak";
  auto b = read_optional(backup);
  if (!b || *b != now) return false;
  if (::unlink(backup.c_str()) != 0 && errno != ENOENT) fail_errno("cannot remove " + backup, errno);
  return true;
}

// One file's change: printed as a diff (--dry-run) or made, with a backup of what was there.
// Returns whether anything changed (or would). `after` nullopt: the file is removed.
// `keep_backup`: an earlier install made the backup; it holds the operator's original and stays.
// `ours`: a file of ours, which needs no backup; `dropin`: its directory goes when left empty.
bool apply(const std::string& path, const std::optional<std::string>& before, const std::optional<std::string>& computed,
           const InstallCommandOptions& o, bool keep_backup, bool ours = false, bool dropin = false) {
  std::optional<std::string> after = computed;
  // Uninstall of a file still exactly as install left it: its backup, byte for byte, rather than
  // the computed edit (which re-emits the engine's format).
  if (o.uninstall && !ours && before && after) {
    auto it = g_exact.find(path);
    if (it != g_exact.end() && it->second == digest(*before))
      if (auto backup = read_optional(path + ".gpu-numa-hook.bak")) after = *backup;
  }
  const bool remove = !after;
  if ((remove && !before) || (!remove && before && *before == *after)) {
    said_file(path, "unchanged", "", "unchanged: " + path + (o.uninstall ? " (nothing of ours in it)" : "") + "\n");
    if (o.uninstall && !o.dry_run && after) drop_spent_backup(path, *after);
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
  if (!o.uninstall && !ours) g_wrote[path] = digest(*after);
  if (o.uninstall && drop_spent_backup(path, *after)) {
    said_file(path, "restored", "", "restored: " + path + " (as before install; its backup removed)\n");
    return true;
  }
  said_file(path, before ? "updated" : "created", before && !ours ? backup : "",
            std::string(before ? "updated" : "created") + ": " + path +
                (before && !ours ? " (backup: " + backup + ")" : "") + "\n");
  return true;
}

// The host's default path of each engine's file; engine_file() is where it is on this machine.
std::string default_config_of(const std::string& runtime) {
  if (runtime == "docker") return "/etc/docker/daemon.json";
  if (runtime == "containerd") return "/etc/containerd/config.toml";
  if (runtime == "nvidia-legacy") return "/etc/nvidia-container-runtime/config.toml";
  if (runtime == "crio-runtime") return "/etc/crio/crio.conf.d";  // our drop-in goes here
  return "/usr/share/containers/oci/hooks.d";  // podman, crio: the hooks directory
}

std::string engine_file(const InstallCommandOptions& o, const std::string& runtime) {
  return g_root.machine(o.runtime_config.value_or(default_config_of(runtime)));
}

// Our config: --config as given (as every subcommand takes it), else the default beneath DIR.
std::string our_config(const GlobalOptions& g) { return g.config_path.value_or(g_root.machine(kDefaultConfigPath)); }

// install-state.json: written before install touches a file (a failed write changes nothing) and
// after uninstall has removed everything (a failed removal keeps the record).
void save_state(const InstallState& state, const InstallCommandOptions& o) {
  if (o.dry_run) return;
  const std::string text = state.text();
  if (text.empty()) {
    if (state.before() && ::unlink(state.path().c_str()) != 0 && errno != ENOENT)
      fail_errno("cannot remove " + state.path(), errno);
  } else if (text != state.before().value_or("")) {
    make_parent_dirs(state.path());
    write_file_atomically(state.path(), text, 0644);
  }
}

// The directories this run made, added to the record (the host's paths); whether any were.
bool note_made_dirs(InstallRecord& r) {
  const bool any = !g_made_dirs.empty();
  for (const std::string& d : g_made_dirs)
    if (std::find(r.made_dirs.begin(), r.made_dirs.end(), g_root.host(d)) == r.made_dirs.end()) r.made_dirs.push_back(g_root.host(d));
  g_made_dirs.clear();
  return any;
}

// Uninstall, its files gone: the directories install made, deepest first, each only if empty.
void remove_made_dirs(const std::optional<InstallRecord>& r, const InstallCommandOptions& o) {
  if (!r || o.dry_run) return;
  std::vector<std::string> dirs = r->made_dirs;
  std::sort(dirs.begin(), dirs.end(), [](const std::string& a, const std::string& b) { return a.size() > b.size(); });
  for (const std::string& d : dirs) ::rmdir(g_root.machine(d).c_str());  // fails, as it should, unless empty
}

// A registration that is not an engine's runtime (hooks.d, nvidia-legacy, nri, a boot gate):
// recorded under `key` before install writes, forgotten once uninstall has removed it.
struct Recorded {
  InstallState state;
  std::string key;
  std::optional<InstallRecord> earlier;
  InstallRecord current;
  Recorded(const GlobalOptions& g, std::string k) : state(our_config(g)), key(std::move(k)), earlier(state.get(key)) {}
  void before_writing(const InstallCommandOptions& o, InstallRecord r) {
    if (o.uninstall) return;
    if (earlier) r.made_dirs = earlier->made_dirs;
    current = r;
    state.put(key, r);
    save_state(state, o);
  }
  void after_writing(const InstallCommandOptions& o) {
    if (o.uninstall) {
      state.forget(key);
      save_state(state, o);
      remove_made_dirs(earlier, o);
    } else if (state.get(key) && note_made_dirs(current)) {
      state.put(key, current);
      save_state(state, o);
    }
  }
};

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
// Under --host-root the containerd that reads DIR's files cannot be asked (`containerd --version`
// runs this machine's): the release is unknown there, and --runtime containerd takes the 1.x
// strategy (the whole CRI table in our drop-in, safe on 2.x too: what the shim DaemonSet relies on);
// --runtime nri, whose edit differs by release, needs --containerd-version; uninstall goes by the files.
ContainerdRelease containerd_release_of(const InstallCommandOptions& o) {
  if (!o.containerd_version && !g_root.dir.empty()) {
    if (o.uninstall || o.runtime == "containerd") return {};
    fail("--host-root " + g_root.dir + " needs --containerd-version MAJOR.MINOR (e.g. 1.7 or 2.1): `containerd "
         "--version` would ask this machine's containerd, not the one that reads that tree's files; nothing was written");
  }
  if (!o.containerd_version) return installed_containerd();
  ContainerdRelease release = containerd_release_from(*o.containerd_version, "--containerd-version");
  if (release.major == 0) fail("--containerd-version '" + *o.containerd_version + "': give MAJOR.MINOR, e.g. 1.7 or 2.1");
  return release;
}

int install_engine(const GlobalOptions& g, const InstallCommandOptions& o) {
  const std::string& rt = o.runtime;
  const std::string file = engine_file(o, rt);
  const std::string root = g_root.dir;
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
  const std::string ours = our_config(g);
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
    InstallRecord r = edit.record;
    r.config = g_root.host(r.config);
    if (!r.dropin.empty()) r.dropin = g_root.host(r.dropin);
    if (earlier) r.made_dirs = earlier->made_dirs;
    state.put(rt, r);
  }
  if (!o.uninstall) save_state(state, o);
  for (const std::string& l : lines) said_note(l);
  bool changed = false;
  if (o.uninstall && earlier)
    for (const auto& [host_path, d] : earlier->wrote) g_exact[g_root.machine(host_path)] = d;
  for (const FileChange& c : edit.changes) changed = apply(c.path, c.before, c.after, o, earlier.has_value(), c.ours, c.dropin) || changed;
  g_exact.clear();
  std::map<std::string, std::string> engine_wrote;
  engine_wrote.swap(g_wrote);  // the engine's files only: our config is undone from its record
  if (our_before && our_after != *our_before) changed = apply(ours, our_before, our_after, o, true) || changed;
  else if (o.uninstall && our_before && !o.dry_run) drop_spent_backup(ours, *our_before);
  if (o.uninstall) {
    save_state(state, o);
    remove_made_dirs(earlier, o);
  } else if (!o.dry_run) {
    InstallRecord r = *state.get(rt);
    bool more = note_made_dirs(r);
    for (const auto& [path, d] : engine_wrote) {
      more = more || r.wrote[g_root.host(path)] != d;
      r.wrote[g_root.host(path)] = d;
    }
    g_wrote.clear();
    if (more) {
      state.put(rt, r);
      save_state(state, o);
    }
  }
  return finish_install(o, changed, engine->restart_hint());
}

// --boot-gate SERVICE: the `wait` drop-in for SERVICE's unit (install/boot_gate.h), beneath
// --host-root. Uninstall removes it only while it is still what install writes.
int install_boot_gate(const GlobalOptions& g, const InstallCommandOptions& o) {
  const std::string unit = boot_gate_unit(*o.boot_gate).value();
  const std::string path = boot_gate_path(g_root.dir, unit);
  const auto before = read_optional(path);
  Recorded rec(g, "boot-gate:" + *o.boot_gate);
  const std::string ours = boot_gate_dropin(unit, o.hook_path);
  std::optional<std::string> after = ours;
  if (o.uninstall) {
    if (before && *before != ours) {
      std::printf("left: %s is not what install writes (changed by hand?): remove it yourself if %s must not wait, "
                  "then: systemctl daemon-reload\n", path.c_str(), unit.c_str());
      rec.after_writing(o);
      return as_int(ExitCode::ok);
    }
    after = std::nullopt;
  }
  InstallRecord r;
  r.config = g_root.host(path);
  if (!o.dry_run) rec.before_writing(o, r);
  // A file install creates (or removes as its own) needs no backup; one it replaces keeps one.
  const bool changed = apply(path, before, after, o, false, !before || o.uninstall, true);
  if (!o.dry_run) rec.after_writing(o);
  if (o.dry_run) std::printf("dry run: nothing written\n");
  if (!changed) std::printf("nothing to do: %s\n", o.uninstall ? "not installed" : "already installed");
  else if (!o.dry_run)
    std::printf("run: systemctl daemon-reload (%s)\n",
                o.uninstall ? (unit + " no longer waits").c_str()
                            : (unit + " then waits at each start until the GPU memory is online, up to 300 s").c_str());
  return as_int(ExitCode::ok);
}

// hooks.d (podman, crio): our oci-hooks(5) file in the hooks directory. Uninstall removes it only
// while it is still the one install writes.
int install_hooks_d(const GlobalOptions& g, const InstallCommandOptions& o, const InstallOptions& io) {
  const std::string dir = engine_file(o, o.runtime);
  const std::string path = dir + "/gpu-numa-hook.json";
  Recorded rec(g, o.runtime);
  auto before = read_optional(path);
  std::string after = hooks_d_file_text(io);
  if (o.uninstall && before && *before != hooks_d_file_text(InstallOptions{io.runtime_path, io.hook_path}))
    after = *before;
  InstallRecord r;
  r.config = g_root.host(dir);
  rec.before_writing(o, r);
  const bool changed = apply(path, before, after.empty() ? std::nullopt : std::optional<std::string>(after), o, false,
                             !before || o.uninstall);
  rec.after_writing(o);
  const std::string host_dir = g_root.host(dir);
  return finish_install(o, changed,
                        o.runtime == "podman" ? "nothing to restart: podman reads hooks.d on every run (check that "
                                                "containers.conf hooks_dir names " + host_dir + ")"
                                              : "restart CRI-O to apply: systemctl restart crio (crio.conf hooks_dir must name " +
                                                    host_dir + ")");
}

// nvidia-legacy: NVIDIA's hook path set to ours, our [chain] next-hook to NVIDIA's.
int install_nvidia_legacy(const GlobalOptions& g, const InstallCommandOptions& o, const InstallOptions& io) {
  const std::string file = engine_file(o, o.runtime);
  const std::string ours = our_config(g);
  Recorded rec(g, o.runtime);
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
  InstallRecord r;
  r.config = g_root.host(file);
  r.created_config = rec.earlier ? rec.earlier->created_config : !nv_before;
  rec.before_writing(o, r);
  // our config's backup is the first install's (the operator's original), kept until it matches again
  bool changed = apply(ours, our_before, our_after, o, true);
  Undo u{nv_after, false};
  if (o.uninstall)
    u = exact_undo(file, nv_before, nv_after, [&](const std::string& t) {
      InstallOptions i = io;
      i.uninstall = false;
      return edit_nvidia_runtime_config(t, file, i, nullptr, "");
    });
  changed = apply(file, nv_before, u.remove ? std::nullopt : std::optional<std::string>(u.after), o,
                  nv_before && previous == io.hook_path, u.remove) || changed;
  if (o.uninstall && u.remove && !o.dry_run && rec.earlier && rec.earlier->created_config)
    ::rmdir(file.substr(0, file.rfind('/')).c_str());  // the directory install made for it, if left empty
  rec.after_writing(o);
  return finish_install(o, changed, "nothing to restart: nvidia-container-runtime reads its config on each start (its mode must be "
                                    "\"legacy\" for the hook to run)");
}

int install_nri(const GlobalOptions& g, const InstallCommandOptions& o);

// --uninstall --all: each registration install-state.json records, undone from the file it
// records, as `install --uninstall --runtime E --runtime-config F` would. One failing leaves the
// others undone and its record kept; the exit says so.
int uninstall_all(const GlobalOptions& g, const InstallCommandOptions& o) {
  const InstallState state(our_config(g));
  const std::vector<std::string> engines = state.engines();
  if (engines.empty()) {
    std::printf("nothing to do: no registration recorded (%s)\n", state.path().c_str());
    return as_int(ExitCode::ok);
  }
  int failed = 0;
  for (const std::string& e : engines) {
    const InstallRecord r = *state.get(e);
    InstallCommandOptions one = o;
    one.all = false;
    one.runtime = e;
    one.runtime_config = r.config;
    std::printf("== %s (%s)\n", e.c_str(), g_root.machine(r.config).c_str());
    std::fflush(stdout);
    try {
      InstallOptions io;
      io.runtime_path = o.runtime_path;
      io.hook_path = o.hook_path;
      io.uninstall = true;
      if (e.rfind("boot-gate:", 0) == 0) {
        one.runtime.clear();
        one.boot_gate = e.substr(10);
        if (!boot_gate_unit(*one.boot_gate)) fail("install-state.json names an unknown boot gate '" + e + "'");
        install_boot_gate(g, one);
      } else if (e == "docker" || e == "containerd" || e == "crio-runtime") {
        install_engine(g, one);
      } else if (e == "podman" || e == "crio") {
        install_hooks_d(g, one, io);
      } else if (e == "nvidia-legacy") {
        install_nvidia_legacy(g, one, io);
      } else if (e == "nri" || e == "crio-nri") {
        install_nri(g, one);
      } else {
        fail("install-state.json names '" + e + "', which this gpu-numa-hook does not know: left as it is");
      }
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

// nri (containerd) and crio-nri: NRI turned on where it is off, nothing else of the runtime's
// changed; optionally the pre-registered plugin. The plugin itself runs as a DaemonSet or service.
// Recorded with the plugin's directory, so uninstall removes the plugin install placed.
int install_nri(const GlobalOptions& g, const InstallCommandOptions& given) {
  InstallCommandOptions o = given;
  Recorded rec(g, o.runtime);
  if (o.uninstall && rec.earlier && !rec.earlier->plugin_dir.empty()) {
    o.nri_pre_registered = true;
    o.nri_plugin_dir = rec.earlier->plugin_dir;
  }
  InstallRecord record;
  record.config = o.runtime_config.value_or(default_config_of(o.runtime == "nri" ? "containerd" : "crio-runtime"));
  record.plugin_dir = o.nri_pre_registered ? o.nri_plugin_dir : rec.earlier ? rec.earlier->plugin_dir : "";
  bool changed = false;
  std::string restart = "nothing to restart";
  if (o.runtime == "nri") {
    const std::string main = g_root.machine(record.config);
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
          // The main file install created (only our imports line in it) goes; else our line does.
          const std::string created = "version = 2\nimports = [" + toml_quoted(kContainerdNriDropin) + "]\n";
          std::optional<std::string> after;
          if (!(rec.earlier && rec.earlier->created_config && *main_before == created))
            after = containerd_remove_import(*main_before, main, kContainerdNriDropin, true);
          changed = apply(main, main_before, after, o, true, !after) || changed;
        }
        restart = "restart containerd once to apply: systemctl restart containerd (NRI goes back to " +
                  std::string(release.major >= 2 ? "on, containerd 2's default" : "off, containerd 1.x's default") + ")";
      }
    } else if (containerd_nri_enabled(main_before.value_or(""), main, release.major) && !dropin_before) {
      std::printf("unchanged: %s (NRI is on with %s: nothing of containerd's to change, no restart)\n", main.c_str(),
                  which.c_str());
    } else {
      bool imported = false;  // a re-run: the main file reads our drop-in already
      if (main_before) {
        const toml::table t = parse_toml_file(*main_before, main);
        if (const toml::array* a = t["imports"].as_array())
          for (const auto& e : *a) imported = imported || e.value<std::string>() == kContainerdNriDropin;
      }
      record.created_config = rec.earlier ? rec.earlier->created_config : !main_before;
      record.import_added = kContainerdNriDropin;
      rec.before_writing(o, record);
      changed = apply(dropin, dropin_before, containerd_nri_dropin(main_before.value_or(""), main), o, false, true);
      bool whole_line = false;
      std::string main_after = !main_before ? "version = 2\nimports = [" + toml_quoted(kContainerdNriDropin) + "]\n"
                               : imported   ? *main_before
                                            : containerd_add_import(*main_before, main, kContainerdNriDropin, &whole_line);
      changed = apply(main, main_before, main_after, o, false, !main_before) || changed;
      if (changed)
        restart = "restart containerd once to turn NRI on (" + which +
                " has it off): systemctl restart containerd; afterwards the plugin connects at any time, no further restart";
    }
  } else {
    const std::string dir = g_root.machine(record.config);
    const std::string path = dir + "/" + kCrioNriDropin;
    auto before = read_optional(path);
    std::optional<std::string> after;
    if (!o.uninstall) after = crio_nri_dropin();
    else if (before && *before != crio_nri_dropin()) after = before;  // not ours any more: left alone
    rec.before_writing(o, record);
    changed = apply(path, before, after, o, false, true, true);
    restart = "restart CRI-O once to apply: systemctl restart crio (CRI-O 1.30 and later have NRI on already)";
  }
  if (o.nri_pre_registered) {
    rec.before_writing(o, record);
    const std::string path = g_root.machine(o.nri_plugin_dir) + "/" + kNriPreregisteredName;
    auto before = read_optional(path);
    std::optional<std::string> after;
    std::string socket;  // containerd's own NRI socket, for the plugin to dial if its connection drops
    if (o.runtime == "nri") {
      const std::string main = g_root.machine(record.config);
      if (auto text = read_optional(main)) try {
          socket = containerd_nri_socket(*text, main);
        } catch (const std::exception&) {
        }
    }
    if (!o.uninstall) after = nri_preregistered_script(o.nri_plugin_path, o.hook_path, socket);
    bool plugin_changed = apply(path, before, after, o, false, true, true);
    if (plugin_changed && !o.dry_run && after && ::chmod(path.c_str(), 0755) != 0) fail_errno("cannot chmod " + path, errno);
    if (plugin_changed && restart == "nothing to restart")
      restart = "the runtime starts " + g_root.host(path) + " at its next start (restart it once to start the plugin now)";
    changed = plugin_changed || changed;
  }
  rec.after_writing(o);
  if (o.dry_run) std::printf("dry run: nothing written\n");
  if (!changed) std::printf("nothing to do: %s\n", o.uninstall ? "not installed" : "already installed");
  else if (!o.dry_run) std::printf("%s\n", restart.c_str());
  std::printf("the plugin: run gpu-numa-nri (a DaemonSet: examples/kubernetes/nri-daemonset.yaml, or a service); "
              "`gpu-numa-hook check` reports it when it is not connected\n");
  return as_int(ExitCode::ok);
}

}  // namespace

int run_install(const GlobalOptions& g, const InstallCommandOptions& given) {
  // The engine's file as an absolute path: install-state.json records it, and the package's
  // removal undoes it from / (--uninstall --all), not from the directory install ran in.
  InstallCommandOptions o = given;
  g_root.dir = g.host_root.value_or("");
  while (!g_root.dir.empty() && g_root.dir.back() == '/') g_root.dir.pop_back();
  g_report.json = o.json;
  if (!g_root.dir.empty()) {
    // Beneath DIR a relative path has no meaning on the host: refused rather than guessed.
    for (const auto& [name, value] : {std::pair<const char*, std::string>{"--runtime-config", o.runtime_config.value_or("/")},
                                      {"--nri-plugin-dir", o.nri_plugin_dir}})
      if (value.empty() || value.front() != '/') {
        std::fprintf(stderr, "gpu-numa-hook: error: install: %s %s: with --host-root give the host's absolute path "
                             "(it is taken beneath %s)\n", name, value.c_str(), g_root.dir.c_str());
        return as_int(ExitCode::error);
      }
  } else if (o.runtime_config && !o.runtime_config->empty() && o.runtime_config->front() != '/') {
    char cwd[4096];
    if (::getcwd(cwd, sizeof cwd)) o.runtime_config = std::string(cwd) + "/" + *o.runtime_config;
  }
  const std::string& rt = o.runtime;
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
    vet_our_config(our_config(g), engine_file(o, rt), rt);
    if (rt == "docker" || rt == "containerd" || rt == "crio-runtime") return install_engine(g, o);
    if (rt == "nri" || rt == "crio-nri") return install_nri(g, o);
    if (rt == "podman" || rt == "crio") return install_hooks_d(g, o, io);
    if (rt == "nvidia-legacy") return install_nvidia_legacy(g, o, io);
    std::fprintf(stderr, "gpu-numa-hook: error: install: --runtime must be docker, containerd, podman, crio, crio-runtime, "
                         "nvidia-legacy, nri or crio-nri\n");
    return as_int(ExitCode::error);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "gpu-numa-hook: error: install: %s\n", e.what());
    return as_int(ExitCode::error);
  }
}

}  // namespace gnh
