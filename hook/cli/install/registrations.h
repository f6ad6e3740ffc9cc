// Each registration install writes, one file per kind: the engines' runtime (docker, containerd,
// crio-runtime), hooks.d (podman, crio), nvidia-legacy, NRI (nri, crio-nri), the boot gates; and
// --uninstall --all over what install-state.json records. Each prints what it did and returns the
// exit code; a failure throws (nothing written after it).
#pragma once

#include "cli/commands.h"
#include "install/containerd_config.h"
#include "install/engine_config.h"

namespace gnh::install_cli {

// The containerd release install writes for: --containerd-version, else the installed binary's.
// Under --host-root the containerd that reads DIR's files cannot be asked (`containerd --version`
// runs this machine's): the release is unknown there, and --runtime containerd takes the 1.x
// strategy (the whole CRI table in our drop-in, safe on 2.x too: what the shim DaemonSet relies on);
// --runtime nri, whose edit differs by release, needs --containerd-version; uninstall goes by the files.
ContainerdRelease containerd_release_of(const InstallCommandOptions& o);

// docker, containerd, crio-runtime: the engine's edit (install/engine_config.h), our config's
// [runtime] next chained to the NVIDIA runtime ours displaces, and install-state.json.
int install_engine(const GlobalOptions& g, const InstallCommandOptions& o);

// --boot-gate SERVICE: the `wait` drop-in for SERVICE's unit (install/boot_gate.h), beneath
// --host-root. Uninstall removes it only while it is still what install writes.
int install_boot_gate(const GlobalOptions& g, const InstallCommandOptions& o);

// hooks.d (podman, crio): our oci-hooks(5) file in the hooks directory. Uninstall removes it only
// while it is still the one install writes.
int install_hooks_d(const GlobalOptions& g, const InstallCommandOptions& o, const InstallOptions& io);

// nvidia-legacy: NVIDIA's hook path set to ours, our [chain] next-hook to NVIDIA's.
int install_nvidia_legacy(const GlobalOptions& g, const InstallCommandOptions& o, const InstallOptions& io);

// nri (containerd) and crio-nri: NRI turned on where it is off, nothing else of the runtime's
// changed; optionally the pre-registered plugin. The plugin itself runs as a DaemonSet or service.
// Recorded with the plugin's directory, so uninstall removes the plugin install placed.
int install_nri(const GlobalOptions& g, const InstallCommandOptions& given);
// Part of install_nri: --nri-require-for-gpu-pods's drop-in for the containerd main file `main`
// (this machine's path), added, or removed on uninstall. Whether it changed.
bool install_nri_validator(const std::string& main, const InstallCommandOptions& o);

// --uninstall --all: each registration install-state.json records, undone from the file it
// records, as `install --uninstall --runtime E --runtime-config F` would. One failing leaves the
// others undone and its record kept; the exit says so.
int uninstall_all(const GlobalOptions& g, const InstallCommandOptions& o);

}  // namespace gnh::install_cli
