#!/usr/bin/python3
"""A kubelet-shaped CRI client for tests/engine/run-cri-tests.sh: one RuntimeService call per
invocation, over containerd's gRPC socket, with the messages kubelet sends for a pod on the host
network. Output: the id a call returns (or "ok"); a gRPC error is printed as
"grpc-error: CODE: details" on stdout with exit status 3, so the test can assert the exact text.

Usage: cri_client.py GENDIR SOCKET CALL ARGS...
  version
  run-sandbox NAME UID HANDLER CGROUP_PARENT LOGDIR
  create SANDBOX_ID POD_NAME UID CGROUP_PARENT LOGDIR NAME IMAGE CMD [--env K=V]... [--device HOST:CTR] [--mems M]
         [--annotation K=V]... [--cdi VENDOR/CLASS=NAME]...
  start ID | stop ID | remove ID | stop-sandbox ID | remove-sandbox ID
  update ID CPUSET_MEMS
  update-cpus ID CPUSET_CPUS     (kubelet's CPU Manager: cpuset_cpus only, no mems)
Environment: CRI_POD_ANNOTATIONS, a JSON object: the pod's annotations, which kubelet sends in
the sandbox config of RunPodSandbox and of every CreateContainer.
"""
import json
import os
import sys

sys.path.insert(0, sys.argv[1])
import grpc  # noqa: E402
import cri_subset_pb2 as api  # noqa: E402
import cri_subset_pb2_grpc as api_grpc  # noqa: E402


def sandbox_config(name, uid, cgroup_parent, logdir, annotation_bytes=0):
    # What kubelet sends for a hostNetwork pod: network, pid and ipc of the node's choosing
    # (network NODE: no CNI), its cgroup parent, labels naming the pod; optionally one annotation
    # of annotation_bytes (a pod carrying a large config, as operators' pods do).
    ns = api.NamespaceOption(network=api.NODE, pid=api.CONTAINER, ipc=api.POD)
    annotations = {"example.com/blob": "x" * annotation_bytes} if annotation_bytes else {}
    annotations.update(json.loads(os.environ.get("CRI_POD_ANNOTATIONS") or "{}"))
    return api.PodSandboxConfig(
        metadata=api.PodSandboxMetadata(name=name, uid=uid, namespace="default", attempt=0),
        log_directory=logdir,
        labels={"io.kubernetes.pod.name": name, "io.kubernetes.pod.namespace": "default"},
        annotations=annotations,
        linux=api.LinuxPodSandboxConfig(
            cgroup_parent=cgroup_parent,
            security_context=api.LinuxSandboxSecurityContext(namespace_options=ns)))


def main(argv):
    sock, call, args = argv[2], argv[3], argv[4:]
    stub = api_grpc.RuntimeServiceStub(grpc.insecure_channel("unix://" + sock))
    t = 120
    try:
        if call == "version":
            r = stub.Version(api.VersionRequest(version="v1"), timeout=t)
            print(r.runtime_name, r.runtime_version, r.runtime_api_version)
        elif call == "run-sandbox":
            name, uid, handler, cgp, logdir = args[:5]
            size = int(args[5]) if len(args) > 5 else 0
            r = stub.RunPodSandbox(api.RunPodSandboxRequest(config=sandbox_config(name, uid, cgp, logdir, size),
                                                            runtime_handler=handler), timeout=t)
            print(r.pod_sandbox_id)
        elif call == "create":
            sid, pod, uid, cgp, logdir, name, image, cmd = args[:8]
            envs, devices, mems, annotations, cdi, mounts = [], [], "", {}, [], []
            rest = args[8:]
            while rest:
                opt, val, rest = rest[0], rest[1], rest[2:]
                if opt == "--env":
                    k, v = val.split("=", 1)
                    envs.append(api.KeyValue(key=k, value=v))
                elif opt == "--device":
                    host, ctr = val.split(":", 1)
                    devices.append(api.Device(host_path=host, container_path=ctr, permissions="rw"))
                elif opt == "--mems":
                    mems = val
                elif opt == "--annotation":  # the pod's annotations, as kubelet passes them on
                    k, v = val.split("=", 1)
                    annotations[k] = v
                elif opt == "--mount":  # HOST:CONTAINER[:ro], as kubelet adds a device plugin's mounts
                    host, ctr, *ro = val.split(":")
                    mounts.append(api.Mount(host_path=host, container_path=ctr, readonly=ro == ["ro"]))
                elif opt == "--cdi":  # a CDI device kubelet names (the device plugin's cdi-cri strategy)
                    cdi.append(api.CDIDevice(name=val))
                else:
                    raise SystemExit("unknown option " + opt)
            cfg = api.ContainerConfig(
                metadata=api.ContainerMetadata(name=name, attempt=0),
                image=api.ImageSpec(image=image, user_specified_image=image),
                command=["/bin/sh", "-c", cmd],
                envs=envs, devices=devices, mounts=mounts, annotations=annotations, log_path=name + ".log", CDI_devices=cdi,
                linux=api.LinuxContainerConfig(
                    resources=api.LinuxContainerResources(cpu_shares=2, cpuset_mems=mems),
                    security_context=api.LinuxContainerSecurityContext(
                        namespace_options=api.NamespaceOption(network=api.NODE, pid=api.CONTAINER, ipc=api.POD))))
            r = stub.CreateContainer(api.CreateContainerRequest(
                pod_sandbox_id=sid, config=cfg, sandbox_config=sandbox_config(pod, uid, cgp, logdir)), timeout=t)
            print(r.container_id)
        elif call == "start":
            stub.StartContainer(api.StartContainerRequest(container_id=args[0]), timeout=t)
            print("ok")
        elif call == "update":
            # What kubelet's CPU/Memory Manager sends: the container's resources with new cpuset values.
            stub.UpdateContainerResources(api.UpdateContainerResourcesRequest(
                container_id=args[0], linux=api.LinuxContainerResources(cpu_shares=2, cpuset_mems=args[1])), timeout=t)
            print("ok")
        elif call == "update-cpus":
            # kubelet's CPU Manager (reconcile): only the cpuset, nothing else set.
            stub.UpdateContainerResources(api.UpdateContainerResourcesRequest(
                container_id=args[0], linux=api.LinuxContainerResources(cpuset_cpus=args[1])), timeout=t)
            print("ok")
        elif call == "stop":
            stub.StopContainer(api.StopContainerRequest(container_id=args[0], timeout=0), timeout=t)
            print("ok")
        elif call == "remove":
            stub.RemoveContainer(api.RemoveContainerRequest(container_id=args[0]), timeout=t)
            print("ok")
        elif call == "stop-sandbox":
            stub.StopPodSandbox(api.StopPodSandboxRequest(pod_sandbox_id=args[0]), timeout=t)
            print("ok")
        elif call == "remove-sandbox":
            stub.RemovePodSandbox(api.RemovePodSandboxRequest(pod_sandbox_id=args[0]), timeout=t)
            print("ok")
        else:
            raise SystemExit("unknown call " + call)
    except grpc.RpcError as e:
        print("grpc-error: %s: %s" % (e.code().name, e.details()))
        return 3
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
