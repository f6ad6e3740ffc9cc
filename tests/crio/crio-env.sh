# shellcheck shell=bash
# The CRI-O node of tests/crio/run-crio-tests.sh (sourced inside its private mount namespace, after
# tests/engine/lib.sh): OpenShift's layout, written into the namespace's /etc overlay, so that CRI-O,
# `crio config` and `gpu-numa-hook install` all use their default paths and the host's /etc is never
# touched. Needs TMP, CGP, RUNC, CONMON, CRIO_ROOT.
#   /etc/crio/crio.conf                      the package's file: comments only, as distributions ship it
#   /etc/crio/crio.conf.d/00-default         OpenShift's machine-config drop-in (no .toml suffix):
#                                            runc the default runtime, hooks_dir the admin's hooks.d,
#                                            NRI off (so that `install --runtime crio-nri` has work to do)
#   /etc/crio/crio.conf.d/01-gnh-test.conf   this run's plumbing: its own root, runroot, sockets, dirs
#   /etc/containers/oci/hooks.d              OpenShift's hooks directory, empty
# Test-only hooks (the stale-cpuset stand-in of the patch case) sit in a second hooks directory
# under $TMP, so /etc/containers/oci/hooks.d holds only what install writes.

crio_write_node_config() {
    mkdir -p /etc/crio/crio.conf.d /etc/containers/oci/hooks.d "$TMP/test-hooks.d" "$TMP/crio-state"/{exits,attach,ns,logs,cdi,keys,tmp,policies}
    # a tmpfs over each: whatever the host has there stays out of this node (and out of the undo check)
    tmpfs_over gnh-crio-etc /etc/crio /etc/containers/oci/hooks.d
    mkdir -p /etc/crio/crio.conf.d
    printf '# The CRI-O configuration file (every setting commented out: the built-in defaults hold).\n# [crio.runtime]\n# default_runtime = "crun"\n' >/etc/crio/crio.conf
    cat >/etc/crio/crio.conf.d/00-default <<EOF
[crio.runtime]
default_runtime = "runc"
cgroup_manager = "cgroupfs"
conmon_cgroup = "pod"
hooks_dir = ["/etc/containers/oci/hooks.d"]

[crio.runtime.runtimes.runc]
runtime_path = "$RUNC"
runtime_type = "oci"
runtime_root = "$TMP/crio-state/runc"
monitor_path = "$CONMON"
monitor_env = ["PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"]

[crio.nri]
enable_nri = false
EOF
    local S=$TMP/crio-state
    cat >/etc/crio/crio.conf.d/01-gnh-test.conf <<EOF
[crio]
root = "$S/storage"
runroot = "$S/run/storage"
storage_driver = "vfs"
log_dir = "$S/logs"
version_file = "$S/run/version"
version_file_persist = "$S/version"
clean_shutdown_file = "$S/clean.shutdown"

[crio.api]
listen = "$CRIO_SOCK"
stream_address = "127.0.0.1"
stream_port = "0"

[crio.runtime]
hooks_dir = ["/etc/containers/oci/hooks.d", "$TMP/test-hooks.d"]
container_exits_dir = "$S/exits"
container_attach_socket_dir = "$S/attach"
namespaces_dir = "$S/ns"
pinns_path = "$CRIO_ROOT/bin/pinns"
decryption_keys_path = "$S/keys"
cdi_spec_dirs = ["$S/cdi"]
irqbalance_config_file = "$S/irqbalance"
irqbalance_config_restore_file = "disable"
# hostPort mapping needs iptables or nft, which this machine lacks (crio would exit at start)
disable_hostport_mapping = true

[crio.image]
pause_image = "$IMG"
pinned_images = ["$IMG"]
signature_policy = "$S/policy.json"
signature_policy_dir = "$S/policies"
big_files_temporary_dir = "$S/tmp"

[crio.network]
network_dir = "$S/cni-conf"
plugin_dirs = ["$S/cni-bin"]

[crio.nri]
nri_listen = "$NRI_SOCK"
nri_plugin_dir = "$S/nri-plugins"
nri_plugin_config_dir = "$S/nri-conf"
EOF
    mkdir -p "$S"/{cni-conf,cni-bin,nri-plugins,nri-conf}
    echo '{"default":[{"type":"insecureAcceptAnything"}]}' >"$S/policy.json"
    printf 'unqualified-search-registries = []\n' >"$S/registries.conf"
}

