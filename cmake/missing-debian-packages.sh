#!/usr/bin/env bash
# Prints, one per line, the Debian packages among its arguments that are not installed. A name
# without an arch means this machine's own: dpkg-query prints one line per installed arch, and
# libseccomp-dev:arm64 (a cross build's) must not pass for the native libseccomp-dev that the
# native build needs. Architecture: all packages count whatever the arch.
set -euo pipefail
native=$(dpkg --print-architecture)
for p in "$@"; do
  case $p in
    *:*) arch=${p##*:} ;;
    *) arch=$native ;;
  esac
  # A here-string, not a pipe into grep -q: under pipefail a grep that leaves at its first match
  # can kill the writer with SIGPIPE and make the whole pipe "fail".
  status=$(dpkg-query -W -f='${Status} ${Architecture}\n' "$p" 2>/dev/null || true)
  grep -qx -e "install ok installed $arch" -e 'install ok installed all' <<<"$status" || echo "$p"
done
