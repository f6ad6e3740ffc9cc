// `gpu-numa-hook install --runtime docker|containerd|podman|crio|nvidia-legacy`: registers the
// hook (or the runtime shim) in an engine's configuration, as `nvidia-ctk runtime configure` does.
// The edits are pure (install/config_edit.h); here: read, back up, write atomically, or print the
// diff; and the one line saying what to restart.
#include <glob.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "base/error.h"
#include "base/exit_code.h"
#include "cli/commands.h"
#include "config/config.h"
#include "host/atomic_file.h"
#include "host/host_fs.h"
#include "install/config_edit.h"

namespace gnh {

namespace {

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
// Returns whether anything changed (or would).
// `before_has_ours`: the file already holds what install adds (a second install, or install then
// install --set-default): its backup from the first install is the operator's original and is kept.
bool apply(const std::string& path, const std::optional<std::string>& before, const std::string& after,
           bool remove_when_empty, const InstallCommandOptions& o, bool before_has_ours = false) {
  const std::string old_text = before.value_or("");
  const bool remove = remove_when_empty && after.empty();
  if ((remove && !before) || (!remove && before && *before == after)) {
    std::printf("unchanged: %s (%s)\n", path.c_str(), o.uninstall ? "nothing of ours in it" : "already installed");
    return false;
  }
  if (o.dry_run) {
    std::string d = unified_diff(old_text, after, before ? path : "/dev/null", remove ? "/dev/null" : path);
    std::fputs(d.c_str(), stdout);
    return true;
  }
  const std::string backup = path + ".gpu-numa-hook.bak";
  struct stat bst {};
  if (before && !(before_has_ours && ::stat(backup.c_str(), &bst) == 0)) {
    write_file_atomically(backup, *before, 0600);
  }
  if (remove) {
    if (::unlink(path.c_str()) != 0) fail_errno("cannot remove " + path, errno);
    std::printf("removed: %s%s\n", path.c_str(), before ? (" (backup: " + path + ".gpu-numa-hook.bak)").c_str() : "");
    return true;
  }
  make_parent_dirs(path);
  struct stat st {};
  unsigned mode = ::stat(path.c_str(), &st) == 0 ? (st.st_mode & 07777) : 0644;
  write_file_atomically(path, after, mode);
  std::printf("%s: %s%s\n", before ? "updated" : "created", path.c_str(),
              before ? (" (backup: " + path + ".gpu-numa-hook.bak)").c_str() : "");
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

// Uninstall undoes exactly what install did where it can tell: when the file is what install makes
// of its backup, the backup comes back byte for byte (comments of a TOML file included); when it is
// what install makes of nothing, the file goes, as it was absent. Otherwise the computed edit
// (which removes only our entries) stands. `install_edit` is install's edit, with and without
// --set-default as the operator may have used either.
struct Undo {
  std::string after;
  bool remove = false;
};
template <typename Edit>
Undo exact_undo(const std::string& path, const std::optional<std::string>& before, std::string computed, Edit install_edit) {
  if (!before) return {std::move(computed), false};
  auto backup = read_optional(path + ".gpu-numa-hook.bak");
  for (bool set_default : {false, true}) {
    if (backup && install_edit(*backup, set_default) == *before) return {*backup, false};
    if (install_edit("", set_default) == *before) return {"", true};
  }
  return {std::move(computed), false};
}

// The edit for install, or for --uninstall its exact undo (see exact_undo): docker's and containerd's
// editors take (text, file, options) alike.
template <typename Editor>
Undo edit_with_exact_undo(const std::string& file, const std::optional<std::string>& before, const InstallOptions& io,
                          Editor edit) {
  Undo u{edit(before.value_or(""), file, io), false};
  if (!io.uninstall) return u;
  return exact_undo(file, before, u.after, [&](const std::string& t, bool set_default) {
    InstallOptions i = io;
    i.uninstall = false;
    i.set_default = set_default;
    return edit(t, file, i);
  });
}

// What install displaced, per engine, so that --uninstall puts exactly that back whatever else
// changed in the files meanwhile: the default runtime it replaced and our [runtime] next before
// install chained it to NVIDIA's runtime. Beside our config: <config dir>/install-state.json.
// Written on the first install of an engine only (a second install must not record our own
// values as "previous"); removed entry by entry on uninstall.
class InstallState {
 public:
  explicit InstallState(const std::string& our_config)
      : path_(our_config.substr(0, our_config.rfind('/') == std::string::npos ? 0 : our_config.rfind('/') + 1) +
              "install-state.json") {
    if (auto text = read_optional(path_)) {
      try {
        j_ = nlohmann::json::parse(*text);
      } catch (const nlohmann::json::exception&) {
        fail(path_ + ": cannot parse install state, left untouched (remove it to start afresh)");
      }
      if (!j_.is_object()) fail(path_ + ": install state is not a JSON object");
    }
  }
  bool has(const std::string& engine) const { return j_.contains(engine) && j_[engine].is_object(); }
  std::string previous_default(const std::string& engine) const {
    return has(engine) ? j_[engine].value("previous_default", "") : "";
  }
  std::optional<std::vector<std::string>> previous_next(const std::string& engine) const {
    if (!has(engine) || !j_[engine].contains("previous_next")) return std::nullopt;
    return j_[engine]["previous_next"].get<std::vector<std::string>>();
  }
  void record(const std::string& engine, const std::string& file, const std::string& previous_default,
              const std::optional<std::vector<std::string>>& previous_next) {
    nlohmann::json e = {{"file", file}, {"previous_default", previous_default}};
    if (previous_next) e["previous_next"] = *previous_next;
    j_[engine] = e;
    changed_ = true;
  }
  void forget(const std::string& engine) { changed_ |= j_.erase(engine) > 0; }
  void save(bool dry_run) const {
    if (dry_run || !changed_) return;
    if (j_.empty()) {
      if (::unlink(path_.c_str()) != 0 && errno != ENOENT) fail_errno("cannot remove " + path_, errno);
      return;
    }
    make_parent_dirs(path_);
    write_file_atomically(path_, j_.dump(2) + "\n", 0644);
  }
  const std::string& path() const { return path_; }

 private:
  std::string path_;
  nlohmann::json j_ = nlohmann::json::object();
  bool changed_ = false;
};

// containerd 1.x replaces a plugin's whole table with an imported file's (issue 5837): when a file
// the main config imports defines the CRI plugin (nvidia-ctk's conf.d/99-nvidia.toml does), an
// entry in the main file is silently ignored. Refuse then, naming the file and what to add there.
// The files a containerd main file imports, in the order containerd reads them, with their text.
std::vector<std::pair<std::string, std::string>> imported_files(const std::string& main_file, const std::string& main_text) {
  std::vector<std::pair<std::string, std::string>> out;
  const std::string dir = main_file.substr(0, main_file.rfind('/') + 1);
  for (const std::string& pattern : containerd_imports(main_text, main_file)) {
    const std::string abs = pattern.empty() || pattern.front() == '/' ? pattern : dir + pattern;
    glob_t g{};
    if (::glob(abs.c_str(), 0, nullptr, &g) == 0)
      for (size_t i = 0; i < g.gl_pathc; ++i)
        if (auto text = read_optional(g.gl_pathv[i])) out.emplace_back(g.gl_pathv[i], *text);
    ::globfree(&g);
  }
  return out;
}

void refuse_shadowing_imports(const std::string& main_file, const std::vector<std::pair<std::string, std::string>>& imports,
                              long long version, const std::string& plugin, const InstallOptions& io) {
  if (version >= 3) return;  // containerd 2.x files: imports are deep-merged
  for (const auto& [f, text] : imports) {
    if (!containerd_defines_cri(text, f)) continue;
    fail(main_file + " imports " + f + ", which defines the CRI plugin table: containerd 1.x would replace the "
           "main file's CRI table with it and ignore our runtime, so nothing was changed. Add the runtime to " + f +
           " instead: [plugins.\"" + plugin + "\".containerd.runtimes." + kRuntimeName + "] with runtime_type = "
           "\"io.containerd.runc.v2\" and options BinaryName = \"" + io.runtime_path + "\" (copy your base runtime's "
           "options, e.g. SystemdCgroup), then restart containerd");
  }
}

// install chains the shim to NVIDIA's runtime when the engine has one: our [runtime] next becomes
// [its binary, runc, crun], so pods that relied on NVIDIA's spec edits keep their GPUs.
std::vector<std::string> chained_next(const std::string& nvidia_binary) { return {nvidia_binary, "runc", "crun"}; }

}  // namespace

int run_install(const GlobalOptions& g, const InstallCommandOptions& o) {
  const std::string& rt = o.runtime;
  const std::string file = o.runtime_config.value_or(default_config_of(rt));
  InstallOptions io;
  io.runtime_path = o.runtime_path;
  io.hook_path = o.hook_path;
  io.set_default = o.set_default;
  io.uninstall = o.uninstall;
  if (o.set_default && rt != "docker" && rt != "containerd" && rt != "crio-runtime") {
    std::fprintf(stderr, "gpu-numa-hook: error: install: --set-default applies to docker, containerd and crio-runtime only\n");
    return as_int(ExitCode::error);
  }
  try {
    bool changed = false;
    std::string restart;
    if (rt == "docker" || rt == "containerd") {
      const bool docker = rt == "docker";
      auto edit = [&](std::string_view t, const std::string& f, const InstallOptions& i, EngineRuntimes* seen = nullptr) {
        return docker ? edit_docker_daemon_json(t, f, i, seen) : edit_containerd_config(t, f, i, seen);
      };
      const std::string ours = g.config_path.value_or(kDefaultConfigPath);
      InstallState state(ours);
      auto before = read_optional(file);
      std::vector<std::pair<std::string, std::string>> imports;
      if (!docker && before) {
        const long long version = containerd_config_version(*before, file);
        imports = imported_files(file, *before);
        refuse_shadowing_imports(file, imports, version, containerd_cri_plugin(version), io);
      }
      if (o.uninstall) io.restore_default = state.previous_default(rt);
      EngineRuntimes seen;
      Undo u = edit_with_exact_undo(file, before, io, [&](std::string_view t, const std::string& f, const InstallOptions& i) {
        return edit(t, f, i, i.uninstall ? nullptr : &seen);
      });
      InstallOptions remove_io = io;
      remove_io.uninstall = true;
      const bool before_has_ours = before && edit(*before, file, remove_io) != *before;
      if (!docker && o.dry_run && before && *before != u.after && !o.uninstall)
        std::printf("note: the file is re-emitted by toml++: its comments and layout are not kept\n");
      changed = apply(file, before, u.after, u.remove, o, before_has_ours);
      // Our config: chain to NVIDIA's runtime on install; put the recorded next back on uninstall.
      auto our_before = read_optional(ours);
      std::string our_after = our_before.value_or("");
      if (o.uninstall) {
        if (auto prev = state.previous_next(rt)) our_after = set_runtime_next(our_after, *prev);
        state.forget(rt);
      } else {
        std::optional<std::vector<std::string>> previous_next;
        // containerd 2.x merges imports: NVIDIA's runtime may live in nvidia-ctk's drop-in.
        for (const auto& [f, text] : imports)
          if (seen.nvidia_binary.empty()) seen.nvidia_binary = containerd_nvidia_binary(text, f);
        if (!seen.nvidia_binary.empty()) {
          previous_next = runtime_next(our_after, ours);
          our_after = set_runtime_next(our_after, chained_next(seen.nvidia_binary));
          std::printf("chain: %s's runtime '%s' is NVIDIA's: gpu-numa-runtime runs it next ([runtime] next in %s)\n",
                      rt.c_str(), seen.nvidia_binary.c_str(), ours.c_str());
        }
        if (!seen.base_runtime.empty())
          std::printf("base: the gpu-numa runtime is a copy of '%s' (its options, SystemdCgroup included)\n",
                      seen.base_runtime.c_str());
        if (!state.has(rt))
          state.record(rt, file, seen.default_runtime == kRuntimeName ? "" : seen.default_runtime, previous_next);
      }
      if (our_before && our_after != *our_before) changed = apply(ours, our_before, our_after, false, o) || changed;
      state.save(o.dry_run);
      restart = docker ? "restart dockerd to apply: systemctl restart docker"
                       : "restart containerd to apply: systemctl restart containerd";
    } else if (rt == "crio-runtime") {
      // crio.conf beside the drop-in directory, then the directory's *.toml in order (ours too,
      // so that a second run sees its own entry and --set-default is kept).
      const std::string dir = file;
      const std::string path = dir + "/99-gpu-numa.toml";
      std::vector<std::pair<std::string, std::string>> files;
      const std::string main_file = dir.substr(0, dir.rfind('/') + 1) + "crio.conf";
      if (auto t = read_optional(main_file)) files.emplace_back(main_file, *t);
      glob_t gl{};
      if (::glob((dir + "/*.toml").c_str(), 0, nullptr, &gl) == 0)
        for (size_t i = 0; i < gl.gl_pathc; ++i)
          if (std::string f = gl.gl_pathv[i]; f != path)
            if (auto t = read_optional(f)) files.emplace_back(f, *t);
      ::globfree(&gl);
      auto before = read_optional(path);
      const std::string ours = g.config_path.value_or(kDefaultConfigPath);
      InstallState state(ours);
      EngineRuntimes seen;
      std::string after = crio_runtime_dropin(files, io, &seen);
      if (!o.uninstall && before && !o.set_default && crio_dropin_is_default(*before, path)) {
        InstallOptions keep = io;  // a plain re-run keeps an earlier --set-default
        keep.set_default = true;
        after = crio_runtime_dropin(files, keep, nullptr);
      }
      changed = apply(path, before, after, true, o);
      auto our_before = read_optional(ours);
      std::string our_after = our_before.value_or("");
      if (o.uninstall) {
        if (auto prev = state.previous_next(rt)) our_after = set_runtime_next(our_after, *prev);
        state.forget(rt);
      } else if (!state.has(rt)) {
        std::optional<std::vector<std::string>> previous_next;
        if (!seen.nvidia_binary.empty()) {
          previous_next = runtime_next(our_after, ours);
          our_after = set_runtime_next(our_after, chained_next(seen.nvidia_binary));
          std::printf("chain: CRI-O's runtime '%s' is NVIDIA's: gpu-numa-runtime runs it next ([runtime] next in %s)\n",
                      seen.nvidia_binary.c_str(), ours.c_str());
        }
        state.record(rt, path, seen.default_runtime, previous_next);
      }
      if (!o.uninstall && !seen.base_runtime.empty())
        std::printf("base: the gpu-numa runtime is a copy of '%s'\n", seen.base_runtime.c_str());
      if (our_before && our_after != *our_before) changed = apply(ours, our_before, our_after, false, o) || changed;
      state.save(o.dry_run);
      restart = "restart CRI-O to apply: systemctl restart crio (pods then choose it with runtimeClassName: gpu-numa, "
                "or it is the default with --set-default)";
    } else if (rt == "podman" || rt == "crio") {
      const std::string path = file + "/gpu-numa-hook.json";
      auto before = read_optional(path);
      std::string after = hooks_d_file_text(io);
      // Uninstall removes the file only when it is still the one we install.
      if (o.uninstall && before && *before != hooks_d_file_text(InstallOptions{io.runtime_path, io.hook_path}))
        after = *before;
      changed = apply(path, before, after, true, o);
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
      changed = apply(ours, our_before, our_after, false, o);
      Undo u{nv_after, false};
      if (o.uninstall)
        u = exact_undo(file, nv_before, nv_after, [&](const std::string& t, bool) {
          InstallOptions i = io;
          i.uninstall = false;
          return edit_nvidia_runtime_config(t, file, i, nullptr, "");
        });
      changed = apply(file, nv_before, u.after, u.remove, o) || changed;
      restart = "nothing to restart: nvidia-container-runtime reads its config on each start (its mode must be "
                "\"legacy\" for the hook to run)";
    } else {
      std::fprintf(stderr, "gpu-numa-hook: error: install: --runtime must be docker, containerd, podman, crio, crio-runtime or nvidia-legacy\n");
      return as_int(ExitCode::error);
    }
    if (o.dry_run) std::printf("dry run: nothing written\n");
    if (!changed) std::printf("nothing to do: %s\n", o.uninstall ? "not installed" : "already installed");
    else if (!o.dry_run) std::printf("%s\n", restart.c_str());
    return as_int(ExitCode::ok);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "gpu-numa-hook: error: install: %s\n", e.what());
    return as_int(ExitCode::error);
  }
}

}  // namespace gnh
