#!/usr/bin/env bash
# The require-plugin component's MutatingAdmissionPolicy as users apply it (the example-fail-closed
# overlay rendered by trixie's kustomize), evaluated by Kubernetes' own MutatingAdmissionPolicy
# admission plugin (k8s.io/apiserver 0.36.4 from Debian sid's Go source packages, built offline
# into tests/k8s/admission's evaluator by fetch-k8s-admission.sh, cached outside the clone) on
# the pods of tests/k8s/admission/pods.yaml: every way a pod gets an NVIDIA GPU comes out
# annotated, and every container of it resolves, as NRI reads the annotations, to a list naming
# gpu-numa; pods without a GPU, our own and kube-system's come out untouched; annotations a pod
# already has keep their plugins. Each case's printed outcome is compared with the one below.
# Canaries: a policy that misses a GPU form, a misspelled field and CEL errors must fail here.
#   tests/k8s/check-admission.sh [REPO_ROOT]
set -euo pipefail
repo=${1:-$(cd "$(dirname "$0")/../.." && pwd)}
here=$repo/tests/k8s
bad=0
fail() { echo "FAIL: $*"; bad=$((bad + 1)); }

tools=$(bash "$here/fetch-k8s-tools.sh") || { echo "FAIL: fetch-k8s-tools.sh could not fetch kustomize (its reason above)"; exit 1; }
kustomize=$(sed -n '1s/ .*//p' <<<"$tools")
evaluator=$(bash "$here/fetch-k8s-admission.sh") ||
	{ echo "FAIL: fetch-k8s-admission.sh could not fetch or build the admission evaluator (its reason above)"; exit 1; }
echo "evaluator: $evaluator"
evaluate=${evaluator%% *}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

"$kustomize" build "$repo/examples/kubernetes/nri/overlays/example-fail-closed" >"$tmp/rendered.yaml" ||
	{ echo "FAIL: kustomize build of the example-fail-closed overlay failed"; exit 1; }

# What each case must come out as: CASE OUTCOME ANNOTATIONS RESOLVED (main.go says the format).
# Key K = required-plugins.noderesource.dev; "-" = no such annotation.
K=required-plugins.noderesource.dev
ours="$K=\"[\\\"gpu-numa\\\"]\""
expected() {
	cat <<-END
	gpu-limits annotated $ours main=[gpu-numa]
	gpu-requests-only annotated $ours main=[gpu-numa]
	gpu-time-sliced-renamed annotated $ours main=[gpu-numa]
	mig-1g.10gb-mixed annotated $ours main=[gpu-numa]
	mig-3g.40gb-shared annotated $ours main=[gpu-numa]
	init-container-gpu annotated $ours warmup=[gpu-numa] main=[gpu-numa]
	second-container-gpu annotated $ours proxy=[gpu-numa] main=[gpu-numa]
	nvidia-cdi-container-annotation annotated $ours main=[gpu-numa]
	nvidia-cdi-pod-annotation annotated $ours main=[gpu-numa]
	nvidia-cdi-plain-annotation annotated $ours main=[gpu-numa]
	cdi-annotation-nvidia-device annotated $ours main=[gpu-numa]
	env-visible-devices-all annotated $ours main=[gpu-numa]
	env-visible-devices-uuid-init annotated $ours prepare=[gpu-numa] main=[gpu-numa]
	env-visible-devices-value-from annotated $ours main=[gpu-numa]
	dra-claim annotated $ours main=[gpu-numa]
	no-gpu untouched - main=[]
	other-extended-resource untouched - main=[]
	cdi-annotation-other-vendor untouched - main=[]
	env-visible-devices-void untouched - main=[]
	env-visible-devices-none untouched - main=[]
	env-visible-devices-empty untouched - main=[]
	no-gpu-with-required-plugins untouched $K="[\"other\"]" main=[other]
	our-daemonset-pod untouched - install-hook=[] nri-plugin=[] check=[] nvml-refresh=[]
	our-namespace-by-name untouched - main=[]
	our-renamed-namespace-by-label untouched - main=[]
	our-plugin-label-elsewhere untouched - nri-plugin=[]
	kube-system-gpu untouched - main=[]
	kube-system-device-plugin untouched - nvidia-device-plugin-ctr=[]
	gpu-operator-device-plugin untouched - nvidia-device-plugin=[]
	openshift-gpu-operator-dcgm untouched - nvidia-dcgm-exporter=[]
	has-plain-flow-list annotated $K="[\"gpu-numa\", \"other\"]" main=[gpu-numa,other]
	has-plain-block-list annotated $K="[\"gpu-numa\", other, more]" main=[gpu-numa,other,more]
	has-plain-empty-list annotated $ours main=[gpu-numa]
	has-plain-ours untouched $K="[other, gpu-numa]" main=[other,gpu-numa]
	has-pod-scope annotated $ours $K/pod="[\"gpu-numa\", \"other\"]" main=[gpu-numa,other]
	has-container-scope-opt-out annotated $ours $K/container.main="[\"gpu-numa\"]" main=[gpu-numa] sidecar=[gpu-numa]
	has-every-scope annotated $K="[\"gpu-numa\", \"a\"]" $K/container.logger="[\"gpu-numa\"]" $K/container.main="[\"gpu-numa\", c]" $K/pod="[\"gpu-numa\", \"b\"]" main=[gpu-numa,c] logger=[gpu-numa] proxy=[gpu-numa,b]
	has-plain-not-a-list untouched $K="other" main=error
	END
}

