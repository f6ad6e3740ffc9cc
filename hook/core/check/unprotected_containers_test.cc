#include "check/unprotected_containers.h"

#include <doctest/doctest.h>

using namespace gnh;

namespace {

const std::string kGpuDevice =
    R"("linux":{"devices":[{"path":"/dev/nvidia0","type":"c","major":195,"minor":0}]})";

std::string spec(const std::string& members) { return "{" + members + "}"; }

ObservedContainer running(const std::string& id, const std::string& config_json) {
  return {id, "runc", "/run/containerd/runc/k8s.io", config_json};
}

}  // namespace

TEST_CASE("unprotected: a GPU container without our hook is named with its runtime and how it got its GPU") {
  auto scan = unprotected_gpu_containers({running("c1", spec(kGpuDevice))});
  REQUIRE(scan.containers.size() == 1);
  const auto& u = scan.containers[0];
  CHECK(u.id == "c1");
  CHECK(u.runtime == "runc");
  CHECK(u.root == "/run/containerd/runc/k8s.io");
  CHECK(u.sources == std::vector<std::string>{"linux.devices"});
  CHECK(u.names.empty());
  CHECK(scan.unreadable.empty());
  CHECK(unprotected_line(u) ==
        "GPU container running without gpu-numa-hook: container c1, runc (/run/containerd/runc/k8s.io), GPU from "
        "linux.devices; its GPU memory node is not guaranteed: find what started it without the hook "
        "(docs/troubleshoot.md), then restart it");
}

TEST_CASE("unprotected: our hook at any stage, by path or by args[0], protects") {
  const std::vector<std::string> entries = {
      R"("prestart":[{"path":"/usr/bin/gpu-numa-hook","args":["gpu-numa-hook","prestart"]}])",
      R"("createRuntime":[{"path":"/opt/gpu-numa/bin/gpu-numa-hook","args":["gpu-numa-hook","createRuntime"]}])",
      R"("createContainer":[{"path":"/usr/local/bin/gpu-numa-hook"}])",
      R"("startContainer":[{"path":"/x/gpu-numa-hook"}])",
      R"("poststart":[{"path":"/x/gpu-numa-hook"}])",
      // a wrapper whose argv[0] says it is ours (hooks.d files keep the program's name there)
      R"("prestart":[{"path":"/usr/libexec/wrapper","args":["gpu-numa-hook","prestart"]}])",
      // NVIDIA's hook first, ours after it (the shim keeps NVIDIA's first)
      R"("prestart":[{"path":"/usr/bin/nvidia-container-runtime-hook","args":["nvidia-container-runtime-hook","prestart"]},)"
      R"({"path":"/usr/bin/gpu-numa-hook","args":["gpu-numa-hook","prestart"]}])"};
  for (const auto& e : entries) {
    CAPTURE(e);
    std::string text = spec(kGpuDevice + R"(,"hooks":{)" + e + "}");
    CHECK(names_our_hook(text));
    CHECK(unprotected_gpu_containers({running("c1", text)}).containers.empty());
  }
}

TEST_CASE("unprotected: hooks that are not ours, or not hooks, do not protect") {
  const std::vector<std::string> hooks = {
      R"("hooks":{"prestart":[{"path":"/usr/bin/nvidia-container-runtime-hook","args":["nvidia-container-runtime-hook","prestart"]}]})",
      R"("hooks":{"prestart":[{"path":"/usr/bin/gpu-numa-hook-old"}]})",      // another program
      R"("hooks":{"prestart":[{"path":"/usr/bin/gpu-numa-runtime"}]})",       // the shim is no hook
      R"("hooks":{"poststop":[{"path":"/usr/bin/gpu-numa-hook"}]})",          // after the container: too late
      ""};
  for (const auto& h : hooks) {
    CAPTURE(h);
    std::string text = spec(kGpuDevice + (h.empty() ? "" : "," + h));
    auto scan = unprotected_gpu_containers({running("c1", text)});
    CHECK(scan.containers.size() == 1);
  }
  // Hooks that are not hooks: runc refuses such a config.json, so it names no running container.
  for (const std::string h : {R"("hooks":{"prestart":{"path":"/usr/bin/gpu-numa-hook"}})",
                              R"("hooks":{"prestart":[{"path":7,"args":[7]}]})", R"("hooks":[])"}) {
    CAPTURE(h);
    auto scan = unprotected_gpu_containers({running("c1", spec(kGpuDevice + "," + h))});
    CHECK(scan.containers.empty());
    REQUIRE(scan.unreadable.size() == 1);
    CHECK(scan.unreadable[0].find("hooks") != std::string::npos);
  }
}

