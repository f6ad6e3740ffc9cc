#!/usr/bin/env python3
# Used by the CRI and NRI suites as the runtime containerd runs: runc_recorder.py REC_DIR ARGS...
# Records each call's argv, a create's config.json and an update's resources, then execs the real
# runc. This host has one memory node: an update's cpu.mems, and a create's, is handed to runc
# intersected with the host's memory nodes, so a value naming node 1 ("0-1", "1") can be applied
# here: the recorded files keep what runc was asked for.
import json, os, sys
rec = sys.argv[1]
args = sys.argv[2:]
n = len(os.listdir(rec))
open(f"{rec}/{n:03d}.argv", "w").write("\n".join(args) + "\n")
def nodes(s):
    out = set()
    for part in filter(None, s.strip().split(",")):
        a, _, b = part.partition("-")
        out.update(range(int(a), int(b or a) + 1))
    return out
def host_nodes():
    return nodes(open("/sys/devices/system/node/has_memory").read())
if "create" in args and "--bundle" in args:
    cfg_path = args[args.index("--bundle") + 1] + "/config.json"
    text = open(cfg_path).read()
    open(f"{rec}/{n:03d}.config.json", "w").write(text)
    cfg = json.loads(text)
    cpu = ((cfg.get("linux") or {}).get("resources") or {}).get("cpu") or {}
    if cpu.get("mems") and not nodes(cpu["mems"]) <= host_nodes():
        kept = sorted(nodes(cpu["mems"]) & host_nodes())
        if kept:
            cpu["mems"] = ",".join(str(x) for x in kept)
        else:
            del cpu["mems"]
        open(cfg_path, "w").write(json.dumps(cfg))
# containerd's runc shim writes "--resources=-" (2.1) or "--resources -"; a file path is read as well
res_at = [i for i, a in enumerate(args) if a == "--resources" or a.startswith("--resources=")]
if "update" in args and res_at:
    i = res_at[0]
    src = args[i].split("=", 1)[1] if "=" in args[i] else args[i + 1]
    text = sys.stdin.read() if src == "-" else open(src).read()
    open(f"{rec}/{n:03d}.update-form", "w").write(args[i] + ("" if "=" in args[i] else " " + args[i + 1]) + "\n")
    open(f"{rec}/{n:03d}.update", "w").write(text)
    res = json.loads(text)
    mems = (res.get("cpu") or {}).get("mems")
    if mems:
        res["cpu"]["mems"] = ",".join(str(x) for x in sorted(nodes(mems) & host_nodes()))
    path = f"{rec}/{n:03d}.applied"
    open(path, "w").write(json.dumps(res))
    if "=" in args[i]:
        args[i] = "--resources=" + path
    else:
        args[i + 1] = path
os.execvp("runc", ["runc"] + args)
