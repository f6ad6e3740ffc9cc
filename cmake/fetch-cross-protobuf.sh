#!/bin/bash
# fetch-cross-protobuf.sh aarch64|ppc64le: the target arch's protobuf for a cross build of
# gpu-numa-nri, without installing it. libprotobuf-dev:<arch>, at the version of this machine's
# protoc, is downloaded with `apt-get download` (this machine's sources; the arch must be enabled
# with dpkg --add-architecture) and unpacked into a cache. Installing it beside the build
# machine's own packages pulls libc6-dev:<arch>, which apt refuses whenever the mirror's indexes
# for the arches disagree on a shared package (linux-libc-dev, libssl3): this needs no resolver.
# Prints the directory to pass as -DGNH_CROSS_PROTOBUF_ROOT=, a cache entry (tests/support/cache.sh,
# cache cross).
set -euo pipefail
case ${1:-} in
aarch64 | arm64) deb_arch=arm64 ;;
ppc64le | ppc64el) deb_arch=ppc64el ;;
*) echo "fetch-cross-protobuf: usage: fetch-cross-protobuf.sh aarch64|ppc64le" >&2; exit 2 ;;
esac
version=$(dpkg-query -W -f='${Version}' protobuf-compiler 2>/dev/null) ||
  { echo "fetch-cross-protobuf: protobuf-compiler is not installed (apt-get install protobuf-compiler)" >&2; exit 2; }
if [ "${2:-}" = --fill ]; then
  # ARCH --fill PART: the cache entry's filler, a process of its own
  part=$3
  grep -qx "$deb_arch" <<<"$(dpkg --print-foreign-architectures)" ||
    { echo "fetch-cross-protobuf: dpkg has no $deb_arch architecture: dpkg --add-architecture $deb_arch && apt-get update" >&2; exit 2; }
  mkdir -p "$part/debs" "$part/root"
  cd "$part/debs"
  for try in 1 2 3; do
    apt-get download -qq "libprotobuf-dev:$deb_arch=$version" 2>&1 | grep -v 'Download is performed unsandboxed' >&2 || true
    compgen -G "libprotobuf-dev_*.deb" >/dev/null && break
    echo "fetch-cross-protobuf: apt-get download libprotobuf-dev:$deb_arch=$version failed (try $try of 3)" >&2
    sleep $((try * 5))
  done
  compgen -G "libprotobuf-dev_*.deb" >/dev/null ||
    { echo "fetch-cross-protobuf: no libprotobuf-dev:$deb_arch $version in the apt indexes (apt-get update)" >&2; exit 2; }
  dpkg-deb -x libprotobuf-dev_*.deb "$part/root"
  cd /
  rm -rf "$part/debs"
  exit 0
fi
# shellcheck source=../tests/support/cache.sh
. "$(dirname "${BASH_SOURCE[0]}")/../tests/support/cache.sh"
dir=$(cache_fill "$(cache_dir cross)/protobuf-$deb_arch-$version" "$deb_arch $version" bash "$0" "$1" --fill) || exit 2
echo "$dir/root"