# crio_effective: CRI-O's effective configuration as JSON (`crio config` at its default paths,
# parsed with Python's tomllib), for jq.
# CRI-O prints a key whose value is its built-in default commented out ("# enable_nri = true"):
# crio_printed SECTION KEY gives the key's line as printed in the last crio_effective's text.
crio_effective() {
    "$CRIO_ROOT/bin/crio" --config /etc/crio/crio.conf --config-dir /etc/crio/crio.conf.d config 2>"$TMP/crio-config.err" |
        tee "$TMP/effective.toml" | "$PY" -c 'import json, sys, tomllib; print(json.dumps(tomllib.loads(sys.stdin.read())))'
}
crio_printed() {
    sed -n "/^\[$1\]\$/,/^\[/p" "$TMP/effective.toml" | grep -E "^(# )?$2 = " | head -n1
}

# crio_load_image: the busybox image, built offline (tests/engine/cri/make_image.py) and loaded into
# this node's containers-storage with the tarball's copyimg (no registry, no podman or skopeo).
crio_load_image() {
    "$PY" "$ENGINE_DIR/cri/make_image.py" "$TMP/image.tar" "$IMG" "$TMP/rootfs" sleep 2147483647 &&
        CONTAINERS_REGISTRIES_CONF=$TMP/crio-state/registries.conf "$CRIO_ROOT/bin/copyimg" \
            --root "$TMP/crio-state/storage" --runroot "$TMP/crio-state/run/storage" --storage-driver vfs \
            --signature-policy "$TMP/crio-state/policy.json" --image-name "$IMG" --import-from "oci-archive:$TMP/image.tar"
}

# start_crio: crio at its default config paths, in this namespace, pid in $TMP/crio.pid; at debug
# level, where CRI-O says which hooks.d file it added ("added hook ...")
start_crio() {
    CONTAINERS_REGISTRIES_CONF=$TMP/crio-state/registries.conf "$CRIO_ROOT/bin/crio" --log-level debug >"$TMP/crio.log" 2>&1 &
    echo $! >"$TMP/crio.pid"
}

# crio_kill_leftovers: what this run's CRI-O left running (conmon names $TMP on its command line;
# a container's processes sit in a cgroup under our parent), killed by pid.
crio_kill_leftovers() {
    local p f
    for p in /proc/[0-9]*; do
        { tr '\0' ' ' <"$p/cmdline"; } 2>/dev/null | grep -qF "$TMP/" && kill -KILL "${p#/proc/}" 2>/dev/null
    done
    for f in /sys/fs/cgroup/*/"${CGP#/}"/*/cgroup.procs /sys/fs/cgroup/*/"${CGP#/}"/*/*/cgroup.procs; do
        [ -f "$f" ] || continue
        while read -r p; do kill -KILL "$p" 2>/dev/null; done <"$f"
    done
    return 0
}

# write_stale_hook: a test-only prestart hook, run before ours (CRI-O orders hooks by file name
# across its hooks directories) for containers annotated gnh.test/stale-cpuset=true. This host has
# one memory node, so a cpuset that holds a task always has it; the only stale value it can show is
# a fresh v1 cpuset's empty one. The hook makes $CGP/stale/c (mems empty, like its parent) and puts
# a stand-in /proc/<pid>/cgroup naming it over the container's (a bind mount in this namespace,
# where runc runs the hooks), as tests/fixture/sandbox_real_cgroup_test.cc does: our hook then
# patches that real cgroup chain top-down. The container itself stays in its own cgroup.
write_stale_hook() {
    cat >"$TMP/test-hooks.d/stale-cpuset.sh" <<EOS
#!/bin/sh
pid=\$(sed -n 's/.*"pid": *\([0-9]*\).*/\1/p')
mkdir -p "$CPUSET$CGP/stale/c" || exit 1
printf '99:cpuset:%s\n' "$CGP/stale/c" >"$TMP/stale-cgroup.\$pid" &&
    mount --bind "$TMP/stale-cgroup.\$pid" "/proc/\$pid/cgroup"
EOS
    chmod 755 "$TMP/test-hooks.d/stale-cpuset.sh"
    cat >"$TMP/test-hooks.d/00-gnh-stale-cpuset.json" <<EOF2
{"version": "1.0.0", "hook": {"path": "$TMP/test-hooks.d/stale-cpuset.sh", "env": ["PATH=/usr/sbin:/usr/bin:/sbin:/bin"]},
 "when": {"annotations": {"^gnh\\\\.test/stale-cpuset\$": "^true\$"}}, "stages": ["prestart"]}
EOF2
}
