# shellcheck shell=bash
# tests/crio/run-crio-tests.sh: every install undone (sourced by crio-cases.sh after crio stopped;
# hooks.d's was undone at the end of crio-cases-run.sh). The node's files must be byte for byte what they
# were before install, and CRI-O's effective configuration what it printed then.
OUT=$("$HOOK" install --runtime crio-runtime --uninstall 2>&1); RC=$?
OUT2=$("$HOOK" install --runtime crio-nri --uninstall 2>&1); RC2=$?
# /etc/crio/auth is CRI-O's own (made empty at its start for per-namespace pull secrets; no key moves it)
[ -z "$(ls -A /etc/crio/auth 2>/dev/null)" ] || fail "CRI-O's /etc/crio/auth" "not empty: $(ls -A /etc/crio/auth | one_line)"
DIFF=$(diff -r -x auth /etc/crio "$TMP/pristine-crio" 2>&1; diff -r "$HOOKS_D" "$TMP/pristine-hooks.d" 2>&1)
crio_effective >"$TMP/effective-after.json"
if [ "$RC" = 0 ] && [ "$RC2" = 0 ] && [ -z "$DIFF" ] && cmp -s "$TMP/effective-before.json" "$TMP/effective-after.json"; then
    pass "install --uninstall (crio, crio-runtime, crio-nri): /etc/crio and $HOOKS_D byte for byte as before install (diff -r), crio config as before"
else fail "undo" "rc $RC/$RC2: $(echo "$OUT $OUT2" | one_line) diff: $(echo "$DIFF" | one_line) config: $(diff <(jq -S . "$TMP/effective-before.json") <(jq -S . "$TMP/effective-after.json") | one_line)"; fi
