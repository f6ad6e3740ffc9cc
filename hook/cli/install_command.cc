// `gpu-numa-hook install --runtime docker|containerd|podman|crio|nvidia-legacy`: registers the
// hook (or the runtime shim) in an engine's configuration, as `nvidia-ctk runtime configure` does.
// The edits are pure (install/config_edit.h); here: read, back up, write atomically, or print the
// diff; and the one line saying what to restart.
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <optional>
#include <string>

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
bool apply(const std::string& path, const std::optional<std::string>& before, const std::string& after,
           bool remove_when_empty, const InstallCommandOptions& o) {
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
  if (before) {
    write_file_atomically(path + ".gpu-numa-hook.bak", *before, 0600);
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

}  // namespace

int run_install(const GlobalOptions& g, const InstallCommandOptions& o) {
  const std::string& rt = o.runtime;
  const std::string file = o.runtime_config.value_or(default_config_of(rt));
  InstallOptions io;
  io.runtime_path = o.runtime_path;
  io.hook_path = o.hook_path;
  io.set_default = o.set_default;
  io.uninstall = o.uninstall;
  if (o.set_default && rt != "docker" && rt != "containerd") {
    std::fprintf(stderr, "gpu-numa-hook: error: install: --set-default applies to docker and containerd only\n");
    return as_int(ExitCode::error);
  }
  try {
    bool changed = false;
    std::string restart;
    if (rt == "docker") {
      auto before = read_optional(file);
      Undo u = edit_with_exact_undo(file, before, io, edit_docker_daemon_json);
      changed = apply(file, before, u.after, u.remove, o);
      restart = "restart dockerd to apply: systemctl restart docker";
    } else if (rt == "containerd") {
      auto before = read_optional(file);
      Undo u = edit_with_exact_undo(file, before, io, edit_containerd_config);
      if (o.dry_run && before && *before != u.after && !o.uninstall)
        std::printf("note: the file is re-emitted by toml++: its comments and layout are not kept\n");
      changed = apply(file, before, u.after, u.remove, o);
      restart = "restart containerd to apply: systemctl restart containerd";
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
      std::fprintf(stderr, "gpu-numa-hook: error: install: --runtime must be docker, containerd, podman, crio or nvidia-legacy\n");
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
