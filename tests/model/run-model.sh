#!/usr/bin/env bash
# Model-checks the cgroup v1 patch protocol (patch_protocol.pml) with spin: the real protocol must
# pass every property; each deliberately broken variant, and each stronger property the real
# protocol is known not to meet, must produce a counterexample. README.md says what and why.
#
#   run-model.sh            the checks below (about 1.5 minutes on 2 cores, under 1 GB)
#   run-model.sh --three    also the real protocol with three container starts (about 30 M states,
#                           1.7 GB, 1.5 min on its own) and with the kernel allowed 5 hotplug
#                           events (16.6 M states, 20 s)
#
# Works in a temporary directory (pan.c, pan, trails never land in the source tree). Ends with the
# line "N passed, M failed"; exits 0 only if every expectation held, 2 if spin or gcc is missing.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
model=patch_protocol.pml

three=0
for a in "$@"; do
  case $a in
    --three) three=1 ;;
    *) echo "usage: run-model.sh [--three]" >&2; exit 2 ;;
  esac
done

for tool in spin gcc; do
  if ! command -v "$tool" >/dev/null 2>&1; then
    echo "run-model.sh: '$tool' is not installed; tests/run-all.sh installs it (apt-get install spin gcc)" >&2
    exit 2
  fi
done

work=$(mktemp -d "${TMPDIR:-/tmp}/gnh-model.XXXXXX")
trap 'rm -rf "$work"' EXIT
passed=0
failed=0

now() { date +%s.%N; }
secs() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.1f", b - a }'; }

# The narration of a counterexample: the model's printf lines, node sets and cgroups named. After
# an invalid end state, also the processes that were left waiting.
narrate() {  # dir, spin defines, 1 for an invalid end state
  local replay
  replay=$(cd "$1" && spin $2 -t "$model" 2>&1)
  sed -E -e 's/^ +//' \
    -e 's/<0>/{}/g; s/<1>/{0}/g; s/<2>/{1}/g; s/<3>/{0,1}/g; s/<4>/{2}/g; s/<5>/{0,2}/g; s/<6>/{1,2}/g; s/<7>/{0,1,2}/g' \
    -e 's#@0#/#g; s#@1#/docker#g; s#@2#/docker/A#g; s#@3#/docker/B#g; s#@4#/docker/C#g' \
    -e 's/: 0$/: ok/; s/: 1$/: EINVAL/; s/: 2$/: EBUSY/; s/: 3$/: EACCES/' <<<"$replay" |
    grep -E '^([ABCF]: |kernel: |spin: .*(Error|failed assertion)|.*START OF CYCLE)' |
    sed -e 's/^/      | /' -e '40q'
  if [ "${3:-0}" = 1 ]; then
    sed -n '/trail ends/,$p' <<<"$replay" | grep -E 'proc +[0-9]+ \(' | grep -v 'valid end state' |
      sed -E 's/.*proc +[0-9]+ \(([A-Za-z]+):[0-9]+\) [^:]+:([0-9]+) .*/      | (end) \1 is stuck at patch_protocol.pml:\2/'
  fi
}

