#!/bin/sh
# The same check as gpu-numa-hook's check path, written the way operators write one: a prestart hook
# in POSIX sh with jq. It is the benchmark's reference point ("at least 5x faster than a shell
# hook"), not a product: it only checks and logs, it never patches.
#
# Reads what the hook reads: the OCI state (stdin), the bundle's config.json, the driver's
# /proc/driver/nvidia/gpus/*/{information,numa_status}, /proc/self/mountinfo, /proc/<pid>/cgroup and
# the container's cpuset files. Fairness: shell builtins (read, case, $(( ))) wherever they do the
# job; forks only for jq (JSON) and date (the log line's time stamp), as an operator would.
#
# Argument 1 (or GNH_HOST_ROOT=DIR) reads every host path beneath DIR (the benchmark's fixture trees), like
# gpu-numa-hook --host-root. Appends one line to $GNH_HOST_ROOT/var/log/gpu-numa-shell-hook.log.
R=${1:-${GNH_HOST_ROOT:-}}
LOG=$R/var/log/gpu-numa-shell-hook.log

# id, pid and bundle from the state, one jq
set -- $(jq -r '[.id, (.pid|tostring), .bundle] | join(" ")')
id=$1 pid=$2 bundle=$3

# the GPU minors the container asks for: NVIDIA device nodes (c 195:0-254) in linux.devices
minors=$(jq -r '[.linux.devices[]? | select(.type == "c" and .major == 195 and .minor < 255) | .minor] | join(" ")' "$R$bundle/config.json")
if [ -z "$minors" ]; then
    echo "$(date -u +%Y-%m-%dT%H:%M:%S.%NZ) container=$id action=allow msg=\"no GPU requested\"" >>"$LOG"
    exit 0
fi

# in_list N LIST: kernel list syntax ("0,8,248-255") contains N
in_list() {
    _n=$1
    _rest=$2,
    while [ -n "$_rest" ]; do
        _part=${_rest%%,*}
        _rest=${_rest#*,}
        [ -z "$_part" ] && continue
        _lo=${_part%-*} _hi=${_part#*-}
        [ "$_lo" -le "$_n" ] && [ "$_n" -le "$_hi" ] && return 0
    done
    return 1
}

# the memory node of each requested GPU, from the driver's files
need=""
for d in "$R"/proc/driver/nvidia/gpus/*; do
    [ -f "$d/information" ] || continue
    minor=""
    while IFS=: read -r key val; do
        case $key in "Device Minor"*) minor=${val#"${val%%[![:space:]]*}"} ;; esac
    done <"$d/information"
    case " $minors " in *" $minor "*) ;; *) continue ;; esac
    [ -f "$d/numa_status" ] || continue
    node="" status=""
    while IFS=: read -r key val; do
        case $key in
            Node) node=${val#"${val%%[![:space:]]*}"} ;;
            Status) status=${val#"${val%%[![:space:]]*}"} ;;
        esac
    done <"$d/numa_status"
    [ "$status" = online ] && [ -n "$node" ] && [ "$node" -ge 0 ] && need="$need $node"
done

# the container's cpuset: its path from /proc/<pid>/cgroup, the hierarchy from mountinfo
mnt="" version=""
while read -r _id _parent _dev _root mp _opts rest; do
    fstype=${rest#*- } fstype=${fstype%% *}
    super=${rest##* }
    case $fstype in
        cgroup) case ",$super," in *,cpuset,*) mnt=$mp version=1 ;; esac ;;
        cgroup2) [ -z "$mnt" ] && [ "$mp" = /sys/fs/cgroup ] && mnt=$mp version=2 ;;
    esac
done <"$R/proc/self/mountinfo"
cg=""
while IFS=: read -r _n ctrls path; do
    if [ "$version" = 1 ]; then
        case ",$ctrls," in *,cpuset,*) cg=$path ;; esac
    elif [ -z "$ctrls" ]; then
        cg=$path
    fi
done <"$R/proc/$pid/cgroup"

dir=$R$mnt$cg
if [ "$version" = 1 ]; then
    f=$dir/cpuset.effective_mems
    [ -f "$f" ] || f=$dir/cpuset.mems
    read -r mems <"$f"
else
    mems=""
    [ -f "$dir/cpuset.mems.effective" ] && read -r mems <"$dir/cpuset.mems.effective"
    # an empty cpuset.mems inherits: the nearest ancestor's value, else the root's effective one
    while [ -z "$mems" ]; do
        [ -f "$dir/cpuset.mems" ] && read -r mems <"$dir/cpuset.mems"
        [ -n "$mems" ] && break
        [ "$dir" = "$R$mnt" ] && { read -r mems <"$R$mnt/cpuset.mems.effective"; break; }
        dir=${dir%/*}
    done
fi

missing=""
for n in $need; do in_list "$n" "$mems" || missing="$missing,$n"; done
if [ -n "$missing" ]; then
    echo "$(date -u +%Y-%m-%dT%H:%M:%S.%NZ) container=$id action=warn gpus=$minors mems=$mems missing=${missing#,} cgroup=$cg" >>"$LOG"
else
    echo "$(date -u +%Y-%m-%dT%H:%M:%S.%NZ) container=$id action=allow gpus=$minors mems=$mems cgroup=$cg" >>"$LOG"
fi
exit 0
