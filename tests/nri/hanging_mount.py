#!/usr/bin/python3
"""A directory whose every access hangs: a FUSE mount that nobody serves.

    hanging_mount.py DIR READY_FILE

Mounts FUSE over DIR with our /dev/fuse descriptor and never reads it: the kernel's first request
(INIT) stays unanswered, so any lookup under DIR blocks (killably) -- as a read of a wedged
driver's or a stuck network filesystem's file does. Writes READY_FILE once mounted, then waits.
Killing this process closes the descriptor, which aborts the connection: the blocked callers get
an error (ENOTCONN) and DIR can be unmounted. Root in a mount namespace; no libfuse needed.
"""
import ctypes
import os
import signal
import sys


def main(argv):
    target, ready = argv[1], argv[2]
    fd = os.open("/dev/fuse", os.O_RDWR)
    libc = ctypes.CDLL(None, use_errno=True)
    opts = "fd=%d,rootmode=40000,user_id=0,group_id=0" % fd
    if libc.mount(b"gnh-hang", target.encode(), b"fuse", 0, opts.encode()) != 0:
        err = ctypes.get_errno()
        sys.exit("hanging_mount: mount fuse on %s: %s" % (target, os.strerror(err)))
    with open(ready, "w") as f:
        f.write("%d\n" % os.getpid())
    signal.pause()


if __name__ == "__main__":
    main(sys.argv)
