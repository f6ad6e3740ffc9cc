#!/bin/bash
# Builds the libFuzzer targets (clang, -DGNH_FUZZ=ON, its own tree build-fuzz) and runs each one
# bounded on a scratch copy of its seed corpus (tests/fuzz/corpus/<target>, left unchanged).
# Prints executions per target; exits non-zero when any target crashes, leaks, times out or
# reports undefined behaviour (the reproducer is kept under the scratch directory, printed).
#   tests/fuzz/run-fuzzers.sh [SECONDS_PER_TARGET]   (default 20)
set -uo pipefail
seconds=${1:-20}
repo=$(cd "$(dirname "$0")/../.." && pwd)
build=${GNH_FUZZ_BUILD:-$repo/build-fuzz}
jobs=${GNH_JOBS:-2}

CC=clang CXX=clang++ cmake -S "$repo" -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DGNH_FUZZ=ON \
  -DGNH_BUILD_TESTS=ON >/dev/null || exit 1
nice -n 10 cmake --build "$build" -j"$jobs" --target fuzz_targets || exit 1

work=$(mktemp -d /tmp/gnh-fuzz-XXXXXX)
failed=0
printf '%-20s %12s %s\n' target executions result
for corpus in "$repo"/tests/fuzz/corpus/*/; do
  t=$(basename "$corpus")
  bin="$build/tests/fuzz/$t"
  [ -x "$bin" ] || { echo "$t: not built"; failed=1; continue; }
  mkdir -p "$work/$t/corpus" "$work/$t/artifacts"
  cp -r "$corpus". "$work/$t/corpus/"
  # -timeout: one input may take 5 s at most (a hang is a finding); -rss_limit_mb: no blow-up.
  nice -n 10 "$bin" "$work/$t/corpus" -max_total_time="$seconds" -rss_limit_mb=2048 -timeout=5 \
    -artifact_prefix="$work/$t/artifacts/" -print_final_stats=1 >"$work/$t/log" 2>&1
  rc=$?
  execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$work/$t/log" | tail -1)
  if [ $rc -eq 0 ]; then
    printf '%-20s %12s ok\n' "$t" "${execs:-?}"
  else
    failed=1
    printf '%-20s %12s FAILED (exit %d): see %s\n' "$t" "${execs:-?}" "$rc" "$work/$t/log"
    grep -m3 -E 'ERROR|SUMMARY|runtime error|Test unit written' "$work/$t/log" | sed 's/^/    /'
  fi
done
if [ $failed -eq 0 ]; then rm -rf "$work"; echo "all fuzz targets ran clean"; fi
exit $failed
