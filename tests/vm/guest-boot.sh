# shellcheck shell=sh
# Sourced first by both guest /init scripts (guest-init.sh, soak-guest.sh), which the run scripts
# pack next to it: busybox applets on PATH, the kernel filesystems, the console as stdio.
/bin/busybox mkdir -p /proc /sys /dev /tmp /run /var/log /usr/bin /usr/sbin /sbin
/bin/busybox --install -s
export PATH=/usr/sbin:/usr/bin:/sbin:/bin

mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev
mount -t tmpfs tmpfs /tmp
mount -t tmpfs tmpfs /run
[ -e /dev/null ] || mknod -m 666 /dev/null c 1 3
exec </dev/null >/dev/console 2>&1
