# shellcheck shell=bash
# PASS/FAIL/SKIP lines and their count, for the shell suites that run real runtimes and engines
# (tests/runtime, tests/engine; sourced). A skip is loud, and under CI=true it is a failure: CI's
# machine must prove every case. TALLY_NAME names the suite in the closing "took N s" line.
PASSED=0
FAILED=0
SKIPPED=0
START_S=$SECONDS
pass() { echo "PASS: $1"; PASSED=$((PASSED + 1)); }
fail() { echo "FAIL: $1: $2"; FAILED=$((FAILED + 1)); }
# skip NAME REASON
skip() {
    if [ "${CI:-}" = "true" ]; then
        fail "$1" "CI=true and $2"
    else
        echo "SKIP: ***** $1: $2 *****"
        SKIPPED=$((SKIPPED + 1))
    fi
}
finish() {
    [ "$SKIPPED" -gt 0 ] && echo "SKIP: ***** $SKIPPED case group(s) skipped: not proven on this run *****"
    echo "${TALLY_NAME:+$TALLY_NAME }took $((SECONDS - START_S)) s"
    echo "$PASSED passed, $FAILED failed"
    [ "$FAILED" -eq 0 ]
    exit $?
}
# one_line: stdin as one line, whitespace squeezed, at most 700 characters (for FAIL details)
one_line() { tr '\n' ' ' | sed 's/[[:space:]]\+/ /g; s/^ //; s/ $//' | cut -c1-700; }
