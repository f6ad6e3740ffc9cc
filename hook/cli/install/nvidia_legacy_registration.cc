#include "cli/install/registrations.h"

#include <unistd.h>

#include <optional>
#include <string>
#include <utility>

#include "cli/install/file_writer.h"
#include "cli/install/install_paths.h"
#include "cli/install/install_record.h"
#include "cli/install/install_report.h"
#include "base/error.h"
#include "install/config_edit.h"
#include "install/nvidia_mode.h"

namespace gnh::install_cli {

namespace {

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

}  // namespace

int install_nvidia_legacy(const GlobalOptions& g, const InstallCommandOptions& o, const InstallOptions& io) {
  const std::string file = engine_file(o, o.runtime);
  const std::string ours = our_config(g);
  auto nv_before = read_optional(file);
  // Only legacy mode runs [nvidia-container-runtime-hook] path: in any other mode the registration
  // would look installed and never run. Refused before anything is written (--dry-run too).
  if (!o.uninstall)
    if (std::string why = nvidia_mode_never_runs_hook(nvidia_runtime_mode(nv_before.value_or(""), file), file); !why.empty())
      fail("--runtime nvidia-legacy refused, nothing written: " + why);
  Recorded rec(g, o.runtime);
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

}  // namespace gnh::install_cli
