#!/bin/bash
# The README's first command on a fresh Debian 12, as a new user runs it: a minimal root file system
# (mmdebstrap --variant=minbase: no compiler, no cmake, no libraries), a clean clone of this
# repository copied in, `bash examples/demo.sh` run inside it as root. Then, in the same root, the
# whole native configure (every target the test command builds, the NRI plugin's protobuf included)
# with nothing installed but the build list that demo.sh and tests/run-all.sh share. A package the
# build needs and the list lacks fails here, not on a user's machine.
#
#   tests/fresh/run-fresh-root-test.sh            (as root; needs mmdebstrap and the network to Debian)
#
# Environment: FRESH_KEEP=1 keeps the work directory (its path is printed).
set -euo pipefail
repo=$(cd "$(dirname "$0")/../.." && pwd)
TALLY_NAME="fresh root:"
source "$repo/tests/support/tally.sh"

[ "$(id -u)" = 0 ] || { echo "run-fresh-root-test: must run as root (chroot, mounts)" >&2; exit 2; }
command -v mmdebstrap >/dev/null || { echo "FAIL: mmdebstrap not installed (apt-get install mmdebstrap)"; exit 1; }

work=$(mktemp -d /tmp/gnh-fresh-XXXXXX)
root=$work/root
mounted=()
cleanup() {
  local i busy=0
  for ((i = ${#mounted[@]} - 1; i >= 0; i--)); do umount -R -l "${mounted[i]}" 2>/dev/null || true; done
  # Never remove through a mount that is still there (the host's /dev, /sys, /proc).
  for ((i = 0; i < ${#mounted[@]}; i++)); do mountpoint -q "${mounted[i]}" && busy=1; done
  if [ "${FRESH_KEEP:-0}" = 1 ] || [ "$busy" = 1 ]; then
    [ "$busy" = 1 ] && echo "kept: $work (a bind mount is still in place: not removed)" || echo "kept: $work"
  else
    rm -rf --one-file-system "$work"
  fi
}
trap cleanup EXIT

mirror=$(awk '/^URIs:/{u=$2} /^Suites:/ && / bookworm( |$)/{print u; exit}' /etc/apt/sources.list.d/debian.sources 2>/dev/null || true)
[ -n "$mirror" ] || mirror=$(awk '$1=="deb" && $3=="bookworm"{print $2; exit}' /etc/apt/sources.list 2>/dev/null || true)
[ -n "$mirror" ] || mirror=http://deb.debian.org/debian

echo "== a fresh Debian 12 root (mmdebstrap --variant=minbase bookworm, from $mirror)"
mkdir -p "$root"
built=0
for attempt in 1 2 3; do
  if mmdebstrap --variant=minbase --quiet bookworm "$root" "$mirror" >"$work/mmdebstrap.log" 2>&1; then
    built=1
    break
  fi
  echo "   mmdebstrap attempt $attempt failed: $(tail -n 1 "$work/mmdebstrap.log"); retrying"
  rm -rf "$root" && mkdir -p "$root"
  sleep $((attempt * 5))
done
[ "$built" = 1 ] || { echo "FAIL: mmdebstrap could not build a Debian 12 root (see above)"; exit 1; }
# Nothing a build needs is there: the proof that demo.sh installs it.
for tool in cmake g++ ninja protoc pkg-config; do
  if chroot "$root" /bin/sh -c "command -v $tool" >/dev/null 2>&1; then
    echo "FAIL: the fresh root already has $tool: it is not fresh"
    exit 1
  fi
done
echo "   no cmake, g++, ninja, protoc or pkg-config in it"

# apt inside keeps the sources mmdebstrap wrote (the mirror above); it needs the machine's name
# resolution and the machine's own Acquire settings (a mirror's snapshot dates), nothing else.
cp /etc/resolv.conf "$root/etc/resolv.conf"
for f in /etc/apt/apt.conf.d/*; do
  grep -q '^Acquire::' "$f" 2>/dev/null && cp "$f" "$root/etc/apt/apt.conf.d/"
done
for m in proc sys dev; do
  mkdir -p "$root/$m"
  mount --rbind "/$m" "$root/$m"
  mount --make-rslave "$root/$m"
  mounted+=("$root/$m")
done

echo "== a clean clone of $(git -C "$repo" rev-parse --short HEAD) copied in (committed files only)"
git clone -q "$repo" "$root/src/gpu-numa-hook"

echo "== bash examples/demo.sh, inside the fresh root"
rc=0
chroot "$root" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root LANG=C.UTF-8 \
  bash -c 'cd /src/gpu-numa-hook && bash examples/demo.sh' >"$work/demo.out" 2>&1 || rc=$?
sed 's/^/   | /' "$work/demo.out"

name="demo.sh on a fresh Debian 12 exits 0"
[ "$rc" = 0 ] && pass "$name" || fail "$name" "exit $rc"
name="demo.sh installed its build dependencies, protobuf included"
grep -q '^== installing build dependencies: .*libprotobuf-dev' "$work/demo.out" && pass "$name" ||
  fail "$name" "no install line naming libprotobuf-dev"
name="demo: the default policy patches /docker top-down"
grep -qE 'action=patch .*required=252 mems-before=0,8 mems-after=0,8,252 cgroup=/docker/3f2a9c1d' "$work/demo.out" &&
  grep -qE '^   /sys/fs/cgroup/cpuset/docker +0,8,252$' "$work/demo.out" && pass "$name" ||
  fail "$name" "no patch line with mems-after=0,8,252, or /docker not 0,8,252 after"
name="demo: missing-node = refuse refuses with our line and exit 1"
grep -qF 'gpu-numa-hook: container 3f2a9c1d: refusing start: GPU /dev/nvidia3 (0035:04:00.0) needs NUMA node 252 but cgroup /docker/3f2a9c1d allows only 0,8 (policy missing-node=refuse)' "$work/demo.out" &&
  grep -qF 'exit code: 1 (runc aborts the start' "$work/demo.out" && pass "$name" ||
  fail "$name" "no refusal line, or the exit code is not 1"

echo "== the test command's build: every native target configures with the build list alone"
rc=0
chroot "$root" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root LANG=C.UTF-8 \
  bash -c 'cd /src/gpu-numa-hook && cmake -S . -B build-all -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo' \
  >"$work/configure.out" 2>&1 || rc=$?
name="the full native configure succeeds with only cmake/debian-build-deps.txt installed"
if [ "$rc" = 0 ]; then
  pass "$name"
else
  grep -E 'Could NOT find|CMake Error' "$work/configure.out" | sed -n '1,5s/^/   | /p'
  fail "$name" "cmake exit $rc"
fi
# lld from the list: the hook's start-up code laid out together (cmake/hot-text.cmake), not the
# slower fallback that configure warns about.
name="the hook is linked with its start-up code together (lld from the build list)"
if [ "$rc" = 0 ] && ! grep -q 'without hot-text ordering' "$work/configure.out" &&
  grep -q 'hot_symbols.txt' "$root/src/gpu-numa-hook/build-all/build.ninja"; then
  pass "$name"
else
  grep -A3 'without hot-text ordering' "$work/configure.out" | sed -n '1,4s/^/   | /p'
  fail "$name" "configure fell back to the default link"
fi
# The configure must have reached the NRI plugin and the tests, not skipped them for a missing part.
name="the configure generated the NRI plugin and the test targets"
ninja_file=$root/src/gpu-numa-hook/build-all/build.ninja
if [ -f "$ninja_file" ] && grep -q 'gpu-numa-nri' "$ninja_file" && grep -q 'nri_unit_tests' "$ninja_file"; then
  pass "$name"
else
  fail "$name" "build.ninja lacks gpu-numa-nri or the unit tests"
fi

finish
