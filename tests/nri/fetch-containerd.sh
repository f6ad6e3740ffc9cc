#!/bin/bash
# A real containerd newer than Debian 12's 1.6, for the NRI suite: trixie's 1.7 or sid's 2.1, as
# Debian builds them (static Go binaries that run on Debian 12). Fetched with `apt-get download`
# against a private sources list (the system's apt sources stay untouched), unpacked with
# `dpkg-deb -x` and cached, as tests/vm/fetch-arch-parts.sh does for the VMs' parts.
#
#   tests/nri/fetch-containerd.sh SUITE [PACKAGE]   SUITE: trixie | sid; PACKAGE: containerd (default)
#
# Prints the unpacked root (its usr/bin/containerd, usr/bin/containerd-shim-runc-v2). Environment:
# NRI_PARTS_DIR (default /var/cache/gpu-numa-hook-nri). The mirror sometimes drops an index in the
# middle of a sync ("File has unexpected size"): every apt-get step is retried.
set -euo pipefail

suite=${1:?usage: fetch-containerd.sh trixie|sid [package]}
pkg=${2:-containerd}
case $suite in trixie | sid) ;; *) echo "fetch-containerd: suite '$suite' is not trixie or sid" >&2; exit 2 ;; esac
base=${NRI_PARTS_DIR:-/var/cache/gpu-numa-hook-nri}
dir=$base/$suite-$pkg
if [ -f "$dir/complete" ]; then
	echo "$dir/root"
	exit 0
fi

# The mirror the system already uses for bookworm.
uri=$(awk '/^URIs:/{print $2; exit}' /etc/apt/sources.list.d/debian.sources 2>/dev/null || true)
[ -n "$uri" ] || uri=$(awk '$1=="deb" && $0 ~ /bookworm/ {for (i=2;i<=NF;i++) if ($i ~ /^https?:/) {print $i; exit}}' /etc/apt/sources.list 2>/dev/null || true)
[ -n "$uri" ] || uri=http://deb.debian.org/debian
apt_dir=$base/apt-$suite
mkdir -p "$apt_dir/lists/partial" "$apt_dir/cache/archives/partial"
# [arch=amd64]: the build machine has arm64 and ppc64el as foreign architectures too.
echo "deb [arch=amd64] $uri $suite main" >"$apt_dir/sources.list"
apt_opts=(-o Dir::Etc::SourceList="$apt_dir/sources.list" -o Dir::Etc::SourceParts=/dev/null
	-o Dir::State::Lists="$apt_dir/lists" -o Dir::Cache="$apt_dir/cache" -o APT::Architecture=amd64)
retry() {
	local i
	for i in 1 2 3 4 5; do
		"$@" && return 0
		echo "fetch-containerd: '$*' failed (try $i of 5), retrying in $((i * 5)) s" >&2
		sleep $((i * 5))
	done
	return 1
}
retry apt-get -qq "${apt_opts[@]}" update >&2 || { echo "fetch-containerd: apt-get update of $suite failed" >&2; exit 2; }
rm -rf "$dir"
mkdir -p "$dir/debs" "$dir/root"
cd "$dir/debs"
retry bash -c 'apt-get -qq "$@" download '"$pkg"' 2>&1 | grep -v "Download is performed unsandboxed" >&2; ls ./*.deb >/dev/null 2>&1' \
	_ "${apt_opts[@]}" || { echo "fetch-containerd: apt-get download $pkg from $suite failed" >&2; exit 2; }
cd - >/dev/null
for d in "$dir"/debs/*.deb; do dpkg-deb -x "$d" "$dir/root"; done
rm -rf "$dir/debs"
touch "$dir/complete"
echo "$dir/root"
