#!/usr/bin/env bash
# tests/support/cache.sh as parallel tests use it, on a cache root of this test's own (empty):
#  - ten readers started at once on one empty entry: one fill, ten answers naming the whole entry;
#  - a filler that fails leaves no entry and no partial folder, and says so;
#  - a filler killed half-way (SIGKILL, as a timed-out test) leaves nothing stamped: the next
#    reader fills the entry anew instead of taking half of it;
#  - a changed key builds the entry again; an unchanged one is taken without the lock;
#  - a reader waiting on a filler waits for it and takes its entry, never deleting it.
# Fillers are driven by files they create (started, go), never by a clock.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=cache.sh
. "$here/cache.sh"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export GNH_CACHE_ROOT=$work/root
bad=0
fail() { echo "FAIL: $*"; bad=$((bad + 1)); }
pass() { echo "PASS: $*"; }
entry=$(cache_dir test)/tree

# A filler that counts its runs, waits for $work/go when asked, then writes a tree of 200 files.
# shellcheck disable=SC2016 # the filler's own $1 $2
filler='echo x >>"$1/runs"; touch "$1/started.$$"; while [ -n "${WAIT_GO:-}" ] && [ ! -e "$1/go" ]; do sleep 0.05; done
	for i in $(seq 200); do echo "$i" >"$2/f$i"; done'

# ten at once
for i in $(seq 10); do
	(WAIT_GO=1 cache_fill "$entry" k1 bash -ec "$filler" fill "$work" >"$work/out.$i" 2>&1; echo $? >"$work/rc.$i") &
done
until compgen -G "$work/started.*" >/dev/null; do sleep 0.05; done
touch "$work/go"
wait
runs=$(wc -l <"$work/runs")
answers=$(cat "$work"/out.* | sort | uniq -c | awk '{print $1 " x " $2}')
rcs=$(cat "$work"/rc.* | sort | uniq -c | awk '{print $1 " x rc " $2}')
if [ "$runs" = 1 ] && [ "$answers" = "10 x $entry" ] && [ "$rcs" = "10 x rc 0" ] && [ "$(ls "$entry" | wc -l)" = 201 ] &&
	[ "$(cat "$entry/complete")" = k1 ]; then
	pass "ten readers at once on an empty entry: 1 fill, ten answers naming it, 200 files and its stamp"
else
	fail "ten at once: $runs fill(s), answers [$answers], [$rcs], $(ls "$entry" 2>/dev/null | wc -l) entries in it"
fi
leftovers() { find "$(dirname "$entry")" -maxdepth 1 -name '*.part.*' -o -maxdepth 1 -name '*.old.*'; }
[ -z "$(leftovers)" ] || fail "partial folders left: $(leftovers)"

# an unchanged key is taken without the lock: it answers while another holds the lock
exec 8>>"$entry.lock"
flock 8
if out=$(GNH_CACHE_WAIT=1 cache_fill "$entry" k1 false) && [ "$out" = "$entry" ]; then
	pass "a whole entry of the same key is taken without waiting for the lock"
else fail "a whole entry was not taken while its lock was held: '$out'"; fi
flock -u 8

# a failing filler
bad_entry=$(cache_dir test)/bad
rc=0
err=$(cache_fill "$bad_entry" k bash -ec 'echo partial >"$1/f"; false; echo after' fill 2>&1 >/dev/null) || rc=$?
if [ "$rc" = 1 ] && [ ! -e "$bad_entry" ] && [ -z "$(leftovers)" ] && [ "$err" = "cache: filling $bad_entry failed (exit 1)" ]; then
	pass "a failing filler (set -e holds in it) leaves no entry, no partial folder, and says: $err"
else fail "failing filler: rc $rc, entry $(ls -d "$bad_entry" 2>/dev/null), leftovers '$(leftovers)', said '$err'"; fi

# a filler killed half-way, then a reader that waited for it
killed=$(cache_dir test)/killed
rm -f "$work"/started.* "$work/go" "$work/runs"
# its own process group, killed whole, lock holder and filler alike (as a test's timeout kills it)
# shellcheck disable=SC2016
WAIT_GO=1 setsid bash -c '. "$1"; cache_fill "$2" k bash -ec "$3" fill "$4"' _ "$here/cache.sh" "$killed" "$filler" "$work" \
	>/dev/null 2>&1 &
group=$!
disown "$group"
until compgen -G "$work/started.*" >/dev/null; do sleep 0.05; done
(cache_fill "$killed" k bash -ec "$filler" fill "$work" >"$work/waiter.out" 2>&1; echo $? >"$work/waiter.rc") &
waiter=$!
kill -KILL -- "-$group"
wait "$waiter"
if [ "$(cat "$work/waiter.rc")" = 0 ] && [ "$(cat "$work/waiter.out")" = "$killed" ] && [ "$(wc -l <"$work/runs")" = 2 ] &&
	[ "$(ls "$killed" | wc -l)" = 201 ]; then
	pass "a filler killed half-way left nothing stamped: the reader waiting on it filled the entry anew (2 fills, 200 files)"
else
	fail "killed filler: waiter rc $(cat "$work/waiter.rc"), said '$(cat "$work/waiter.out")', $(wc -l <"$work/runs") fill(s), $(ls "$killed" | wc -l) entries"
fi
# the killed filler's folder may stay (nobody could remove it): never taken, and named as partial
find "$(dirname "$entry")" -maxdepth 1 -name '*.part.*' -exec rm -rf {} +

# a changed key builds it again
cache_fill "$entry" k2 bash -ec 'echo two >"$1/v"' fill >/dev/null
if [ "$(cat "$entry/complete")" = k2 ] && [ "$(cat "$entry/v")" = two ] && [ ! -e "$entry/f1" ] && [ -z "$(leftovers)" ]; then
	pass "a changed key replaces the entry whole (the old files gone, no folder left aside)"
else fail "changed key: stamp $(cat "$entry/complete"), $(ls "$entry" | wc -l) entries, leftovers '$(leftovers)'"; fi

[ "$bad" = 0 ] || { echo "$bad failure(s)"; exit 1; }
echo "PASS: tests/support/cache.sh fills each entry once, whole, under its lock"