# check NAME EXPECT(pass|fail) "SPIN_DEFINES" "CC_FLAGS" "PAN_FLAGS". The full searches build pan
# with -O2; the counterexample hunts are tiny and build faster with -O0.
check() {
  local name=$1 expect=$2 defs=$3 ccflags=$4 panflags=$5
  local dir="$work/$(echo "$name" | tr -c 'a-zA-Z0-9\n' '_')"
  mkdir -p "$dir" && cp "$here/$model" "$dir/"
  echo "== $name"
  echo "   spin${defs:+ $defs} -a; gcc${ccflags:+ $ccflags}; pan $panflags; expected: $([ "$expect" = pass ] && echo '0 errors' || echo 'a counterexample')"
  local t0; t0=$(now)
  if ! (cd "$dir" && spin $defs -a "$model" >spin.log 2>&1 && gcc $([ "$expect" = pass ] && echo -O2 || echo -O0) -w $ccflags -o pan pan.c >cc.log 2>&1); then
    cat "$dir/spin.log" "$dir/cc.log" 2>/dev/null | tail -n 20 | sed 's/^/   /'
    echo "   FAIL: the model did not build"
    failed=$((failed + 1))
    return
  fi
  (cd "$dir" && ./pan $panflags >pan.out 2>&1)
  local t1; t1=$(now)
  local out="$dir/pan.out"
  local errors states trans depth elapsed
  errors=$(grep -o 'errors: [0-9]*' "$out" | tail -n 1 | awk '{print $2}')
  states=$(awk '/states, stored/ {print $1; exit}' "$out")
  trans=$(awk '/transitions \(= / {print $1; exit}' "$out")
  depth=$(grep -o 'depth reached [0-9]*' "$out" | tail -n 1 | awk '{print $3}')
  elapsed=$(awk '/pan: elapsed time/ {print $4; exit}' "$out")
  echo "   states stored ${states:-?}, transitions ${trans:-?}, depth ${depth:-?}, pan ${elapsed:-?} s, wall $(secs "$t0" "$t1") s with the build"
  if [ -z "$errors" ]; then
    tail -n 20 "$out" | sed 's/^/   /'
    echo "   FAIL: pan gave no verdict"
    failed=$((failed + 1))
    return
  fi
  local truncated=0
  grep -q 'max search depth too small\|Search not completed' "$out" && [ "$errors" = 0 ] && truncated=1
  if [ "$expect" = pass ]; then
    if [ "$errors" = 0 ] && [ "$truncated" = 0 ]; then
      echo "   PASS: 0 errors, full search"
      passed=$((passed + 1))
    else
      grep -m1 '^pan:1:' "$out" | sed 's/^/   /'
      [ "$truncated" = 1 ] && echo "   the search was truncated"
      narrate "$dir" "$defs"
      echo "   FAIL: expected 0 errors, got $errors"
      failed=$((failed + 1))
    fi
  else
    if [ "$errors" -gt 0 ]; then
      echo "   PASS: counterexample as expected: $(grep -m1 '^pan:1:' "$out" | sed 's/^pan:1: //')"
      # A short trail to show (safety only): pan -i shortens it by iterative deepening.
      case " $panflags " in
        *" -a "*) ;;
        *) (cd "$dir" && ./pan $panflags -i >pan-short.out 2>&1) ;;
      esac
      narrate "$dir" "$defs" "$(grep -q '^pan:1: invalid end state' "$out" && echo 1)"
      passed=$((passed + 1))
    else
      echo "   FAIL: expected a counterexample, but this variant passed: the model no longer catches it"
      failed=$((failed + 1))
    fi
  fi
}

safe="-DSAFETY"
deep="-m100000"

echo "spin model of the patch protocol: $here/$model"
echo
echo "--- the real protocol: must pass"
check "real protocol, safety: P1 P2 P3 P5 P6 P7 (2 starts, check --fix, kernel <= 3 hotplug events)" \
  pass "" "$safe" "$deep"
check "real protocol, liveness P4 under weak fairness, kernel hot(un)plugging forever" \
  pass "-DLIVENESS -DKERNEL_FOREVER" "" "-a -f $deep"
check "real protocol, liveness P4 without fairness, kernel <= 3 hotplug events" \
  pass "-DLIVENESS" "" "-a $deep"
if [ "$three" = 1 ]; then
  check "real protocol, safety with the kernel allowed 5 hotplug events" \
    pass "-DKEVENTS=5" "$safe" "$deep"
  check "real protocol, safety with 3 starts (COLLAPSE compression)" \
    pass "-DNHOOKS=3" "$safe -DCOLLAPSE" "$deep -w26"
fi

echo
echo "--- broken protocols: each must be caught"
check "BOTTOM_UP: the container written before the slice (P5)" fail "-DBOTTOM_UP" "$safe -DREACH" "$deep"
check "NO_LOCK: no flock (P1)" fail "-DNO_LOCK" "$safe -DREACH" "$deep"
check "NO_REREAD: plan from the chain read before the lock (P1)" fail "-DNO_REREAD" "$safe -DREACH" "$deep"
check "NO_VERIFY: write errors ignored, nothing read back (P2)" fail "-DNO_VERIFY" "$safe -DREACH" "$deep"
check "LOCK_LEAK: the lock kept after a failed write (P3, invalid end state)" fail "-DLOCK_LEAK" "$safe -DREACH" "$deep"
check "NO_RETRY: no re-plan after EINVAL, whole-value read-back, as before the model's finding (P7)" fail "-DNO_RETRY" "$safe -DREACH" "$deep"

echo
echo "--- what the real protocol does not promise: each must fail (README says why)"
check "STRICT_START: P2 without its exception (the kernel offlines after the decision)" \
  fail "-DSTRICT_START" "$safe -DREACH" "$deep"
check "STRICT_AVAIL: no refusal while its own node stays online (two hotplug events of another node; kernel <= 5 events)" \
  fail "-DSTRICT_AVAIL -DKEVENTS=5" "$safe -DREACH" "$deep"
check "liveness P4 without fairness, kernel hot(un)plugging forever (an unfair scheduler starves the others)" \
  fail "-DLIVENESS -DKERNEL_FOREVER" "" "-a $deep"

echo
echo "$passed passed, $failed failed"
[ "$failed" = 0 ]
