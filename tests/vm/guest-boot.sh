# shellcheck shell=sh
# Sourced first by both guest /init scripts (guest-init.sh, soak-guest.sh), which the run scripts
# pack next to it: busybox applets on PATH, the kernel filesystems, the console as stdio, and
# the helpers both use.
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

# has_node LIST N: is node N in a kernel node list such as "0", "0-1", "0,2-3"? (POSIX sh: the
# race test's /init is busybox sh, the soak's bash)
has_node() {
	_rest="$1,"
	while [ -n "$_rest" ]; do
		_part=${_rest%%,*}
		_rest=${_rest#*,}
		[ -z "$_part" ] && continue
		_lo=${_part%-*}
		_hi=${_part#*-}
		[ "$_lo" -le "$2" ] && [ "$2" -le "$_hi" ] && return 0
	done
	return 1
}
