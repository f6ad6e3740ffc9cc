#!/bin/bash
# NVIDIA's own NRI plugin, the real one: nvidia-ctk-installer 1.20.0 (the GPU operator's toolkit
# operand, run with --enable-nri-plugin) and the artifacts it installs before its plugin starts (the
# toolkit 1.20.0 and libnvidia-container 1.17.2), upstream builds in shared/tools/nvidia-container-toolkit
# (tests/support/shared-tools.sh). Each tarball is unpacked once into a cache entry keyed by its
# sha256 (tests/support/cache.sh, cache nvidia); the artifacts tree is the image's layout (usr/bin,
# usr/lib/x86_64-linux-gnu) as links into them, an entry of its own keyed by what it links to.
# Without shared/ it exits 77 and says why.
#
#   tests/nri/fetch-nvidia-installer.sh     prints two lines: the installer binary, the artifacts root
#                                           (its --toolkit-source-root)
set -euo pipefail
support=$(cd "$(dirname "${BASH_SOURCE[0]}")/../support" && pwd)
# shellcheck source=../support/shared-tools.sh
. "$support/shared-tools.sh"
# shellcheck source=../support/cache.sh
. "$support/cache.sh"
unpacked() { # NAME: shared/tools/nvidia-container-toolkit/NAME-amd64.tar.xz unpacked, its root printed
	local t
	t=$(shared_tool_tarball nvidia-container-toolkit "$1-amd64.tar.xz") || exit $?
	unpack_cached "$t" "nvidia/$2" || exit 2
}
inst=$(unpacked nvidia-ctk-installer-1.20.0 installer-1.20.0)
tk=$(unpacked nvidia-container-toolkit-1.20.0 toolkit-1.20.0)
lib=$(unpacked libnvidia-container-1.17.2 libnvidia-container-1.17.2)
[ -x "$inst/bin/nvidia-ctk-installer" ] || { echo "fetch-nvidia-installer: no bin/nvidia-ctk-installer in $inst" >&2; exit 2; }
# shellcheck disable=SC2016 # the filler's own $1 $2 $3
art=$(cache_fill "$(cache_dir nvidia)/artifacts-1.20.0" "$tk $lib" bash -ec '
	mkdir -p "$3/usr/bin" "$3/usr/lib"
	for f in "$1"/bin/* "$2"/bin/*; do ln -s "$f" "$3/usr/bin/"; done
	ln -s "$2/lib/x86_64-linux-gnu" "$3/usr/lib/x86_64-linux-gnu"' artifacts "$tk" "$lib") ||
	{ echo "fetch-nvidia-installer: cannot lay out the artifacts tree" >&2; exit 2; }
echo "$inst/bin/nvidia-ctk-installer"
echo "$art"
