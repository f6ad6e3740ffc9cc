#!/usr/bin/python3
"""Runs a DaemonSet's pod template through containerd's CRI server the way kubelet runs it, for
tests/k8s/run-daemonset-test.sh. No kubelet and no API server here: this does kubelet's part for
one pod on one node, from the manifests `kustomize build` printed:

  - hostPath volumes checked and created by their type (Directory, DirectoryOrCreate, FileOrCreate);
  - RunPodSandbox with the pod's namespaces (hostNetwork/hostPID/hostIPC), pod security context
    (runAsUser, runAsGroup, seccompProfile; privileged when a container is) and cgroup parent;
  - each init container created, started and waited for, in order; a non-zero exit fails the pod;
  - then every container, with kubelet's translation of its spec: command and args, env, the
    volume mounts (readOnly, mountPropagation), resources (cpu shares from requests, memory limit),
    and its security context merged over the pod's (capabilities drop, privileged,
    readOnlyRootFilesystem, allowPrivilegeEscalation as no_new_privs, seccomp, kubelet's default
    masked and read-only /proc paths for an unprivileged container);
  - deletion as kubelet deletes a pod: StopContainer with the grace period, then the sandbox.

Usage: kubelet_pod.py GENDIR SOCKET CALL ARGS...
  run MANIFESTS.yaml NAME UID CGROUP_PARENT LOGDIR   prints "<container name> <id>" lines, the sandbox first
  delete SANDBOX_ID GRACE_SECONDS CONTAINER_ID...     stops the containers (grace), the sandbox, removes it
  exec CONTAINER_ID TIMEOUT CMD...                    ExecSync (an exec probe): prints stdout, exits with its code
  state CONTAINER_ID                                  prints "STATE exit_code"
A gRPC error prints "grpc-error: CODE: details" and exits 3; a pod kubelet would not start, 4.
"""
import os
import sys
import time

import yaml

sys.path.insert(0, sys.argv[1])
import grpc  # noqa: E402
import cri_subset_pb2 as api  # noqa: E402
import cri_subset_pb2_grpc as api_grpc  # noqa: E402

T = 120
# kubelet's defaults for procMount: Default (pkg/securitycontext), sent on every container.
MASKED = ["/proc/asound", "/proc/acpi", "/proc/kcore", "/proc/keys", "/proc/latency_stats", "/proc/timer_list",
          "/proc/timer_stats", "/proc/sched_debug", "/proc/scsi", "/sys/firmware", "/sys/devices/virtual/powercap"]
READONLY = ["/proc/bus", "/proc/fs", "/proc/irq", "/proc/sys", "/proc/sysrq-trigger"]
# A volume mount's mountPropagation as kubelet hands it to CRI.
PROPAGATION = {"None": api.PROPAGATION_PRIVATE, "HostToContainer": api.PROPAGATION_HOST_TO_CONTAINER,
               "Bidirectional": api.PROPAGATION_BIDIRECTIONAL}


class PodRefused(Exception):
    pass


def daemonset(manifests):
    with open(manifests) as f:
        for doc in yaml.safe_load_all(f):
            if doc and doc.get("kind") == "DaemonSet":
                return doc
    raise PodRefused("no DaemonSet in " + manifests)


def namespaces(spec):
    mode = lambda host: api.NODE if host else None  # noqa: E731
    return api.NamespaceOption(network=mode(spec.get("hostNetwork")) or api.POD,
                               pid=mode(spec.get("hostPID")) or api.CONTAINER,
                               ipc=mode(spec.get("hostIPC")) or api.POD)


def seccomp(sc):
    kind = (sc.get("seccompProfile") or {}).get("type")
    if kind == "RuntimeDefault":
        return api.SecurityProfile(profile_type=api.SecurityProfile.RuntimeDefault)
    if kind == "Localhost":
        return api.SecurityProfile(profile_type=api.SecurityProfile.Localhost,
                                   localhost_ref=sc["seccompProfile"]["localhostProfile"])
    return api.SecurityProfile(profile_type=api.SecurityProfile.Unconfined)  # kubelet's default


