#!/bin/bash
# The Debian 12 root file system the systemd VM test boots (systemd 252 as PID 1, runc 1.1.5, crun 1.8.1), built
# with mmdebstrap from Debian's packages, once, into a cache entry keyed by the package list and
# suite (tests/support/cache.sh, cache vm): a new list builds a new entry beside the old one.
#
#   tests/vm/fetch-systemd-rootfs.sh [cri]   prints the tarball's path
#
# `cri`: the containerd CRI test's file system (run-vm-systemd-cri-test.sh), which adds its CRI
# client's Python gRPC; a tarball of its own, so the plain one stays as it is.
#
# Environment: VM_DEBIAN_MIRROR (default: the URI the system's apt sources name for bookworm, else
# http://deb.debian.org/debian).
# Needs: mmdebstrap (root). Mirror hiccups ("File has unexpected size" mid-sync) are retried.
set -euo pipefail

suite=bookworm
# minbase plus what the scenario needs: systemd as init, the system bus runc talks to, runc and crun,
# a shell toolbox for the container and the scenario. Nothing else boots.
include=systemd,systemd-sysv,dbus,runc,crun,busybox-static,kmod
case ${1:-} in
	'') ;;
	cri) include=$include,python3-grpcio,python3-protobuf ;;
	*) echo "fetch-systemd-rootfs: unknown variant '$1' (none, or cri)" >&2; exit 2 ;;
esac
key=$(printf '%s %s v1' "$suite" "$include" | sha256sum | cut -c1-12)
if [ "${2:-}" = --fill ]; then
	# [cri] --fill PART (the variant given as "" or cri): the cache entry's filler
	part=$3
	command -v mmdebstrap >/dev/null || { echo "fetch-systemd-rootfs: mmdebstrap not installed (apt-get install mmdebstrap)" >&2; exit 2; }
	mirror=${VM_DEBIAN_MIRROR:-}
	if [ -z "$mirror" ]; then
		mirror=$(awk '/^URIs:/{u=$2} /^Suites:/ && / bookworm( |$)/{print u; exit}' /etc/apt/sources.list.d/debian.sources 2>/dev/null || true)
		[ -n "$mirror" ] || mirror=$(awk '$1=="deb" && $3=="bookworm"{print $2; exit}' /etc/apt/sources.list 2>/dev/null || true)
		[ -n "$mirror" ] || mirror=http://deb.debian.org/debian
	fi
	# mmdebstrap picks its output format from the name: keep ".tar" at the end.
	for attempt in 1 2 3 4; do
		if mmdebstrap --variant=minbase --include="$include" --quiet "$suite" "$part/rootfs.tar" "$mirror" >"$part/mmdebstrap.log" 2>&1; then
			exit 0
		fi
		echo "fetch-systemd-rootfs: mmdebstrap attempt $attempt failed (tail of its log below); retrying" >&2
		tail -3 "$part/mmdebstrap.log" >&2
		rm -f "$part/rootfs.tar"
		sleep $((attempt * 5))
	done
	echo "fetch-systemd-rootfs: mmdebstrap failed 4 times from $mirror" >&2
	exit 2
fi
# shellcheck source=../support/cache.sh
. "$(dirname "${BASH_SOURCE[0]}")/../support/cache.sh"
dir=$(cache_fill "$(cache_dir vm)/systemd-rootfs-$suite-$key" "$suite $include" bash "$0" "${1:-}" --fill) || exit 2
echo "$dir/rootfs.tar"
