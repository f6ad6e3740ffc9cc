#!/bin/bash
# Lets this x86_64 machine run aarch64 and ppc64le executables directly, as the cross builds' tests
# do (the fixture tests start the hook binary; ctest starts the test programs): mounts binfmt_misc
# if needed and registers Debian's qemu-user-static handlers (/usr/lib/binfmt.d, flags F: the
# interpreter is opened now, so it works in every mount namespace). Dynamically linked test
# programs find their libraries in Debian's multiarch directories. Idempotent; needs root.
set -eu
B=/proc/sys/fs/binfmt_misc
[ -e $B/register ] || mount -t binfmt_misc binfmt_misc $B
for a in aarch64 ppc64le; do
    [ -e "$B/qemu-$a" ] && continue
    conf=/usr/lib/binfmt.d/qemu-$a.conf
    [ -f "$conf" ] || { echo "register-binfmt: $conf missing (apt-get install qemu-user-static)" >&2; exit 2; }
    cat "$conf" >$B/register
done
for a in aarch64 ppc64le; do echo "binfmt: qemu-$a $(head -n1 $B/qemu-$a)"; done
