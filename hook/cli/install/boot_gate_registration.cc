#include "cli/install/registrations.h"

#include <cstdio>
#include <optional>
#include <string>

#include "base/exit_code.h"
#include "cli/install/file_writer.h"
#include "cli/install/install_paths.h"
#include "cli/install/install_record.h"
#include "install/boot_gate.h"

namespace gnh::install_cli {

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

}  // namespace gnh::install_cli