def int64(v):
    return api.Int64Value(value=int(v)) if v is not None else None


def sandbox_config(ds, name, uid, cgroup_parent, logdir):
    spec = ds["spec"]["template"]["spec"]
    psc = spec.get("securityContext") or {}
    ns = ds["metadata"].get("namespace", "default")
    labels = dict(ds["spec"]["template"]["metadata"].get("labels") or {})
    labels.update({"io.kubernetes.pod.name": name, "io.kubernetes.pod.namespace": ns, "io.kubernetes.pod.uid": uid})
    return api.PodSandboxConfig(
        metadata=api.PodSandboxMetadata(name=name, uid=uid, namespace=ns, attempt=0),
        hostname=name, log_directory=logdir, labels=labels,
        linux=api.LinuxPodSandboxConfig(
            cgroup_parent=cgroup_parent,
            security_context=api.LinuxSandboxSecurityContext(
                namespace_options=namespaces(spec), run_as_user=int64(psc.get("runAsUser")),
                run_as_group=int64(psc.get("runAsGroup")), seccomp=seccomp(psc),
                # kubelet: a sandbox is privileged when any of its containers is (containerd
                # refuses a privileged container in a sandbox that is not)
                privileged=any((c.get("securityContext") or {}).get("privileged")
                               for c in (spec.get("initContainers") or []) + spec["containers"]))))


def quantity(q, milli=False):
    """A Kubernetes quantity: in millis (cpu) or bytes (memory)."""
    q = str(q)
    if milli:
        return int(q[:-1]) if q.endswith("m") else int(float(q) * 1000)
    units = {"Ki": 1 << 10, "Mi": 1 << 20, "Gi": 1 << 30, "k": 10**3, "M": 10**6, "G": 10**9}
    for u, f in units.items():
        if q.endswith(u):
            return int(q[: -len(u)]) * f
    return int(q)


def host_paths(spec):
    """Checks and creates hostPath volumes as kubelet does before the pod starts."""
    paths = {}
    for v in spec.get("volumes") or []:
        hp = v.get("hostPath")
        if hp is None:
            raise PodRefused("volume %s: only hostPath volumes are run here" % v["name"])
        path, kind = hp["path"], hp.get("type", "")
        if kind == "DirectoryOrCreate":
            os.makedirs(path, mode=0o755, exist_ok=True)
        elif kind == "FileOrCreate":
            os.makedirs(os.path.dirname(path), exist_ok=True)
            if not os.path.exists(path):
                os.close(os.open(path, os.O_CREAT | os.O_WRONLY, 0o644))
        elif kind == "Directory" and not os.path.isdir(path):
            raise PodRefused("hostPath type check failed: %s is not a directory" % path)
        paths[v["name"]] = path
    return paths


