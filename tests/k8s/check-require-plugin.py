#!/usr/bin/python3
"""The require-plugin component (examples/kubernetes/nri/components/require-plugin), rendered.

  check-require-plugin.py RENDERED.yaml              checks it (kubernetes-models 4.5.1, the
      schema tests/k8s/validate-manifests.mjs uses, has no MutatingAdmissionPolicy: the fields of
      Kubernetes 1.36's admissionregistration.k8s.io/v1 are checked here, key by key)
  check-require-plugin.py --annotation RENDERED.yaml prints the pod annotation the policy adds,
      "KEY VALUE" on one line, read from the policy's variables (the CRI test uses it)
"""
import json
import sys

import yaml

GROUP = "admissionregistration.k8s.io/v1"
# Fields of k8s.io/api/admissionregistration/v1 (Kubernetes 1.36), for a strict check.
FIELDS = {
    "policy": {"apiVersion", "kind", "metadata", "spec"},
    "policy.spec": {"paramKind", "matchConstraints", "variables", "mutations", "failurePolicy",
                    "matchConditions", "reinvocationPolicy"},
    "match": {"namespaceSelector", "objectSelector", "resourceRules", "excludeResourceRules", "matchPolicy"},
    "rule": {"apiGroups", "apiVersions", "operations", "resources", "scope", "resourceNames"},
    "named": {"name", "expression"},
    "mutation": {"patchType", "applyConfiguration", "jsonPatch"},
    "expr": {"expression"},
    "binding.spec": {"policyName", "paramRef", "matchResources"},
    "selector": {"matchLabels", "matchExpressions"},
    "requirement": {"key", "operator", "values"},
}


def load(path):
    return [d for d in yaml.safe_load_all(open(path)) if d]


def policy_and_binding(docs):
    pol = [d for d in docs if d.get("kind") == "MutatingAdmissionPolicy"]
    bnd = [d for d in docs if d.get("kind") == "MutatingAdmissionPolicyBinding"]
    if len(pol) != 1 or len(bnd) != 1:
        raise SystemExit(f"FAIL: expected one MutatingAdmissionPolicy and one binding, got {len(pol)} and {len(bnd)}")
    return pol[0], bnd[0]


def variable(pol, name):
    for v in pol["spec"].get("variables", []):
        if v.get("name") == name:
            return v["expression"].strip()
    raise SystemExit(f"FAIL: the policy has no variable {name}")


def cel_string(expr):
    # The variables are single-quoted CEL string literals without escapes.
    if len(expr) < 2 or expr[0] != "'" or expr[-1] != "'" or "'" in expr[1:-1] or "\\" in expr:
        raise SystemExit(f"FAIL: not a plain CEL string literal: {expr}")
    return expr[1:-1]


def annotation(pol):
    return cel_string(variable(pol, "key")), cel_string(variable(pol, "required"))


def strict(obj, kind, path, errs):
    if not isinstance(obj, dict):
        errs.append(f"{path}: not a mapping")
        return
    for k in obj:
        if k not in FIELDS[kind]:
            errs.append(f"{path}.{k}: unknown field")


