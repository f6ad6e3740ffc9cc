#include "cli/install/registrations.h"

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "base/error.h"
#include "cli/install/file_claims.h"
#include "cli/install/file_writer.h"
#include "cli/install/install_paths.h"
#include "cli/install/install_record.h"
#include "cli/install/install_report.h"
#include "host/install/engine_files.h"
#include "host/install/install_state.h"
#include "install/config_edit.h"

namespace gnh::install_cli {

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
  load_claims(state, rt);
  EngineEdit edit = o.uninstall ? engine->remove_runtime(io, earlier) : engine->add_runtime(io, earlier);
  std::vector<std::string> lines = edit.notes;  // printed once nothing can fail any more

  // Our config: chain to NVIDIA's runtime on install; the recorded next comes back on uninstall.
  auto our_before = read_optional(ours);
  std::string our_after = our_before.value_or("");
  if (o.uninstall) {
    if (earlier && earlier->previous_next) our_after = set_runtime_next(our_after, *earlier->previous_next);
    if (earlier && earlier->previous_hook && our_before) our_after = set_runtime_hook(our_after, *earlier->previous_hook);
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
    // The shim registers our config's [runtime] hook, not a path of its own: --hook-path goes there.
    if (earlier && earlier->previous_hook) edit.record.previous_hook = earlier->previous_hook;
    const std::string builtin_hook = InstallOptions{}.hook_path;
    if (our_before) {
      const std::optional<std::string> hook = runtime_hook(our_after, ours);
      // Only a --hook-path given: without one, a [runtime] hook the operator set stays as it is.
      if (io.hook_path != builtin_hook && hook.value_or(builtin_hook) != io.hook_path) {
        if (!edit.record.previous_hook) edit.record.previous_hook = hook.value_or("");
        our_after = set_runtime_hook(our_after, io.hook_path);
        lines.push_back("hook: gpu-numa-runtime registers " + io.hook_path + " ([runtime] hook in " + ours + ")");
      }
    } else if (io.hook_path != builtin_hook) {
      fail(ours + " does not exist: gpu-numa-runtime registers the hook its [runtime] hook names (default " + builtin_hook +
           "), so --hook-path " + io.hook_path + " must be written there; nothing was changed. Install our config (the "
           "package's /etc/gpu-numa-hook/config.toml, or name it with --config) and run install again");
    }
    if (!edit.runtimes.base_runtime.empty())
      lines.push_back("base: the gpu-numa runtime is a copy of '" + edit.runtimes.base_runtime +
                      "' (its options, SystemdCgroup included)");
    InstallRecord r = edit.record;
    r.config = g_root.host(r.config);
    if (!r.dropin.empty()) r.dropin = g_root.host(r.dropin);
    state.put(rt, with_history(r, earlier));
  }
  if (!o.uninstall) save_state(state, o);
  for (const std::string& l : lines) said_note(l);
  bool changed = false;
  for (const FileChange& c : edit.changes) changed = apply(c.path, c.before, c.after, o, earlier.has_value(), c.ours, c.dropin) || changed;
  if (our_before && our_after != *our_before) changed = apply(ours, our_before, our_after, o, true) || changed;
  else if (o.uninstall && our_before && !o.dry_run) drop_spent_backup(ours, *our_before);
  if (o.uninstall && !o.dry_run) {
    record_writes(state, rt, true);
    save_state(state, o);
    remove_made_dirs(earlier, o);
  } else if (!o.dry_run) {
    InstallRecord r = *state.get(rt);
    bool more = note_made_dirs(r);
    if (more) state.put(rt, r);
    if (record_writes(state, rt, false) || more) save_state(state, o);
  }
  return finish_install(o, changed, engine->restart_hint());
}

}  // namespace gnh::install_cli
