#!/bin/bash
# Builds the libFuzzer targets (the hardening tree, tests/support/hardening-tree.sh: clang, Debug,
# ASan+UBSan, shared with the sanitized tests) and runs each one bounded on a scratch copy of its
# seed corpus (tests/fuzz/corpus/<target>, left unchanged).
# Prints executions per target; exits non-zero when any target crashes, leaks, times out or
# reports undefined behaviour (the reproducer is kept under the scratch directory, printed).
#   tests/fuzz/run-fuzzers.sh [SECONDS_PER_TARGET]   (default 20)
set -uo pipefail
seconds=${1:-20}
repo=$(cd "$(dirname "$0")/../.." && pwd)
jobs=${GNH_JOBS:-2}
# shellcheck source=../support/hardening-tree.sh
. "$repo/tests/support/hardening-tree.sh"
build=$(hardening_tree "$repo" "${GNH_FUZZ_BUILD:-}") || exit 1
hardening_build "$build" fuzz_targets || exit 1

work=$(mktemp -d /tmp/gnh-fuzz-XXXXXX)
# One target: its result line (and, on failure, the report's first lines) in $work/<target>/result.
fuzz_one() {
  local t=$1 corpus=$2 bin="$build/tests/fuzz/$1" rc execs
  mkdir -p "$work/$t/corpus" "$work/$t/artifacts"
  if [ ! -x "$bin" ]; then echo "$t: not built" >"$work/$t/result"; return 1; fi
  cp -r "$corpus". "$work/$t/corpus/"
  # -timeout: one input may take 5 s at most (a hang is a finding); -rss_limit_mb: no blow-up.
  nice -n 10 "$bin" "$work/$t/corpus" -max_total_time="$seconds" -rss_limit_mb=2048 -timeout=5 \
    -artifact_prefix="$work/$t/artifacts/" -print_final_stats=1 >"$work/$t/log" 2>&1
  rc=$?
  execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$work/$t/log" | tail -1)
  if [ $rc -eq 0 ]; then
    printf '%-20s %12s ok\n' "$t" "${execs:-?}" >"$work/$t/result"
  else
    { printf '%-20s %12s FAILED (exit %d): see %s\n' "$t" "${execs:-?}" "$rc" "$work/$t/log"
      grep -m3 -E 'ERROR|SUMMARY|runtime error|Test unit written' "$work/$t/log" | sed 's/^/    /'; } >"$work/$t/result"
  fi
  return $rc
}
# Targets run $jobs at a time (each is one process on one core); results print in name order.
targets=()
for corpus in "$repo"/tests/fuzz/corpus/*/; do
  t=$(basename "$corpus")
  targets+=("$t")
  fuzz_one "$t" "$corpus" &
  while (($(jobs -rp | wc -l) >= jobs)); do wait -n; done
done
failed=0
for pid in $(jobs -p); do wait "$pid"; done
printf '%-20s %12s %s\n' target executions result
for t in "${targets[@]}"; do
  cat "$work/$t/result"
  grep -q ' ok$' "$work/$t/result" || failed=1
done
if [ $failed -eq 0 ]; then rm -rf "$work"; echo "all fuzz targets ran clean"; fi
exit $failed
