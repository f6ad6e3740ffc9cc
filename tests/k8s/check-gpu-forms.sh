#!/usr/bin/env bash
# The NRI side of the GPU forms table (tests/k8s/admission/pods.yaml, whose policy side
# check-admission.sh judges): gpu-numa-nri's own CreateContainer decision, run by nri_view on each
# view of each row (what the runtime shows NRI once the part named in `by` has acted), must add the
# hook to at least one container of every `gpu: true` pod, under every view, and to no container
# of a `gpu: false` pod. So the policy (fail-closed) and the plugin agree on which pods are GPU pods.
#   tests/k8s/check-gpu-forms.sh NRI_VIEW [REPO_ROOT]
set -euo pipefail
view=$1
repo=${2:-$(cd "$(dirname "$0")/../.." && pwd)}
table=$repo/tests/k8s/admission/pods.yaml
bad=0
fail() { echo "FAIL: $*"; bad=$((bad + 1)); }

# CASE GPU per row of the table, and the table as JSON for nri_view
rows=$(python3 -c 'import sys, yaml
for c in yaml.safe_load(open(sys.argv[1])):
    if "gpu" in c: print(c["case"], str(c["gpu"]).lower(), len(c.get("nri") or []))' "$table")
out=$(python3 -c 'import json, sys, yaml; json.dump(yaml.safe_load(open(sys.argv[1])), sys.stdout)' "$table" | "$view") ||
	{ echo "FAIL: nri_view could not read the table"; exit 1; }
printf '  %s\n' "${out//$'\n'/$'\n  '}"
gpu=0 other=0 views=0
while read -r case want n; do
	[ "$n" -gt 0 ] || { fail "$case: a row of the table without an nri view"; continue; }
	for ((i = 0; i < n; i++)); do
		views=$((views + 1))
		got=$(awk -v c="$case" -v i="$i" '$1 == c && $2 == i { print $3 }' <<<"$out")
		if [ "$want" = true ] && { [ -z "$got" ] || [ "$got" = - ]; }; then
			fail "$case (view $i): a GPU form, but gpu-numa-nri adds its hook to no container (${got:-no line})"
		elif [ "$want" = false ] && [ "$got" != - ]; then
			fail "$case (view $i): not a GPU form, but gpu-numa-nri adds its hook to: ${got:-no line}"
		fi
	done
	[ "$want" = true ] && gpu=$((gpu + 1)) || other=$((other + 1))
done <<<"$rows"
[ "$(wc -l <<<"$out")" = "$views" ] || fail "nri_view printed $(wc -l <<<"$out") lines for $views views"
[ "$gpu" -gt 10 ] && [ "$other" -gt 3 ] || fail "the table has $gpu GPU rows and $other others: too few to mean anything"
# Canary: the same check on a table whose plain pod claims a GPU must fail, on that row alone
if [ -z "${GNH_GPU_FORMS_CANARY:-}" ]; then
	tmp=$(mktemp -d)
	trap 'rm -rf "$tmp"' EXIT
	mkdir -p "$tmp/tests/k8s/admission"
	python3 -c 'import sys, yaml
t = yaml.safe_load(open(sys.argv[1]))
for c in t:
    if c["case"] == "no-gpu": c["gpu"] = True
yaml.safe_dump(t, open(sys.argv[2], "w"))' "$table" "$tmp/tests/k8s/admission/pods.yaml"
	canary=$(GNH_GPU_FORMS_CANARY=1 bash "$0" "$view" "$tmp" 2>&1) && fail "canary: a non-GPU pod marked gpu: true passed"
	if [ "$(grep -c '^FAIL' <<<"$canary")" = 1 ] && grep -q '^FAIL: no-gpu (view 0): a GPU form, but gpu-numa-nri adds its hook to no container (-)' <<<"$canary"; then
		echo "PASS: canary: the plain pod marked gpu: true fails, on its row alone"
	else fail "canary: $(grep '^FAIL' <<<"$canary" | tr '\n' ' ')"; fi
fi
[ "$bad" = 0 ] || { echo "$bad failure(s)"; exit 1; }
echo "PASS: gpu-numa-nri hooks a container of each of the table's $gpu GPU forms under each of their views, and none of its $other other rows ($views views)"
