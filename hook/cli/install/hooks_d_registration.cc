#include "cli/install/registrations.h"

#include <optional>
#include <string>

#include "cli/install/file_writer.h"
#include "cli/install/install_paths.h"
#include "cli/install/install_record.h"
#include "cli/install/install_report.h"
#include "install/config_edit.h"

namespace gnh::install_cli {

int install_hooks_d(const GlobalOptions& g, const InstallCommandOptions& o, const InstallOptions& io) {
  const std::string dir = engine_file(o, o.runtime);
  const std::string path = dir + "/gpu-numa-hook.json";
  Recorded rec(g, o.runtime);
  auto before = read_optional(path);
  std::string after = hooks_d_file_text(io);
  // Ours is the file install wrote, whichever --hook-path it had then (uninstall, and --uninstall
  // --all at the package's removal, are not given it again); an edited file is the operator's.
  if (o.uninstall && before && *before != hooks_d_file_text(InstallOptions{io.runtime_path, io.hook_path}) &&
      !is_our_hooks_d_file(*before))
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
                                              // CRI-O watches its hooks directories (seen: crio 1.37 logs
                                              // "added hook"): a restart is needed only to change hooks_dir
                                              : "nothing to restart if CRI-O's hooks_dir names " + host_dir +
                                                    " (`crio config` prints it; a running CRI-O picks the file up); "
                                                    "otherwise add it to hooks_dir and restart crio: systemctl restart crio");
}

}  // namespace gnh::install_cli
