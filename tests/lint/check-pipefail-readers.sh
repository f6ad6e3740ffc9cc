#!/usr/bin/env bash
# In a script under `set -o pipefail`, a reader that leaves before its input ends (grep -q, head,
# awk's exit) can kill the writer with SIGPIPE and make the pipe "fail" although the reader found
# what it wanted: a flaky branch (seen: `dpkg --print-foreign-architectures | grep -qx arm64`
# failing 2 runs in 5). Use a here-string (`grep -q X <<<"$(cmd)"`), `sed -n 1p`, or `find -quit`.
# This check lists every such pipe in the tracked shell scripts that set pipefail, and fails on any.
set -euo pipefail
repo=$(cd "$(dirname "$0")/../.." && pwd)
cd "$repo"

scripts=()
sourced=()
while IFS= read -r f; do
  [ -f "$f" ] || continue
  first=$(head -c 200 "$f" | tr -d '\0' | sed -n 1p)
  case "$f:$first" in *.sh:* | *:'#!'*sh*) ;; *) continue ;; esac
  grep -q 'pipefail' "$f" || continue
  scripts+=("$f")
  # Libraries it sources run under its pipefail too.
  while IFS= read -r lib; do sourced+=("$(basename "$lib")"); done < <(
    sed -nE 's/^[[:space:]]*(source|\.)[[:space:]]+"?([^" ;]+)"?.*/\2/p' "$f")
done < <(git ls-files)
for name in "${sourced[@]}"; do
  while IFS= read -r f; do
    case " ${scripts[*]} " in *" $f "*) ;; *) scripts+=("$f") ;; esac
  done < <(git ls-files "*/$name")
done

bad=0
checked=0
for f in "${scripts[@]}"; do
  checked=$((checked + 1))
  # A pipe into an early-leaving reader: grep with -q (or -m), head, or an awk program that exits.
  while IFS= read -r hit; do
    echo "pipefail reader: $f:$hit"
    bad=$((bad + 1))
  done < <(grep -nE '\|[[:space:]]*(grep[[:space:]]+(-[A-Za-z]*[qm]|--quiet)|head([[:space:]]|$)|awk[^|]*exit)' "$f" |
    grep -vE '^[0-9]+:[[:space:]]*#' || true)
done
echo "checked $checked scripts that set pipefail; $bad early-leaving reader(s) in a pipe"
[ "$checked" -gt 5 ] || { echo "too few scripts found ($checked): is this a git checkout?"; exit 1; }
[ "$bad" = 0 ]
