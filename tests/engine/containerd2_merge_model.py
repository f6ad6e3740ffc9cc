#!/usr/bin/python3
"""A model of how containerd 2.x reads its configuration, standing in for `containerd config dump`
where containerd 2.x cannot run (it is not packaged for Debian 12). It is a model, not containerd.

What it models (containerd 2.x cmd/containerd/server/config/config.go, as read; PR 9982):
- files: the main file, then each `imports` entry in order (relative entries against the importing
  file's directory, globs sorted), breadth first, each file once;
- a file with version 0 or 1 is migrated on load: its plugin ids ("cri") become URIs
  ("io.containerd.grpc.v1.cri");
- every file is merged into the result key by key (tables merged, other values replaced; `imports`
  concatenated), the last non-zero `version` wins (mergo's override);
- a result of version 2 is migrated to 3: the CRI plugin's `containerd` table (runtimes,
  default_runtime_name, ...) moves to plugins."io.containerd.cri.v1.runtime".containerd.
Version 4 (containerd 2.3) keeps the CRI runtimes where version 3 has them.

Usage: containerd2_merge_model.py MAIN  -> the effective configuration as JSON on stdout.
"""
import glob
import json
import os
import sys
import tomllib

V1_IDS = {"cri": "io.containerd.grpc.v1.cri"}


def merge(a, b):
    for k, v in b.items():
        if isinstance(v, dict) and isinstance(a.get(k), dict):
            merge(a[k], v)
        elif k == "imports" and isinstance(a.get(k), list):
            a[k] = a[k] + [i for i in v if i not in a[k]]
        else:
            a[k] = v
    return a


def resolve(parent, entry):
    path = os.path.normpath(entry)
    if not os.path.isabs(path):
        path = os.path.join(os.path.dirname(parent), path)
    return sorted(glob.glob(path)) if "*" in path else [path]


def load(main):
    out, loaded, pending = {}, set(), [main]
    while pending:
        path = pending.pop(0)
        if path in loaded:
            continue
        with open(path, "rb") as f:
            cfg = tomllib.load(f)
        if cfg.get("version", 0) in (0, 1):
            plugins = cfg.get("plugins", {})
            cfg["plugins"] = {V1_IDS.get(k, k): v for k, v in plugins.items()}
        version = cfg.pop("version", 0)
        merge(out, cfg)
        if version:
            out["version"] = version
        loaded.add(path)
        for entry in cfg.get("imports", []):
            pending.extend(resolve(path, entry))
    if out.get("version", 1) <= 2:
        cri = out.get("plugins", {}).get("io.containerd.grpc.v1.cri", {})
        if "containerd" in cri:
            runtime = out["plugins"].setdefault("io.containerd.cri.v1.runtime", {})
            merge(runtime.setdefault("containerd", {}), cri.pop("containerd"))
        out["version"] = 3
    return out


if __name__ == "__main__":
    print(json.dumps(load(sys.argv[1]), sort_keys=True))
