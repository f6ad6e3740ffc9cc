#!/bin/bash
# shellcheck disable=SC2012 # ls of cgroup/sysfs names, which hold no odd characters
# /init of the soak VM (run-vm-soak.sh packs this file as /init, with bash, busybox, runc, jq, the
# hook and numa_touch). Randomized soak of gpu-numa-hook against the late-onlined GPU memory race:
#
#   nodes 1 and 2: CPU-less memory nodes whose memory blocks (a coldplugged pc-dimm each) start
#   offline; two fake GPUs (minor 0 -> node 1, minor 1 -> node 2) with numa_status following the
#   blocks. From SOAK_SEED, a Park-Miller PRNG draws one schedule: SOAK_STARTS container starts
#   (slice, hook stage, GPUs, how the GPUs are requested, a delay before each) launched with up to
#   SOAK_CONCURRENCY at once; per node, when (at which start) its memory is onlined, offlined and
#   onlined again, block by block with random gaps; when `check --fix` runs in the background.
#   Node and check events are tied to start numbers ("when start k is launched"), so the same seed
#   gives the same schedule; only the timing between the actors varies from run to run.
#
# Every start is classified ok / refused / broken (disturbed: see README.md); extra assertions:
# no cpuset lost a node the schedule did not offline, no container cgroup left, one hook log line
# per hook invocation, no start over the deadline, `check` clean at the end after one `check --fix`.
# Lines the host parses start at column 0: `START ...`, `ASSERT-FAIL: ...`, `SOAK-SUMMARY: ...`,
# `SOAK-DONE`. Everything else is indented or has another prefix.

# shellcheck disable=SC1091 # packed next to this file by the run script
. /guest-boot.sh

# shellcheck disable=SC1091 # written by run-vm-soak.sh
. /etc/soak.env # SOAK_SEED SOAK_STARTS SOAK_CONCURRENCY SOAK_DEADLINE SOAK_DELAY_MS

S=/run/soak         # the soak's state: records, outputs, actor logs
CS=/sys/fs/cgroup/cpuset
HOOK_LOG=/var/log/gpu-numa-hook.log
CONFIG=/etc/gpu-numa-hook/config.toml
RUNC=(runc --root /run/runc)
NODES=(1 2)         # GPU memory nodes; GPU minor m has node m+1, bus 0000:0(m+1):00.0
SLICES=(docker system.slice kubepods.slice kubepods.slice/kubepods-burstable.slice
	kubepods.slice/kubepods-burstable.slice/pod-x machine.slice)
PARENTS=(docker system.slice kubepods.slice/kubepods-burstable.slice/pod-x machine.slice)
mkdir -p $S/rec $S/out $S/running $S/at $S/bundles
mkfifo $S/nap
exec 9<>$S/nap

T0=$EPOCHREALTIME
# ts: seconds since T0 with millisecond precision, in $TS (no fork)
ts() {
	local now=${EPOCHREALTIME/./} t0=${T0/./}
	local ms=$(((now - t0) / 1000))
	printf -v TS '%d.%03d' $((ms / 1000)) $((ms % 1000))
}
say() { ts; echo "  [$TS] $*"; }
# nap SECONDS: sleep without a fork (a read that times out on a FIFO nobody writes; fd 9, opened
# below). Under TCG a forked `sleep` in every polling loop costs the guest real CPU.
nap() { read -r -t "$1" -u 9 _; }
msleep() { local s; printf -v s '%d.%03d' $(($1 / 1000)) $(($1 % 1000)); nap "$s"; }
fatal() {
	echo "ASSERT-FAIL: setup: $*"
	finish
}
finish() {
	echo "SOAK-DONE"
	sync
	poweroff -f
	echo o >/proc/sysrq-trigger
	sleep 5
}
mems() { local m; read -r m <"$CS/$1/cpuset.mems" 2>/dev/null || m="<missing>"; echo "$m"; }
snapshot() { # one line: root and every slice's cpuset.mems
	local s out
	out="root=$(mems .)"
	for s in "${SLICES[@]}"; do out+=" ${s##*/}=$(mems "$s")"; done
	echo "$out"
}

# --- PRNG: Park-Miller minimal standard (x = x * 16807 mod 2^31-1), exact in bash's 64-bit ints.
RNG=$((SOAK_SEED % 2147483646 + 1))
rnd() { # rnd N: R = next number in 0..N-1
	RNG=$((RNG * 16807 % 2147483647))
	R=$((RNG % $1))
}

