#include "cli/install/registrations.h"

#include "base/error.h"
#include "cli/install/install_paths.h"
#include "host/install/engine_files.h"

namespace gnh::install_cli {

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

}  // namespace gnh::install_cli
