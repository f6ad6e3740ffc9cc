#!/usr/bin/env bash
# gpu-numa-hook builds no standard stream before main: every container start runs it, and hook mode
# never writes to std::cout/cerr (hook/cli/lazy_standard_streams.h says why and what it cost).
#   check-startup-streams.sh NM OBJDUMP HOOK [CONTROL]
# Looks at each static constructor (_GLOBAL__sub_I_*) of HOOK for a call to std::ios_base::Init's
# constructor. CONTROL, a binary that includes <iostream> as usual (gpu-numa-nri), must show one:
# that proves the method sees what it looks for on this toolchain.
set -euo pipefail
nm_tool=$1 objdump_tool=$2 hook=$3 control=${4:-}
init_sym=_ZNSt8ios_base4InitC1Ev

# ctors_calling_init BINARY: the static constructors of BINARY that call std::ios_base::Init::Init
ctors_calling_init() {
  local sym
  for sym in $("$nm_tool" "$1" | awk '$3 ~ /^_GLOBAL__sub_I_/ { print $3 }'); do
    if grep -qE "<$init_sym(@plt|\+0x[0-9a-f]+)?>" <<<"$("$objdump_tool" -d --no-show-raw-insn --disassemble="$sym" "$1")"; then
      echo "$sym"
    fi
  done
}

n_ctors=$("$nm_tool" "$hook" | awk '$3 ~ /^_GLOBAL__sub_I_/' | wc -l)
found=$(ctors_calling_init "$hook")
if [ -n "$found" ]; then
  echo "FAIL: $(basename "$hook") builds the standard streams before main, in: $(echo "$found" | tr '\n' ' ')"
  echo "      (a file includes <iostream>, or CLI11 before cli/lazy_standard_streams.h)"
  exit 1
fi
echo "ok: none of $(basename "$hook")'s $n_ctors static constructors calls std::ios_base::Init"
if [ -n "$control" ]; then
  c=$(ctors_calling_init "$control")
  if [ -z "$c" ]; then
    echo "FAIL: the control $(basename "$control") shows no std::ios_base::Init call either: the check cannot see one here"
    exit 1
  fi
  echo "ok: the control $(basename "$control") calls it from $(grep -c . <<<"$c") static constructors, $(sed -n 1p <<<"$c") the first"
else
  echo "NOTE: no control binary given (gpu-numa-nri not built): the method itself is not proven in this tree"
fi
