#!/bin/bash
# Builds the unit tests, the fixture tests and the binary with AddressSanitizer and
# UndefinedBehaviorSanitizer (the hardening tree, tests/support/hardening-tree.sh: clang, Debug,
# shared with the fuzz targets) and runs them. Any sanitizer report aborts the program it is in
# (-fno-sanitize-recover=all), so a report is a failed test. Exits non-zero on any failure.
#   tests/sanitize/run-sanitized-tests.sh [BUILD_DIR]   (default: <repo>/build-hardening)
set -euo pipefail
repo=$(cd "$(dirname "$0")/../.." && pwd)
jobs=${GNH_JOBS:-2}
# shellcheck source=../support/hardening-tree.sh
. "$repo/tests/support/hardening-tree.sh"
build=$(hardening_tree "$repo" "${1:-}")
hardening_build "$build" unit_tests host_unit_tests fixture_tests gpu-numa-hook

# halt_on_error: the first report fails the run. The hook binary confines itself with seccomp
# (docs/internals/sandbox.md); in this build its filter also lets LeakSanitizer's end-of-run scan work.
export ASAN_OPTIONS=${ASAN_OPTIONS:-halt_on_error=1:detect_stack_use_after_return=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-halt_on_error=1:print_stacktrace=1}
cd "$build"
# Names are prefixed "unit:" and "fixture:" by doctest_discover_tests; anchored so other suites
# with "unit" in their name (the systemd units check) stay out.
# A per-case cap only catches a hang: no case's own waits exceed 120 s (tests/support's
# wait_for_line and wait_hook_binary), so 600 s is that plus a sanitized binary on a loaded
# machine; GNH_CASE_TIMEOUT overrides it. The stage's own cap is the ctest TIMEOUT of the
# "hardening: ASan+UBSan" test (tests/CMakeLists.txt), sized for the sanitized build too.
ctest -R "^(unit|unit \(host\)|fixture):" --output-on-failure -j"$jobs" --timeout "${GNH_CASE_TIMEOUT:-600}"
echo "sanitized unit and fixture tests passed"