TEST_CASE("unprotected: the hook's own GPU test decides, containers without a GPU are never listed") {
  // NVIDIA_VISIBLE_DEVICES and its volume-mount list give a GPU only through NVIDIA's legacy hook.
  const std::string nvidia_hook =
      R"(,"hooks":{"prestart":[{"path":"/usr/bin/nvidia-container-runtime-hook","args":["nvidia-container-runtime-hook","prestart"]}]})";
  auto scan = unprotected_gpu_containers({
      running("env-without-reader", spec(R"("process":{"env":["NVIDIA_VISIBLE_DEVICES=all"]})")),
      running("mounts-without-reader", spec(R"("mounts":[{"destination":"/var/run/nvidia-container-devices/GPU-1","source":"/dev/null"}])")),
      running("plain", spec(R"("process":{"env":["PATH=/bin"]})")),
      running("void", spec(R"("process":{"env":["NVIDIA_VISIBLE_DEVICES=void"]})")),
      running("none", spec(R"("process":{"env":["NVIDIA_VISIBLE_DEVICES=none"]})")),
      running("ctl", spec(R"("linux":{"devices":[{"path":"/dev/nvidiactl","type":"c","major":195,"minor":255}]})")),
      running("env", spec(R"("process":{"env":["NVIDIA_VISIBLE_DEVICES=all"]})" + nvidia_hook)),
      running("legacy-cuda", spec(R"("process":{"env":["CUDA_VERSION=12.4.1"]})" + nvidia_hook)),
      running("cdi", spec(R"("annotations":{"cdi.k8s.io/nvidia-device-plugin_uuid":"nvidia.com/gpu=GPU-1234"})")),
      running("mounts", spec(R"("mounts":[{"destination":"/var/run/nvidia-container-devices/GPU-1","source":"/dev/null"}])" +
                             nvidia_hook)),
  });
  std::string ids;
  for (const auto& c : scan.containers) ids += c.id + " ";
  REQUIRE(ids == "env legacy-cuda cdi mounts ");
  CHECK(scan.containers[0].id == "env");
  CHECK(scan.containers[0].sources == std::vector<std::string>{"NVIDIA_VISIBLE_DEVICES=all"});
  CHECK(scan.containers[1].id == "legacy-cuda");
  CHECK(scan.containers[1].sources == std::vector<std::string>{"NVIDIA_VISIBLE_DEVICES=all"});
  CHECK(scan.containers[2].id == "cdi");
  CHECK(scan.containers[2].sources == std::vector<std::string>{"cdi:cdi.k8s.io/nvidia-device-plugin_uuid"});
  CHECK(scan.containers[3].id == "mounts");
  CHECK(scan.containers[3].sources == std::vector<std::string>{"volume-mounts"});
}

TEST_CASE("unprotected: a pod's names from containerd's and CRI-O's annotations, made printable") {
  auto scan = unprotected_gpu_containers({
      running("ctd", spec(kGpuDevice + R"(,"annotations":{"io.kubernetes.cri.sandbox-namespace":"ml",)"
                                        R"("io.kubernetes.cri.sandbox-name":"trainer-0","io.kubernetes.cri.container-name":"cuda"})")),
      running("crio", spec(kGpuDevice + R"(,"annotations":{"io.kubernetes.pod.namespace":"ml",)"
                                         R"("io.kubernetes.pod.name":"bad name\n","io.kubernetes.container.name":"c"})")),
      running("evil id\n", spec(kGpuDevice)),
  });
  REQUIRE(scan.containers.size() == 3);
  CHECK(unprotected_line(scan.containers[0]).find("container ctd (pod ml/trainer-0, container cuda), runc") != std::string::npos);
  CHECK(scan.containers[1].names.pod() == "ml/bad\\x20name\\x0a");
  CHECK(scan.containers[2].id == "evil\\x20id\\x0a");
}

TEST_CASE("unprotected: a spec that does not parse is said, not judged, and the others still are") {
  auto scan = unprotected_gpu_containers({running("broken", "{\"process\":"), running("gpu", spec(kGpuDevice))});
  REQUIRE(scan.unreadable.size() == 1);
  CHECK(scan.unreadable[0].rfind("broken: ", 0) == 0);
  REQUIRE(scan.containers.size() == 1);
  CHECK(scan.containers[0].id == "gpu");
  CHECK(!names_our_hook("{"));
  CHECK(!names_our_hook("[]"));
}
