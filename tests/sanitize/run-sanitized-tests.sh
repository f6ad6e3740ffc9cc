#!/bin/bash
# Builds the unit tests, the fixture tests and the binary with AddressSanitizer and
# UndefinedBehaviorSanitizer (-DGNH_SANITIZE=ON, its own tree build-asan) and runs them.
# Any sanitizer report aborts the program it is in (-fno-sanitize-recover=all), so a report is a
# failed test. Exits non-zero on any failure.
#   tests/sanitize/run-sanitized-tests.sh [BUILD_DIR]   (default: <repo>/build-asan)
set -euo pipefail
repo=$(cd "$(dirname "$0")/../.." && pwd)
build=${1:-$repo/build-asan}
jobs=${GNH_JOBS:-2}

cmake -S "$repo" -B "$build" -DCMAKE_BUILD_TYPE=Debug -DGNH_SANITIZE=ON -DGNH_BUILD_TESTS=ON >/dev/null
nice -n 10 cmake --build "$build" -j"$jobs" --target unit_tests host_unit_tests fixture_tests gpu-numa-hook

# halt_on_error: the first report fails the run. The hook binary confines itself with seccomp
# (docs/internals/sandbox.md); in this build its filter also lets LeakSanitizer's end-of-run scan work.
export ASAN_OPTIONS=${ASAN_OPTIONS:-halt_on_error=1:detect_stack_use_after_return=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-halt_on_error=1:print_stacktrace=1}
cd "$build"
# Names are prefixed "unit:" and "fixture:" by doctest_discover_tests; anchored so other suites
# with "unit" in their name (the systemd units check) stay out.
ctest -R "^(unit|unit \(host\)|fixture):" --output-on-failure -j"$jobs" --timeout 300
echo "sanitized unit and fixture tests passed"
