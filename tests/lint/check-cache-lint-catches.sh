#!/usr/bin/env bash
# The cache-write lint sees what it looks for: run on tests/lint/fixtures/cache-writes-bad.sh it
# must fail and name exactly the lines marked "expect" there, no more and no fewer.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
fixture=$here/fixtures/cache-writes-bad.sh
rc=0
out=$(bash "$here/check-cache-writes.sh" "$fixture") || rc=$?
[ "$rc" = 1 ] || { echo "FAIL: the lint exited $rc on $fixture, not 1:"; echo "$out"; exit 1; }
want=$(grep -n '# expect$' "$fixture" | cut -d: -f1 | sort -un | paste -sd' ')
got=$(sed -nE "s|^FAIL: $fixture:([0-9]+):.*|\1|p" <<<"$out" | sort -un | paste -sd' ')
if [ "$want" != "$got" ]; then
	echo "FAIL: the lint named lines [$got] of $fixture, the marked ones are [$want]:"
	echo "$out"
	exit 1
fi
echo "ok: the lint named each of the $(wc -w <<<"$want") marked writes (lines $want) and nothing else"