# compare NAME OUTPUT: every case's line equal to its expected line, each reported.
compare() {
	local name=$1 out=$2 want got n=0 wrong=0
	while IFS= read -r want; do
		n=$((n + 1))
		got=$(awk -v c="${want%% *}" '$1 == c' <<<"$out")
		if [ "$got" != "$want" ]; then
			echo "  $name: case ${want%% *}: got '${got:-(no line)}', want '$want'"
			wrong=$((wrong + 1))
		fi
	done < <(expected)
	# nothing beyond the table: a case added to pods.yaml needs its expected line here
	if [ "$(wc -l <<<"$out")" != "$n" ]; then
		echo "  $name: $(wc -l <<<"$out") lines for $n expected cases"
		wrong=$((wrong + 1))
	fi
	return $((wrong > 0))
}

rc=0
out=$("$evaluate" "$tmp/rendered.yaml" "$here/admission/pods.yaml" 2>"$tmp/err") || rc=$?
[ "$rc" = 0 ] || fail "the evaluator exited $rc: $(tr '\n' ' ' <"$tmp/err")"
printf "  %s\n" "${out//$'\n'/$'\n  '}"
if compare policy "$out"; then
	echo "PASS: $(grep -c ' annotated ' <<<"$out") GPU pods annotated (every container resolves to a list naming gpu-numa), $(grep -c ' untouched ' <<<"$out") pods untouched, as expected"
else
	fail "the rendered policy's outcomes differ from the expected ones (above)"
fi

# The GPU forms table (the rows with `gpu`, whose NRI side check-gpu-forms.sh judges): the policy
# annotates exactly its GPU forms, whatever the expected lines above say.
forms=$(python3 -c 'import sys, yaml
for c in yaml.safe_load(open(sys.argv[1])):
    if "gpu" in c: print(c["case"], str(c["gpu"]).lower())' "$here/admission/pods.yaml")
nform=0
while read -r case gpu; do
	nform=$((nform + 1))
	got=$(awk -v c="$case" '$1 == c { print $2 }' <<<"$out")
	want=$([ "$gpu" = true ] && echo annotated || echo untouched)
	[ "$got" = "$want" ] || fail "GPU forms table: $case (gpu: $gpu) came out ${got:-missing}, not $want"
done <<<"$forms"
[ "$nform" -gt 10 ] && echo "PASS: the GPU forms table's $nform rows: each gpu: true pod annotated, each gpu: false pod untouched" ||
	fail "the GPU forms table has $nform rows"

# Canary: a policy that misses MIG devices must fail the comparison, on the MIG cases.
sed "s|r.startsWith('nvidia.com/gpu') \|\| r.startsWith('nvidia.com/mig-')|r.startsWith('nvidia.com/gpu')|" \
	"$tmp/rendered.yaml" >"$tmp/no-mig.yaml"
cmp -s "$tmp/rendered.yaml" "$tmp/no-mig.yaml" && fail "canary no-mig: the sed changed nothing"
out=$("$evaluate" "$tmp/no-mig.yaml" "$here/admission/pods.yaml" 2>&1) || true
diffs=$(compare no-mig "$out") && fail "canary no-mig: a policy without the MIG form passed the comparison"
if grep -q "case mig-1g.10gb-mixed: got 'mig-1g.10gb-mixed untouched" <<<"$diffs" &&
	[ "$(grep -c ': case ' <<<"$diffs")" = 2 ]; then
	echo "PASS: canary no-mig refused: its two MIG pods come out untouched"
else
	fail "canary no-mig: $(tr '\n' ' ' <<<"$diffs")"
fi
# Canary: a field the pods do not have fails at evaluation (the policy compiles: the object is
# not typed at compile time) and, failurePolicy Fail, denies the pods that reach it.
sed 's/c\.resources\.limits\.exists/c.resources.limit.exists/' "$tmp/rendered.yaml" >"$tmp/cel-field.yaml"
out=$("$evaluate" "$tmp/cel-field.yaml" "$here/admission/pods.yaml" 2>&1) || true
if ! compare cel-field "$out" >/dev/null && grep -q "^gpu-limits denied .*resulted in error: no such key: limit$" <<<"$out"; then
	echo "PASS: canary cel-field refused: gpu-limits denied (no such key: limit)"
else
	fail "canary cel-field: $(tr '\n' ' ' <<<"$out" | cut -c1-400)"
fi
# Canary: a misspelled policy field (strict decoding, as the API server's) and an unknown CEL
# function (the plugin's compiler, as at the policy's creation) stop the evaluator with their message.
sed 's/reinvocationPolicy:/reinvocationPolicyy:/' "$tmp/rendered.yaml" >"$tmp/misspelled.yaml"
sed "s|r.startsWith('nvidia.com/mig-')|r.startWith('nvidia.com/mig-')|" "$tmp/rendered.yaml" >"$tmp/cel-function.yaml"
for canary in misspelled:'unknown field "reinvocationPolicyy"' cel-function:"undeclared reference to 'startWith'"; do
	name=${canary%%:*} want=${canary#*:}
	rc=0
	out=$("$evaluate" "$tmp/$name.yaml" "$here/admission/pods.yaml" 2>&1) || rc=$?
	if [ "$rc" = 1 ] && grep -qF "$want" <<<"$out"; then
		echo "PASS: canary $name refused (exit 1: $(grep -m 1 -oF "$want" <<<"$out"))"
	else
		fail "canary $name: exit $rc: $(tr '\n' ' ' <<<"$out" | cut -c1-400)"
	fi
done

[ "$bad" = 0 ] || { echo "$bad failure(s)"; exit 1; }
echo "all admission checks passed"
