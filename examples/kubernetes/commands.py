#!/usr/bin/env python3
"""Prints every container command of the DaemonSet (one JSON array per line, init containers
first) after checking that every YAML file here parses and has the objects docs/install.md names.
tests/engine/run-engine-tests.sh runs each printed command for real in the built image."""
import json, os, sys
import yaml

here = os.path.dirname(os.path.abspath(__file__))
docs = {}
for name in sorted(os.listdir(here)):
    if name.endswith(".yaml"):
        with open(os.path.join(here, name)) as f:
            docs[name] = list(yaml.safe_load_all(f))
ds = docs["daemonset.yaml"][0]
assert ds["kind"] == "DaemonSet", ds["kind"]
rc = docs["runtimeclass.yaml"][0]
assert rc["kind"] == "RuntimeClass" and rc["handler"] == "gpu-numa" and rc["metadata"]["name"] == "gpu-numa"
pod = docs["gpu-pod.yaml"][0]
assert pod["spec"]["runtimeClassName"] == "gpu-numa"
# The NRI path: the plugin talks to the runtime's NRI socket; no RuntimeClass, no containerd edit.
# nri/base rendered: its Namespace, ServiceAccount, DaemonSet and the NetworkPolicy of its metrics port.
assert [d["kind"] for d in docs["nri-daemonset.yaml"]] == ["Namespace", "ServiceAccount", "DaemonSet", "NetworkPolicy"], \
    [d["kind"] for d in docs["nri-daemonset.yaml"]]
nri = docs["nri-daemonset.yaml"][2]
nri_spec = nri["spec"]["template"]["spec"]
assert any(v.get("hostPath", {}).get("path") == "/var/run/nri" for v in nri_spec["volumes"])
assert [c["command"][0] for c in nri_spec["containers"]][0] == "/usr/bin/gpu-numa-nri"
# One config: the plugin reads the host's, the file the hook reads, mounted read-only.
plugin = nri_spec["containers"][0]
assert plugin["command"][plugin["command"].index("--config") + 1] == "/etc/gpu-numa-hook/config.toml"
assert {"name": "host-etc-gnh", "mountPath": "/etc/gpu-numa-hook", "readOnly": True} in plugin["volumeMounts"]
for c in nri_spec.get("initContainers", []) + nri_spec["containers"]:
    sc = c["securityContext"]
    if c["name"] == "nvml-refresh":
        # NVML opens the GPUs' device files: this container alone is privileged, its image read-only
        assert sc.get("privileged") is True and sc.get("readOnlyRootFilesystem") is True, c["name"]
        continue
    assert sc["allowPrivilegeEscalation"] is False and sc["capabilities"]["drop"] == ["ALL"], c["name"]
    assert not sc.get("privileged"), c["name"]
assert [c["name"] for c in nri_spec["containers"] if c["securityContext"].get("privileged")] == ["nvml-refresh"]
spec = ds["spec"]["template"]["spec"]
for c in spec.get("initContainers", []) + spec["containers"]:
    sc = c["securityContext"]
    assert sc["allowPrivilegeEscalation"] is False and sc["capabilities"]["drop"] == ["ALL"], c["name"]
    assert not sc.get("privileged"), c["name"]
    print(json.dumps({"name": c["name"], "command": c["command"],
                      "mounts": [m["mountPath"] for m in c.get("volumeMounts", [])]}))