def check(docs):
    errs = []
    pol, bnd = policy_and_binding(docs)
    for d, what in ((pol, "policy"), (bnd, "binding")):
        if d.get("apiVersion") != GROUP:
            errs.append(f"{what}: apiVersion {d.get('apiVersion')}, not {GROUP}")
        if "namespace" in d.get("metadata", {}):
            errs.append(f"{what}: cluster-scoped but has metadata.namespace {d['metadata']['namespace']}")
        strict(d, "policy", what, errs)
    spec = pol.get("spec", {})
    strict(spec, "policy.spec", "policy.spec", errs)
    if spec.get("failurePolicy") not in ("Fail", "Ignore"): errs.append(f"failurePolicy {spec.get('failurePolicy')}")
    if spec.get("reinvocationPolicy") not in ("Never", "IfNeeded"): errs.append("reinvocationPolicy")
    mc = spec.get("matchConstraints", {})
    strict(mc, "match", "policy.spec.matchConstraints", errs)
    rules = mc.get("resourceRules", [])
    for i, r in enumerate(rules):
        strict(r, "rule", f"resourceRules[{i}]", errs)
    if rules != [{"apiGroups": [""], "apiVersions": ["v1"], "operations": ["CREATE"], "resources": ["pods"]}]:
        errs.append(f"the policy must match pod CREATE only, matches {rules}")
    for key in ("matchConditions", "variables"):
        for i, c in enumerate(spec.get(key, [])):
            strict(c, "named", f"{key}[{i}]", errs)
            if not isinstance(c.get("expression"), str) or not c.get("name"): errs.append(f"{key}[{i}] incomplete")
    muts = spec.get("mutations", [])
    if len(muts) != 1: errs.append(f"{len(muts)} mutations")
    for i, m in enumerate(muts):
        strict(m, "mutation", f"mutations[{i}]", errs)
        if m.get("patchType") != "ApplyConfiguration" or not m.get("applyConfiguration", {}).get("expression"):
            errs.append(f"mutations[{i}]: not an ApplyConfiguration with an expression")
        strict(m.get("applyConfiguration", {}), "expr", f"mutations[{i}].applyConfiguration", errs)
    conds = " ".join(c.get("expression", "") for c in spec.get("matchConditions", []))
    for want in ("'nvidia.com/gpu' in c.resources.limits", "'nvidia.com/gpu' in c.resources.requests",
                 "object.spec.resourceClaims", "object.spec.initContainers", "k.startsWith('nvidia.cdi.k8s.io/')"):
        if want not in conds: errs.append(f"the match conditions lack {want}")
    key, value = annotation(pol)
    if key != "required-plugins.noderesource.dev": errs.append(f"annotation key {key}")
    if json.loads(value) != ["gpu-numa"]: errs.append(f"annotation value {value}")
    # The binding: our policy, never kube-system, our namespace or our DaemonSet's pods.
    bs = bnd.get("spec", {})
    strict(bs, "binding.spec", "binding.spec", errs)
    if bs.get("policyName") != pol["metadata"]["name"]: errs.append("the binding names another policy")
    mr = bs.get("matchResources", {})
    strict(mr, "match", "binding.spec.matchResources", errs)
    exprs = {}
    for sel in ("namespaceSelector", "objectSelector"):
        strict(mr.get(sel, {}), "selector", sel, errs)
        for i, e in enumerate(mr.get(sel, {}).get("matchExpressions", [])):
            strict(e, "requirement", f"{sel}.matchExpressions[{i}]", errs)
            if e.get("operator") == "NotIn": exprs[(sel, e["key"])] = set(e.get("values", []))
    if not {"kube-system", "gpu-numa-hook"} <= exprs.get(("namespaceSelector", "kubernetes.io/metadata.name"), set()):
        errs.append("the binding does not exclude kube-system and gpu-numa-hook by name")
    ns = [d for d in docs if d.get("kind") == "Namespace"]
    part_of = exprs.get(("namespaceSelector", "app.kubernetes.io/part-of"), set())
    for n in ns:
        if n["metadata"].get("labels", {}).get("app.kubernetes.io/part-of") not in part_of:
            errs.append(f"our Namespace {n['metadata']['name']} is not excluded by its part-of label")
    for ds in (d for d in docs if d.get("kind") == "DaemonSet"):
        tpl = ds["spec"]["template"]
        if tpl["metadata"]["labels"].get("app.kubernetes.io/name") not in exprs.get(("objectSelector", "app.kubernetes.io/name"), set()):
            errs.append("our DaemonSet's pods are not excluded by the binding's objectSelector")
        ps = tpl["spec"]
        if ps.get("resourceClaims"): errs.append("our DaemonSet has resourceClaims")
        for c in ps.get("containers", []) + ps.get("initContainers", []):
            res = c.get("resources", {})
            if any("nvidia.com/gpu" in res.get(k, {}) for k in ("limits", "requests")):
                errs.append(f"our DaemonSet's container {c['name']} requests a GPU")
    return errs, key, value


def main(argv):
    if argv[1] == "--annotation":
        key, value = annotation(policy_and_binding(load(argv[2]))[0])
        print(key, value)
        return 0
    errs, key, value = check(load(argv[1]))
    for e in errs:
        print("FAIL: require-plugin component:", e)
    if not errs:
        print(f"PASS: require-plugin component: admissionregistration.k8s.io/v1 policy and binding, cluster-scoped, "
              f"fields known; GPU pods get {key}={value}; kube-system, our namespace and DaemonSet excluded")
    return 1 if errs else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
