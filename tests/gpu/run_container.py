#!/usr/bin/python3
"""run_container.py RUNTIME STATE_ROOT BUNDLE ID: a container's life as a containerd shim drives it:
create (its output in BUNDLE/ctr.out and ctr.err), start, wait as the container's subreaper, delete.
Prints each step's exit status; exits with the container's (10: create failed, 11: start failed)."""
import ctypes, os, subprocess, sys
rt, root, bundle, cid = sys.argv[1:5]
ctypes.CDLL(None, use_errno=True).prctl(36, 1, 0, 0, 0)   # PR_SET_CHILD_SUBREAPER
out, err = open(bundle + "/ctr.out", "wb"), open(bundle + "/ctr.err", "wb")
p = subprocess.run([rt, "--root", root, "create", "--bundle", bundle, "--pid-file", bundle + "/ctr.pid", cid],
                   stdin=subprocess.DEVNULL, stdout=out, stderr=err)
out.close(); err.close()
print("create exit status", p.returncode)
if p.returncode != 0:
    subprocess.run([rt, "--root", root, "delete", "-f", cid], stderr=subprocess.DEVNULL)
    sys.exit(10)
pid = int(open(bundle + "/ctr.pid").read())
s = subprocess.run([rt, "--root", root, "start", cid])
print("start exit status", s.returncode)
_, st = os.waitpid(pid, 0)
code = os.waitstatus_to_exitcode(st)
subprocess.run([rt, "--root", root, "delete", "-f", cid])
while True:
    try:
        if os.waitpid(-1, os.WNOHANG)[0] == 0: break
    except ChildProcessError:
        break
print("container exit status", code)
sys.exit(code if s.returncode == 0 else 11)
