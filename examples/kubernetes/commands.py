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
spec = ds["spec"]["template"]["spec"]
for c in spec.get("initContainers", []) + spec["containers"]:
    sc = c["securityContext"]
    assert sc["allowPrivilegeEscalation"] is False and sc["capabilities"]["drop"] == ["ALL"], c["name"]
    assert not sc.get("privileged"), c["name"]
    print(json.dumps({"name": c["name"], "command": c["command"],
                      "mounts": [m["mountPath"] for m in c.get("volumeMounts", [])]}))
