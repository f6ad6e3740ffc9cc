#!/usr/bin/env bash
# The monitoring component's alerts, as users apply them: examples/kubernetes/nri/overlays/monitoring
# rendered by kustomize (fetch-k8s-tools.sh), its PrometheusRule's spec written out as a rules file,
# `promtool check rules` on it and `promtool test rules` with tests/k8s/rules/*.test.yaml (each
# alert firing and staying quiet where it should). The PodMonitor's fields are checked against the
# names prometheus-operator's monitoring.coreos.com/v1 CRD defines, and it must scrape the port the
# DaemonSet names. promtool is Debian's (the prometheus package).
#   tests/k8s/check-alert-rules.sh [REPO_ROOT]
set -euo pipefail
repo=${1:-$(cd "$(dirname "$0")/../.." && pwd)}
command -v promtool >/dev/null || { echo "FAIL: no promtool (Debian: apt-get install prometheus)"; exit 1; }
tools=$(bash "$repo/tests/k8s/fetch-k8s-tools.sh") || { echo "FAIL: fetch-k8s-tools.sh could not fetch kustomize (its reason above)"; exit 1; }
kustomize=$(sed -n '1s/ .*//p' <<<"$tools")
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
bad=0

"$kustomize" build "$repo/examples/kubernetes/nri/overlays/monitoring" >"$tmp/rendered.yaml" ||
    { echo "FAIL: kustomize build of overlays/monitoring"; exit 1; }
python3 - "$tmp/rendered.yaml" "$tmp" <<'PY' || bad=$((bad + 1))
import sys, yaml
docs = {d["kind"]: d for d in yaml.safe_load_all(open(sys.argv[1])) if d}
errs = []
for kind in ("DaemonSet", "PodMonitor", "PrometheusRule"):
    if kind not in docs: errs.append(f"no {kind} in the rendered overlay")
if not errs:
    ds, pm, pr = docs["DaemonSet"], docs["PodMonitor"], docs["PrometheusRule"]
    yaml.safe_dump({"groups": pr["spec"]["groups"]}, open(sys.argv[2] + "/gpu-numa-nri.rules.yaml", "w"), sort_keys=False)
    # Field names of prometheus-operator's PodMonitor CRD (pkg/apis/monitoring/v1/podmonitor_types.go)
    spec_keys = {"jobLabel", "podTargetLabels", "podMetricsEndpoints", "selector", "namespaceSelector", "sampleLimit",
                 "targetLimit", "labelLimit", "labelNameLengthLimit", "labelValueLengthLimit", "attachMetadata",
                 "scrapeProtocols", "keepDroppedTargets", "scrapeClass"}
    ep_keys = {"port", "targetPort", "path", "scheme", "params", "interval", "scrapeTimeout", "honorLabels",
               "honorTimestamps", "relabelings", "metricRelabelings", "basicAuth", "bearerTokenSecret", "authorization",
               "oauth2", "tlsConfig", "followRedirects", "enableHttp2", "filterRunning", "proxyUrl", "trackTimestampsStaleness"}
    relabel_keys = {"sourceLabels", "separator", "targetLabel", "regex", "modulus", "replacement", "action"}
    errs += [f"PodMonitor spec.{k}: not a field of the CRD" for k in pm["spec"] if k not in spec_keys]
    for ep in pm["spec"].get("podMetricsEndpoints", []):
        errs += [f"PodMonitor podMetricsEndpoints[].{k}: not a field of the CRD" for k in ep if k not in ep_keys]
        for r in ep.get("relabelings", []):
            errs += [f"PodMonitor relabelings[].{k}: not a field of the CRD" for k in r if k not in relabel_keys]
    pod = ds["spec"]["template"]
    if pm["spec"]["selector"].get("matchLabels", {}).items() - pod["metadata"]["labels"].items():
        errs.append("the PodMonitor's selector does not match the DaemonSet's pods")
    ports = {p["name"] for c in pod["spec"]["containers"] for p in c.get("ports", [])}
    for ep in pm["spec"]["podMetricsEndpoints"]:
        if ep.get("port") not in ports: errs.append(f"the PodMonitor scrapes port {ep.get('port')}, the pod names {ports}")
    ns = {d["metadata"].get("namespace") for d in (ds, pm, pr)}
    if len(ns) != 1: errs.append(f"the DaemonSet, PodMonitor and PrometheusRule are in different namespaces: {ns}")
    for want in ("prometheus", "role"):
        if want not in pr["metadata"].get("labels", {}): errs.append(f"the PrometheusRule has no label {want} (kube-prometheus's ruleSelector)")
for e in errs: print("FAIL:", e)
if not errs: print("PASS: overlays/monitoring renders a PodMonitor (CRD field names, scraping the DaemonSet's metrics port) and a PrometheusRule, in one namespace")
sys.exit(1 if errs else 0)
PY
[ -f "$tmp/gpu-numa-nri.rules.yaml" ] || { echo "FAIL: no rules extracted"; exit 1; }
# The alerts on check's textfile metrics (the DaemonSet's check container), as a rules file too.
python3 - "$repo/examples/kubernetes/monitoring/prometheusrule.yaml" "$tmp/gpu-numa-hook-textfile.rules.yaml" <<'PY' || bad=$((bad + 1))
import sys, yaml
pr = yaml.safe_load(open(sys.argv[1]))
yaml.safe_dump({"groups": pr["spec"]["groups"]}, open(sys.argv[2], "w"), sort_keys=False)
PY
for rules in "$tmp/gpu-numa-nri.rules.yaml" "$tmp/gpu-numa-hook-textfile.rules.yaml"; do
    out=$(promtool check rules "$rules" 2>&1) && echo "PASS: promtool check rules $(basename "$rules"): $(grep -o 'SUCCESS.*' <<<"$out")" ||
        { echo "FAIL: promtool check rules $(basename "$rules"): $out"; bad=$((bad + 1)); }
    # Every alert of the component has a test, and every test file runs against the extracted rules.
    # (The textfile rules' older alerts have none yet: only GpuNumaHookUnprotectedGpuContainers's.)
    [ "$rules" = "$tmp/gpu-numa-nri.rules.yaml" ] || continue
    for alert in $(sed -n 's/^ *- alert: //p' "$rules" | tr -d "'\""); do
        grep -q "alertname: $alert\$" "$repo"/tests/k8s/rules/*.test.yaml || { echo "FAIL: alert $alert has no promtool test"; bad=$((bad + 1)); }
    done
done
cp "$repo"/tests/k8s/rules/*.test.yaml "$tmp/"
for t in "$tmp"/*.test.yaml; do
    out=$(cd "$tmp" && promtool test rules "$(basename "$t")" 2>&1) &&
        echo "PASS: promtool test rules $(basename "$t"): $(grep -c 'alertname:' "$t") expectations" ||
        { echo "FAIL: promtool test rules $(basename "$t"):"; sed -n 1,40p <<<"$out"; bad=$((bad + 1)); }
done
if [ "$bad" -ne 0 ]; then echo "FAIL: $bad check(s) failed"; exit 1; fi
echo "PASS: the monitoring component's alerts, rendered as users apply them, pass their promtool tests"