def container_config(ds, c, paths, pod_uid):
    spec = ds["spec"]["template"]["spec"]
    psc = spec.get("securityContext") or {}
    sc = c.get("securityContext") or {}
    merged = dict(psc, **sc)
    res = c.get("resources") or {}
    cpu_milli = quantity(res.get("requests", {}).get("cpu", "0"), milli=True)
    mem = quantity(res["limits"]["memory"]) if "memory" in res.get("limits", {}) else 0
    caps = sc.get("capabilities") or {}
    mounts = [api.Mount(container_path=m["mountPath"], host_path=paths[m["name"]], readonly=bool(m.get("readOnly")),
                        propagation=PROPAGATION[m.get("mountPropagation", "None")])
              for m in c.get("volumeMounts") or []]
    privileged = bool(sc.get("privileged"))
    return api.ContainerConfig(
        metadata=api.ContainerMetadata(name=c["name"], attempt=0),
        image=api.ImageSpec(image=c["image"]),
        command=c.get("command") or [], args=c.get("args") or [],
        envs=[api.KeyValue(key=e["name"], value=str(e.get("value", ""))) for e in c.get("env") or []],
        mounts=mounts,
        labels={"io.kubernetes.container.name": c["name"], "io.kubernetes.pod.uid": pod_uid},
        log_path=c["name"] + "/0.log",
        linux=api.LinuxContainerConfig(
            resources=api.LinuxContainerResources(cpu_shares=max(2, cpu_milli * 1024 // 1000),
                                                  memory_limit_in_bytes=mem),
            security_context=api.LinuxContainerSecurityContext(
                capabilities=api.Capability(add_capabilities=caps.get("add") or [],
                                            drop_capabilities=caps.get("drop") or []),
                privileged=privileged,
                namespace_options=namespaces(spec),
                run_as_user=int64(merged.get("runAsUser")), run_as_group=int64(merged.get("runAsGroup")),
                readonly_rootfs=bool(sc.get("readOnlyRootFilesystem")),
                no_new_privs=sc.get("allowPrivilegeEscalation") is False,
                # kubelet masks and write-protects /proc paths only for unprivileged containers
                masked_paths=[] if privileged else MASKED, readonly_paths=[] if privileged else READONLY,
                seccomp=seccomp(merged))))


def wait_exited(stub, cid):
    while True:
        st = stub.ContainerStatus(api.ContainerStatusRequest(container_id=cid), timeout=T).status
        if st.state == api.CONTAINER_EXITED:
            return st.exit_code
        time.sleep(0.1)


def run(stub, manifests, name, uid, cgroup_parent, logdir):
    ds = daemonset(manifests)
    spec = ds["spec"]["template"]["spec"]
    paths = host_paths(spec)
    sbc = sandbox_config(ds, name, uid, cgroup_parent, logdir)
    sid = stub.RunPodSandbox(api.RunPodSandboxRequest(config=sbc), timeout=T).pod_sandbox_id
    print("sandbox", sid, flush=True)
    for kind in ("initContainers", "containers"):
        for c in spec.get(kind) or []:
            cid = stub.CreateContainer(api.CreateContainerRequest(
                pod_sandbox_id=sid, config=container_config(ds, c, paths, uid), sandbox_config=sbc), timeout=T).container_id
            stub.StartContainer(api.StartContainerRequest(container_id=cid), timeout=T)
            print(c["name"], cid, flush=True)
            if kind == "initContainers":
                code = wait_exited(stub, cid)
                if code != 0:
                    raise PodRefused("init container %s exited %d: kubelet would restart it, never the containers" % (c["name"], code))


def delete(stub, sid, grace, cids):
    for cid in cids:
        stub.StopContainer(api.StopContainerRequest(container_id=cid, timeout=grace), timeout=T + grace)
    stub.StopPodSandbox(api.StopPodSandboxRequest(pod_sandbox_id=sid), timeout=T)
    stub.RemovePodSandbox(api.RemovePodSandboxRequest(pod_sandbox_id=sid), timeout=T)
    print("ok")


def main(argv):
    sock, call, args = argv[2], argv[3], argv[4:]
    stub = api_grpc.RuntimeServiceStub(grpc.insecure_channel("unix://" + sock))
    try:
        if call == "run":
            run(stub, *args[:5])
        elif call == "delete":
            delete(stub, args[0], int(args[1]), args[2:])
        elif call == "exec":
            r = stub.ExecSync(api.ExecSyncRequest(container_id=args[0], cmd=args[2:], timeout=int(args[1])),
                              timeout=T)
            sys.stdout.write(r.stdout.decode(errors="replace") + r.stderr.decode(errors="replace"))
            return r.exit_code
        elif call == "state":
            st = stub.ContainerStatus(api.ContainerStatusRequest(container_id=args[0]), timeout=T).status
            print(api.ContainerState.Name(st.state), st.exit_code)
        else:
            raise SystemExit("unknown call " + call)
    except grpc.RpcError as e:
        print("grpc-error: %s: %s" % (e.code().name, e.details()))
        return 3
    except PodRefused as e:
        print("pod not started: %s" % e)
        return 4
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
