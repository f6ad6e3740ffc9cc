#!/usr/bin/env python3
# Used by the CRI and NRI suites as the runtime containerd runs: runc_recorder.py REC_DIR ARGS...
# Records each call's argv, a create's config.json and an update's resources, then execs the real
# runc. This host has one memory node: an update's cpu.mems is handed to runc intersected with the
# host's memory nodes, so a value the plugin widened ("0-1") can be applied here ("0").
import json, os, sys
rec = sys.argv[1]
args = sys.argv[2:]
n = len(os.listdir(rec))
open(f"{rec}/{n:03d}.argv", "w").write("\n".join(args) + "\n")
if "create" in args and "--bundle" in args:
    open(f"{rec}/{n:03d}.config.json", "w").write(open(args[args.index("--bundle") + 1] + "/config.json").read())
# containerd's runc shim writes "--resources=-" (2.1) or "--resources -"; a file path is read as well
res_at = [i for i, a in enumerate(args) if a == "--resources" or a.startswith("--resources=")]
if "update" in args and res_at:
    i = res_at[0]
    src = args[i].split("=", 1)[1] if "=" in args[i] else args[i + 1]
    text = sys.stdin.read() if src == "-" else open(src).read()
    open(f"{rec}/{n:03d}.update-form", "w").write(args[i] + ("" if "=" in args[i] else " " + args[i + 1]) + "\n")
    open(f"{rec}/{n:03d}.update", "w").write(text)
    res = json.loads(text)
    def nodes(s):
        out = set()
        for part in filter(None, s.strip().split(",")):
            a, _, b = part.partition("-")
            out.update(range(int(a), int(b or a) + 1))
        return out
    mems = (res.get("cpu") or {}).get("mems")
    if mems:
        have = nodes(open("/sys/devices/system/node/has_memory").read())
        res["cpu"]["mems"] = ",".join(str(x) for x in sorted(nodes(mems) & have))
    path = f"{rec}/{n:03d}.applied"
    open(path, "w").write(json.dumps(res))
    if "=" in args[i]:
        args[i] = "--resources=" + path
    else:
        args[i + 1] = path
os.execvp("runc", ["runc"] + args)