echo "  soak: seed $SOAK_SEED, $SOAK_STARTS starts, concurrency $SOAK_CONCURRENCY, deadline ${SOAK_DEADLINE}s"
echo "  kernel $(uname -r), $(grep -c ^processor /proc/cpuinfo) cpus; nodes possible=$(cat /sys/devices/system/node/possible) has_memory=$(cat /sys/devices/system/node/has_memory) has_cpu=$(cat /sys/devices/system/node/has_cpu)"

# --- cgroup v1, every controller on its own hierarchy (as on an AC922 host) --------------------
mount -t tmpfs -o mode=755 cgroup /sys/fs/cgroup
for c in cpuset cpu,cpuacct blkio memory devices freezer net_cls,net_prio perf_event hugetlb pids rdma misc; do
	mkdir -p "/sys/fs/cgroup/$c"
	mount -t cgroup -o "$c" cgroup "/sys/fs/cgroup/$c" 2>/dev/null || rmdir "/sys/fs/cgroup/$c"
done
[ -d /sys/fs/cgroup/cpu,cpuacct ] && ln -s cpu,cpuacct /sys/fs/cgroup/cpu && ln -s cpu,cpuacct /sys/fs/cgroup/cpuacct
[ -d /sys/fs/cgroup/net_cls,net_prio ] && ln -s net_cls,net_prio /sys/fs/cgroup/net_cls && ln -s net_cls,net_prio /sys/fs/cgroup/net_prio
[ -f $CS/cpuset.mems ] || fatal "cpuset hierarchy not mounted"
# The slices a host creates at boot, before the GPU memory is onlined, each copying its parent's
# cpus/mems (cgroupfs naming, as dockerd/kubelet/libvirt with the cgroupfs driver).
for s in "${SLICES[@]}"; do
	for c in /sys/fs/cgroup/*/; do [ -L "${c%/}" ] || mkdir -p "$c$s"; done
	[ "${s%/*}" = "$s" ] && p=. || p=${s%/*}
	cat "$CS/$p/cpuset.cpus" >"$CS/$s/cpuset.cpus"
	cat "$CS/$p/cpuset.mems" >"$CS/$s/cpuset.mems"
done
echo "  slices at boot: $(snapshot)"

# --- memory blocks of the GPU nodes ------------------------------------------------------------
declare -A BLOCKS # node -> "memoryA memoryB ..."
for n in "${NODES[@]}"; do
	BLOCKS[$n]=$(cd /sys/devices/system/node/node"$n" 2>/dev/null && ls -d memory[0-9]* | tr '\n' ' ')
	[ -n "${BLOCKS[$n]}" ] || fatal "node $n has no memory blocks (qemu topology?)"
	for b in ${BLOCKS[$n]}; do
		[ "$(cat /sys/devices/system/memory/"$b"/state)" = offline ] || fatal "node $n block $b is not offline at boot"
	done
	echo "  node $n: blocks ${BLOCKS[$n]}(all offline)"
done

# --- the fake NVIDIA driver: two GPUs in the real file formats ---------------------------------
mkdir -p /proc/driver 2>/dev/null
mount -t tmpfs -o mode=755 nvidia-fake /proc/driver
for n in "${NODES[@]}"; do
	m=$((n - 1))
	d=/proc/driver/nvidia/gpus/0000:0$n:00.0
	mkdir -p "$d"
	cp /fixture/information.$m "$d"/information
	mknod -m 666 /dev/nvidia$m c 195 $m
done
mknod -m 666 /dev/nvidiactl c 195 255
# set_numa_status NODE STATUS: the driver's format, replaced atomically (the hook may be reading).
set_numa_status() {
	printf 'Node:      %d\nStatus:    %s\n' "$1" "$2" >/proc/driver/.numa_status."$1"
	mv /proc/driver/.numa_status."$1" /proc/driver/nvidia/gpus/0000:0"$1":00.0/numa_status
}
# Per node, the schedule's own record: "<offline generation> <phase>", replaced atomically.
# The generation counts offlines begun; phase is offline|onlining|online|offlining.
set_node_state() {
	echo "$2 $3" >$S/.node"$1"
	mv $S/.node"$1" $S/node"$1"
}
for n in "${NODES[@]}"; do
	set_numa_status "$n" offline
	set_node_state "$n" 0 offline
done
echo "  fake driver: $(ls /proc/driver/nvidia/gpus | tr '\n' ' ')"

cat >$CONFIG <<'EOF'
[policy]
missing-node = "patch"
[log]
file = "/var/log/gpu-numa-hook.log"
EOF
: >$HOOK_LOG

# --- the schedule ------------------------------------------------------------------------------
N=$SOAK_STARTS
declare -a SL ST GP FORM DELAY HOLD # per start: parent slice, stage, GPU minors, request form,
# delay before it (ms), how long its process holds on after numa_touch (ms)
for ((i = 1; i <= N; i++)); do
	rnd ${#PARENTS[@]}; SL[i]=${PARENTS[R]}
	rnd 2; ST[i]=$([ $R = 0 ] && echo prestart || echo createRuntime)
	rnd 20
	if ((R < 9)); then GP[i]=0; elif ((R < 18)); then GP[i]=1; else GP[i]=0,1; fi
	rnd 4; FORM[i]=$(case $R in 0) echo devices ;; 1) echo env-index ;; 2) echo env-uuid ;; *) echo cdi ;; esac)
	rnd $((SOAK_DELAY_MS + 1)); DELAY[i]=$R
	rnd 2000; HOLD[i]=$R
done
# Node events, per node: "k op gap_ms,... block,..." (at start k: online or offline every block of
# the node in the given order, sleeping gap_ms before each). First an online early on; then
# offline/online cycles; the last event of each node is an online.
max1() { echo $(($1 > 0 ? $1 : 1)); }
min() { echo $(($1 < $2 ? $1 : $2)); }
blocks_shuffled() { # BS = "gap,gap,... block,block,...": a permutation of BLOCKS[$1] and its gaps
	# (sets a global: a $(...) subshell would not advance the PRNG of this shell)
	local -a b
	local j t g="" IFS=' '
	read -r -a b <<<"${BLOCKS[$1]}"
	for ((j = ${#b[@]} - 1; j > 0; j--)); do
		rnd $((j + 1)); t=${b[j]}; b[j]=${b[R]}; b[R]=$t
	done
	for ((j = 0; j < ${#b[@]}; j++)); do rnd 400; g+=${g:+,}$R; done
	IFS=,
	BS="$g ${b[*]}"
}
for n in "${NODES[@]}"; do
	: >$S/events."$n"
	rnd "$(max1 "$(min $((N / 10)) 10)")"; k=$((1 + R))
	blocks_shuffled "$n"; echo "$k online $BS" >>$S/events."$n"
	while :; do
		rnd "$(max1 "$(min $((N / 4)) 24)")"; k=$((k + $(min $((N / 8)) 12) + 1 + R))
		((k <= N - N / 10)) || break
		blocks_shuffled "$n"; echo "$k offline $BS" >>$S/events."$n"
		rnd "$(max1 "$(min $((N / 10)) 8)")"; k=$((k + 1 + R))
		((k > N)) && k=$N
		blocks_shuffled "$n"; echo "$k online $BS" >>$S/events."$n"
	done
done
: >$S/checks
k=0
while :; do
	rnd "$(max1 "$(min $((N / 6)) 20)")"; k=$((k + 1 + R))
	((k <= N)) || break
	echo "$k" >>$S/checks
done
echo "  schedule (seed $SOAK_SEED):"
for n in "${NODES[@]}"; do sed "s/^/  SCHED node $n: at start /" $S/events."$n"; done
echo "  SCHED check --fix at starts: $(tr '\n' ' ' <$S/checks)"
for ((i = 1; i <= N; i++)); do
	echo "  SCHED start $i: /${SL[i]} ${ST[i]} gpus=${GP[i]} via ${FORM[i]} after ${DELAY[i]}ms, holds ${HOLD[i]}ms"
done

# --- bundles -----------------------------------------------------------------------------------
# One per start, from `runc spec` (made on the host): read-only shared rootfs, no terminal, the
# hook at the drawn stage, the GPUs requested the drawn way. The process runs numa_touch on the
# node of each GPU, then prints its Mems_allowed_list again at the end.
UUID=()
for m in 0 1; do UUID[m]=$(sed -n 's/^GPU UUID:[[:space:]]*//p' /fixture/information.$m); done
# One jq for all bundles (a jq per bundle costs a third of a second under TCG): each input line is
# "id<TAB>cgroupsPath<TAB>stage<TAB>form<TAB>request<TAB>hold<TAB>nodes", each output line
# "id<TAB>config". The process: numa_touch on each GPU's node, a pause of `hold` (a GPU job that
# keeps running: an offline can take the node from it meanwhile), then Mems_allowed_list again.
bundle_params() {
	local i id req nodes m hold
	for ((i = 1; i <= N; i++)); do
		printf -v id 's%04d' "$i"
		nodes=""
		for m in ${GP[i]//,/ }; do nodes+=" $((m + 1))"; done
		req=${GP[i]}
		if [ "${FORM[i]}" = env-uuid ]; then
			req=""
			for m in ${GP[i]//,/ }; do req+=${req:+,}${UUID[m]}; done
		fi
		printf -v hold '%d.%03d' $((HOLD[i] / 1000)) $((HOLD[i] % 1000))
		printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$id" "/${SL[i]}/$id" "${ST[i]}" "${FORM[i]}" "$req" "$hold" "${nodes# }"
	done
}
t=$EPOCHREALTIME
# The variable gives a GPU only where NVIDIA's legacy hook reads it (legacy mode, docker --gpus),
# so the env form's spec names that hook, as NVIDIA's runtime adds it. In its place, a program of its
# name that reads the state and exits 0: the real one needs the driver, which the VM lacks.
printf '#!/bin/sh\nexec cat >/dev/null\n' >$S/nvidia-container-runtime-hook && chmod 755 $S/nvidia-container-runtime-hook ||
	fatal "cannot write the NVIDIA hook's stand-in"
bundle_params | jq -R -r --slurpfile base /etc/soak/base.json '
	split("\t") as [$id, $cg, $stage, $form, $req, $hold, $nodes]
	| $base[0]
	| .root = {path: "/bundles/rootfs", readonly: true}
	| .process.terminal = false
	| .process.args = (["/bin/sh", "-c", "r=0; for n in \"$@\"; do numa_touch \"$n\" || r=1; done; /bin/busybox sleep \"$0\"; while read -r k v; do [ \"$k\" = Mems_allowed_list: ] && echo \"soak: end Mems_allowed_list: $v\"; done </proc/self/status; exit $r", $hold] + ($nodes | split(" ")))
	| .hostname = "soak"
	| .linux.cgroupsPath = $cg
	| .mounts |= map(select(.destination != "/sys/fs/cgroup"))
	| .hooks = {($stage): [{path: "/bin/gpu-numa-hook", args: ["gpu-numa-hook", "--config", "/etc/gpu-numa-hook/config.toml", $stage]}]}
	| if $form == "devices" then
		.linux.devices = [$req | split(",")[] | tonumber | {path: "/dev/nvidia\(.)", type: "c", major: 195, minor: ., fileMode: 438, uid: 0, gid: 0}]
		| .linux.resources.devices += [$req | split(",")[] | tonumber | {allow: true, type: "c", major: 195, minor: ., access: "rw"}]
	  elif $form == "cdi" then .annotations = {"cdi.k8s.io/gpu": ($req | split(",") | map("nvidia.com/gpu=" + .) | join(","))}
	  else .process.env += ["NVIDIA_VISIBLE_DEVICES=" + $req]
		| .hooks.prestart += [{path: "/run/soak/nvidia-container-runtime-hook", args: ["nvidia-container-runtime-hook", "prestart"]}] end
	| "\($id)\t\(tojson)"
' >$S/bundles.tsv || fatal "jq failed making the bundles"
while IFS=$'\t' read -r id cfg; do
	mkdir -p "$S/bundles/$id"
	printf '%s\n' "$cfg" >"$S/bundles/$id/config.json"
done <$S/bundles.tsv
[ "$(ls $S/bundles | wc -l)" = "$N" ] || fatal "made $(ls $S/bundles | wc -l) bundles, want $N"
echo "  made $N bundles in $(awk -v a="$t" -v b="$EPOCHREALTIME" 'BEGIN{printf "%.1f", b-a}')s"

# --- actors ------------------------------------------------------------------------------------
node_gen() { local g p; read -r g p <$S/node"$1"; echo "$g"; }
wait_start() { while [ ! -e $S/at/"$1" ]; do nap 0.05; done; }

# try_block BLOCK STATE: write STATE (online_movable|offline) to the block, retrying EBUSY/EAGAIN
# (the kernel refuses to offline movable memory it cannot migrate yet) up to 40 times, 0.25 s apart.
try_block() {
	local a err
	for ((a = 1; a <= 40; a++)); do
		err=$( { echo "$2" >/sys/devices/system/memory/"$1"/state; } 2>&1) && return 0
		[ "$(cat /sys/devices/system/memory/"$1"/state)" = "${2%_movable}" ] && return 0
		say "MEM $1: $2 failed ($err), try $a"
		nap 0.25
	done
	return 1
}
# wait_mems NODE present|absent: until the root and every slice agree (the kernel's cpuset hotplug
# work runs asynchronously; only the root gains an onlined node, all lose an offlined one).
wait_mems() {
	local t s ok
	for ((t = 0; t < 100; t++)); do
		ok=1
		if [ "$2" = present ]; then
			has_node "$(mems .)" "$1" || ok=0
		else
			for s in . "${SLICES[@]}"; do has_node "$(mems "$s")" "$1" && ok=0; done
		fi
		((ok)) && return 0
		nap 0.05
	done
	return 1
}
node_actor() { # node_actor NODE: run the node's events in order, each when its start is launched
	local n=$1 k op gaps blocks g b j
	while read -r k op gaps blocks <&3; do
		wait_start "$k"
		local -a ga ba
		IFS=, read -r -a ga <<<"$gaps"
		IFS=, read -r -a ba <<<"$blocks"
		if [ "$op" = online ]; then
			set_node_state "$n" "$(node_gen "$n")" onlining
			set_numa_status "$n" online_in_progress
			say "MEM node $n: online begins at start $k (blocks ${blocks}); $(snapshot)"
			for ((j = 0; j < ${#ba[@]}; j++)); do
				msleep "${ga[j]}"
				try_block "${ba[j]}" online_movable || echo "ASSERT-FAIL: node $n: cannot online ${ba[j]}"
			done
			wait_mems "$n" present || echo "ASSERT-FAIL: node $n: root cpuset lacks it after onlining ($(mems .))"
			set_numa_status "$n" online
			set_node_state "$n" "$(node_gen "$n")" online
			say "MEM node $n: online done; $(snapshot)"
		else
			# Driver first, then the generation: a hook that read "online" before this line ran
			# after the starter read the old generation, so that start sees the generation move.
			set_numa_status "$n" offline_in_progress
			g=$(($(node_gen "$n") + 1))
			set_node_state "$n" $g offlining
			say "MEM node $n: offline #$g begins at start $k (blocks ${blocks}); $(snapshot)"
			local done_blocks=() failed=""
			for ((j = 0; j < ${#ba[@]}; j++)); do
				msleep "${ga[j]}"
				if try_block "${ba[j]}" offline; then done_blocks+=("${ba[j]}"); else failed=${ba[j]}; break; fi
			done
			if [ -n "$failed" ]; then
				# Memory the kernel cannot migrate: give up as nvidia-persistenced would, put back
				# what was offlined; the node never lost all its memory.
				say "MEM node $n: offline #$g gave up on $failed (busy); onlining ${done_blocks[*]} again"
				for b in "${done_blocks[@]}"; do try_block "$b" online_movable; done
				set_numa_status "$n" online
				set_node_state "$n" $g online
			else
				wait_mems "$n" absent || echo "ASSERT-FAIL: node $n: still in a cpuset after offlining: $(snapshot)"
				set_numa_status "$n" offline
				set_node_state "$n" $g offline
				say "MEM node $n: offline #$g done; $(snapshot)"
			fi
		fi
		echo "$n $op $k" >>$S/mem-events
	done 3<$S/events."$n"
}
check_actor() { # check --fix in the background at the drawn starts; exit 0 or 1 are both fine
	local k c=0 rc
	while read -r k <&3; do
		wait_start "$k"
		c=$((c + 1))
		local before after
		before=$(snapshot)
		timeout 60 gpu-numa-hook --config $CONFIG check --fix </dev/null >$S/check.$c.out 2>&1 9<&-
		rc=$?
		after=$(snapshot)
		say "CHECK #$c at start $k: check --fix exit $rc; before: $before; after: $after"
		if [ $rc -ne 0 ] && [ $rc -ne 1 ]; then
			echo "ASSERT-FAIL: check --fix #$c (at start $k) exit $rc:"
			sed 's/^/  check| /' $S/check.$c.out
		fi
	done 3<$S/checks
}
# monitor: samples root and slice cpuset.mems; a GPU node may only disappear from a cpuset when the
# schedule was offlining it: seen present with (generation g, phase p) read before the sample, then
# absent with generation g2 read after the sample: fine iff g2 > g or p was offlining/offline.
monitor() {
	local -A seen prev
	local -a ga pa gb
	local n s m g p
	while [ ! -e $S/done ]; do
		for n in "${NODES[@]}"; do read -r g p <$S/node"$n"; ga[n]=$g; pa[n]=$p; done
		local -A cur=()
		for s in . "${SLICES[@]}"; do read -r m <"$CS/$s/cpuset.mems"; cur[$s]=$m; done
		for n in "${NODES[@]}"; do read -r g p <$S/node"$n"; gb[n]=$g; done
		for s in . "${SLICES[@]}"; do
			m=${cur[$s]}
			if [ "${prev[$s]-}" != "$m" ]; then
				ts; echo "[$TS] ${s} ${prev[$s]-} -> $m (gens ${gb[*]})" >>$S/monitor.log
				prev[$s]=$m
			fi
			for n in "${NODES[@]}"; do
				if has_node "$m" "$n"; then
					seen[$s:$n]="${ga[n]} ${pa[n]}"
				elif [ -n "${seen[$s:$n]-}" ]; then
					read -r g p <<<"${seen[$s:$n]}"
					if ((gb[n] > g)) || [ "$p" = offlining ] || [ "$p" = offline ]; then
						echo "[$TS] $s lost node $n: offline #${gb[n]} (present at gen $g $p)" >>$S/monitor.log
					else
						echo "[$TS] LOST: $s lost node $n with no offline begun (present at gen $g $p, now gen ${gb[n]})" >>$S/monitor.log
					fi
					unset "seen[$s:$n]"
				fi
			done
		done
		nap 0.2
	done
}
# run_start I: one container start, recorded in $S/rec/<id>
run_start() {
	local i=$1 id n g0="" g1="" t0 t1 rc left="" c
	printf -v id 's%04d' "$i"
	for n in "${NODES[@]}"; do g0+="$(node_gen "$n") "; done
	t0=$EPOCHREALTIME
	timeout $((SOAK_DEADLINE + 30)) "${RUNC[@]}" run --no-pivot --bundle $S/bundles/"$id" "$id" >$S/out/"$id" 2>&1 9<&-
	rc=$?
	t1=$EPOCHREALTIME
	for n in "${NODES[@]}"; do g1+="$(node_gen "$n") "; done
	for c in /sys/fs/cgroup/*/; do [ -d "$c${SL[i]}/$id" ] && left+="$c${SL[i]}/$id "; done
	"${RUNC[@]}" delete -f "$id" >/dev/null 2>&1
	local us=$((${t1/./} - ${t0/./}))
	printf '%s\n' "i=$i" "rc=$rc" "us=$us" "g0=$g0" "g1=$g1" "left=$left" "t0=$t0" >$S/rec/"$id"
	rm -f $S/running/"$id"
}

# --- run ---------------------------------------------------------------------------------------
echo "== soak begins: $(snapshot)"
monitor &
MON=$!
for n in "${NODES[@]}"; do node_actor "$n" & ACTORS+=($!); done
check_actor &
ACTORS+=($!)
for ((i = 1; i <= N; i++)); do
	((DELAY[i] > 0)) && msleep "${DELAY[i]}"
	while :; do
		r=("$S"/running/*)
		[ -e "${r[0]}" ] || r=()
		((${#r[@]} < SOAK_CONCURRENCY)) && break
		nap 0.05
	done
	printf -v id 's%04d' "$i"
	: >$S/running/"$id"
	run_start "$i" &
	: >$S/at/$i
	((i % 25 == 0)) && say "launched $i of $N; $(snapshot)"
done
wait "${ACTORS[@]}"
while r=("$S"/running/*) && [ -e "${r[0]}" ]; do nap 0.2; done
: >$S/done
wait $MON
ts
echo "== soak schedule ran in ${TS}s: $(snapshot)"

# --- verdict -----------------------------------------------------------------------------------
FAILS=0
afail() { echo "ASSERT-FAIL: $*"; FAILS=$((FAILS + 1)); }

# The hook log: lines per container, the action, the duration.
declare -A LOGN LOGA LOGLV LOGMA
MAXHOOK=0
while read -r line; do
	[[ $line =~ container=([^ ]+) ]] || continue
	id=${BASH_REMATCH[1]}
	LOGN[$id]=$((${LOGN[$id]:-0} + 1))
	[[ $line =~ action=([a-z]+) ]] && LOGA[$id]=${BASH_REMATCH[1]}
	[[ $line =~ ^[^\ ]+\ ([a-z]+)\  ]] && LOGLV[$id]=${BASH_REMATCH[1]}
	[[ $line =~ mems-after=([^ ]+) ]] && LOGMA[$id]=${BASH_REMATCH[1]}
	[[ $line =~ duration-us=([0-9]+) ]] && ((BASH_REMATCH[1] > MAXHOOK)) && MAXHOOK=${BASH_REMATCH[1]}
done <$HOOK_LOG

OK=0 REF=0 BROKEN=0 DIST=0 DIST_RUNC=0 MAXUS=0 LOGBAD=0
for ((i = 1; i <= N; i++)); do
	printf -v id 's%04d' "$i"
	f=$S/rec/$id
	if [ ! -f "$f" ]; then
		echo "START $id class=broken why=no-record"
		BROKEN=$((BROKEN + 1))
		continue
	fi
	unset rc us g0 g1 left
	while IFS='=' read -r k v; do printf -v "$k" '%s' "$v"; done <"$f"
	o=$S/out/$id
	nodes=""
	for m in ${GP[i]//,/ }; do nodes+=" $((m + 1))"; done
	read -r -a G0 <<<"$g0"
	read -r -a G1 <<<"$g1"
	((us > MAXUS)) && MAXUS=$us
	sec=$(awk -v u="$us" 'BEGIN{printf "%.2f", u/1e6}')
	smems=$(sed -n 's/^numa_touch: Mems_allowed_list: //p' "$o" | head -n1)
	emems=$(sed -n 's/^soak: end Mems_allowed_list: //p' "$o" | head -n1)
	ran=0
	grep -q '^numa_touch:' "$o" && ran=1
	why=""
	if ((us > SOAK_DEADLINE * 1000000)) || [ "$rc" = 124 ] || [ "$rc" = 137 ]; then
		class=broken why="over the ${SOAK_DEADLINE}s deadline (runc exit $rc)"
	elif grep -q "gpu-numa-hook: container $id: refusing start" "$o"; then
		class=refused
		[ "$rc" != 0 ] || why+="runc exit 0 after a refusal; "
		((ran)) && why+="the process ran; "
		[ -n "$left" ] && why+="cgroup left: $left; "
		[ -n "$why" ] && class=broken
	else
		# Started (or failed in runc). Each problem must be explained by an offline of the node
		# concerned that began during the start (disturbed), else the start is broken. For a node
		# problem the offline alone is not enough: the node must have reached the container (in
		# its Mems_allowed_list at start, or in the cgroup as the hook logged it: mems-after), or
		# the hook must have logged an error (its write lost a race with the removal), or runc
		# must have failed before the process ran. A hook that let the start go on without the
		# node, with no error, is broken whatever the schedule did.
		# Any node's offline counts, not only the container's own: when an offline shrinks a
		# running container's cpuset, the kernel rebinds its MPOL_BIND policy positionally
		# (mpol_rebind_nodemask: the 2nd node of {0,1,2} is the 2nd of {0,2}), so losing node 1
		# moves memory bound to node 2 to node 0.
		unexplained="" moved=0
		for n in "${NODES[@]}"; do ((G1[n - 1] > G0[n - 1])) && moved=1; done
		for n in $nodes; do
			p=""
			has_node "$smems" "$n" || p+="started without node $n (Mems_allowed_list '${smems:--}'); "
			grep -q "^numa_touch: node $n: OK" "$o" || p+="numa_touch $n: $(grep "^numa_touch: node $n:" "$o" | cut -d: -f3- | head -n1); "
			has_node "$smems" "$n" && [ -n "$emems" ] && ! has_node "$emems" "$n" && p+="lost node $n while running (end '$emems'); "
			[ -z "$p" ] && continue
			why+=$p
			if ((moved)) && { ((!ran)) || has_node "$smems" "$n" ||
				[ "${LOGLV[$id]-}" = error ] || has_node "${LOGMA[$id]:--}" "$n"; }; then
				:
			else
				unexplained+="node $n; "
			fi
		done
		[ "$rc" = 0 ] || why+="runc exit $rc; "
		[ -n "$left" ] && why+="cgroup left: $left; "
		((ran)) || why+="the process did not run; "
		# A cpuset widened under a running process rebinds its MPOL_BIND policy positionally too
		# (bound to node 2 in {0,2}, it is bound to node 1 in {0,1,2}): name it for the triage.
		[ -n "$why" ] && [ -n "$smems" ] && [ -n "$emems" ] && [ "$smems" != "$emems" ] &&
			why+="its cpuset changed while it ran ($smems -> $emems; the kernel rebinds MPOL_BIND positionally); "
		if [ -z "$why" ]; then
			class=ok
		elif ((moved)) && [ -z "$unexplained" ]; then
			class=disturbed
		else
			class=broken
			[ -n "$unexplained" ] && why+="not explained by an offline: $unexplained"
		fi
	fi
	# one hook log line per hook invocation: every start but one runc failed before its hook ran
	ln=${LOGN[$id]:-0}
	if [ "$ln" != 1 ] && ! { [ "$class" = disturbed ] && [ "$ln" = 0 ] && ((!ran)); }; then
		afail "hook log: $ln lines for container $id (want 1)"
		LOGBAD=$((LOGBAD + 1))
	fi
	# the hook's own account must match: refuse for a refusal, allow or patch for a clean start
	case $class:${LOGA[$id]:--} in
	refused:refuse | ok:allow | ok:patch | disturbed:* | broken:*) ;;
	*) afail "hook log: container $id is $class but the hook logged action=${LOGA[$id]:--}" ;;
	esac
	case $class in
	ok) OK=$((OK + 1)) ;;
	refused) REF=$((REF + 1)) ;;
	disturbed) DIST=$((DIST + 1)); ((ran)) || DIST_RUNC=$((DIST_RUNC + 1)) ;;
	broken) BROKEN=$((BROKEN + 1)) ;;
	esac
	echo "START $id class=$class ${sec}s /${SL[i]} ${ST[i]} gpus=${GP[i]} via ${FORM[i]} gens ${g0% }->${g1% } rc=$rc log=${LOGA[$id]:--} mems=${smems:--}${why:+ why: $why}"
	if [ "$class" = broken ]; then
		sed 's/^/  out| /' "$o"
		grep "container=$id " $HOOK_LOG | sed 's/^/  log| /'
	fi
done

# A cpuset lost a node the schedule did not offline?
lost=$(grep -c 'LOST:' $S/monitor.log)
if [ "$lost" -gt 0 ]; then
	grep 'LOST:' $S/monitor.log | while read -r l; do afail "monitor: $l"; done
	FAILS=$((FAILS + lost))
else
	echo "  monitor: $(wc -l <$S/monitor.log) cpuset changes seen, $(grep -c ' lost node ' $S/monitor.log) node removals, each after its offline began"
fi

# No container cgroup left anywhere; then one check --fix, and check must be clean.
left=$(for c in /sys/fs/cgroup/*/; do
	[ -L "${c%/}" ] && continue
	for s in "${PARENTS[@]}"; do ls -d "$c$s"/s[0-9][0-9][0-9][0-9] 2>/dev/null; done
done | tr '\n' ' ')
[ -z "$left" ] || afail "container cgroups left behind: $left"
echo "  final state: $(snapshot); numa_status: $(for n in "${NODES[@]}"; do sed -n 's/^Status: *//p' /proc/driver/nvidia/gpus/0000:0"$n":00.0/numa_status; done | tr '\n' ' ')"
timeout 60 gpu-numa-hook --config $CONFIG check --fix >$S/final-fix.out 2>&1
rcf=$?
timeout 60 gpu-numa-hook --config $CONFIG check >$S/final-check.out 2>&1
rcc=$?
if [ $rcc -eq 0 ]; then
	echo "  final: check --fix exit $rcf, then check exit 0; $(snapshot)"
else
	afail "final check after one check --fix: exit $rcc (check --fix exit $rcf)"
	sed 's/^/  fix| /' $S/final-fix.out
	sed 's/^/  check| /' $S/final-check.out
fi
HOOK_LINES=$(wc -l <$HOOK_LOG)
# The hook's own errors (on-error=allow lets the start go on): shown, not failed by themselves; a
# start they hurt is broken or disturbed above.
HOOK_ERRORS=$(grep -c '^[^ ]* error .*msg="hook error' $HOOK_LOG)
if [ "$HOOK_ERRORS" -gt 0 ]; then
	echo "  hook errors: $HOOK_ERRORS (first 10 below)"
	grep '^[^ ]* error .*msg="hook error' $HOOK_LOG | head -n 10 | sed 's/^/  log| /'
fi
echo "  hook log: $HOOK_LINES lines ($HOOK_ERRORS hook errors), longest hook run $((MAXHOOK / 1000)) ms; longest start $(awk -v u="$MAXUS" 'BEGIN{printf "%.2f", u/1e6}')s (deadline ${SOAK_DEADLINE}s)"
echo "  disturbed: $DIST starts ($DIST_RUNC of them failed in runc before the process ran): an offline began during the start and took their node"
echo "SOAK-SUMMARY: starts=$N ok=$OK disturbed=$DIST refused=$REF broken=$BROKEN assert_fails=$FAILS"
finish
