#!/bin/bash
# NVIDIA's own NRI plugin, the real one: nvidia-ctk-installer 1.20.0 (the GPU operator's toolkit
# operand, run with --enable-nri-plugin) and the artifacts it installs before its plugin starts (the
# toolkit 1.20.0 and libnvidia-container 1.17.2), upstream builds in shared/tools/nvidia-container-toolkit
# (tests/support/shared-tools.sh). Each tarball is unpacked once into a cache keyed by its sha256;
# the artifacts tree is the image's layout (usr/bin, usr/lib/x86_64-linux-gnu) as links into them.
# Without shared/ it exits 77 and says why.
#
#   tests/nri/fetch-nvidia-installer.sh     prints two lines: the installer binary, the artifacts root
#                                           (its --toolkit-source-root)
# Environment: NRI_PARTS_DIR (default /var/cache/gpu-numa-hook-nri).
set -euo pipefail
support=$(cd "$(dirname "${BASH_SOURCE[0]}")/../support" && pwd)
# shellcheck source=../support/shared-tools.sh
. "$support/shared-tools.sh"
base=${NRI_PARTS_DIR:-/var/cache/gpu-numa-hook-nri}
unpacked() { # NAME: shared/tools/nvidia-container-toolkit/NAME-amd64.tar.xz unpacked, its root printed
	local t
	t=$(shared_tool_tarball nvidia-container-toolkit "$1-amd64.tar.xz") || exit $?
	unpack_cached "$t" "$base/$1" || exit 2
}
inst=$(unpacked nvidia-ctk-installer-1.20.0)
tk=$(unpacked nvidia-container-toolkit-1.20.0)
lib=$(unpacked libnvidia-container-1.17.2)
art=$base/nvidia-artifacts-1.20.0
rm -rf "$art"
mkdir -p "$art/usr/bin" "$art/usr/lib"
for f in "$tk"/bin/* "$lib"/bin/*; do ln -s "$f" "$art/usr/bin/"; done
ln -s "$lib/lib/x86_64-linux-gnu" "$art/usr/lib/x86_64-linux-gnu"
[ -x "$inst/bin/nvidia-ctk-installer" ] || { echo "fetch-nvidia-installer: no bin/nvidia-ctk-installer in $inst" >&2; exit 2; }
echo "$inst/bin/nvidia-ctk-installer"
echo "$art"
