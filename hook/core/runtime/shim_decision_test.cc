// The shim's create decision: which containers get the hook registered, before which runtime.
#include <doctest/doctest.h>

#include <string>

#include "runtime/shim_decision.h"

using namespace gnh;

namespace {

// A runc-spec-shaped config.json with `process` and `linux` members as given.
std::string spec(const std::string& env, const std::string& devices, const std::string& extra = "") {
  return R"({"ociVersion":"1.0.2","process":{"args":["sh"],"env":[)" + env + R"(]},"linux":{"devices":[)" + devices +
         R"(],"cgroupsPath":"/docker/abc"})" + extra + "}";
}
const std::string kGpu0 = R"({"path":"/dev/nvidia0","type":"c","major":195,"minor":0})";
const std::string kModeset = R"({"path":"/dev/nvidia-modeset","type":"c","major":195,"minor":254})";
// NVIDIA's legacy hook, as legacy mode and docker --gpus add it: it reads NVIDIA_VISIBLE_DEVICES.
const std::string kNvidiaHook =
    R"(,"hooks":{"prestart":[{"path":"/usr/bin/nvidia-container-runtime-hook","args":["nvidia-container-runtime-hook","prestart"]}]})";

}  // namespace

TEST_CASE("shim decision: a container that cannot get a GPU is passed to runc or crun untouched") {
  for (const char* next : {"/usr/sbin/runc", "/usr/bin/crun", "runc"}) {
    CAPTURE(next);
    CHECK_FALSE(decide_shim_registration(spec(R"("PATH=/bin")", ""), next, "").register_hook);
    CHECK_FALSE(decide_shim_registration(spec(R"("NVIDIA_VISIBLE_DEVICES=void")", ""), next, "").register_hook);
    CHECK_FALSE(decide_shim_registration(spec(R"("NVIDIA_VISIBLE_DEVICES=none")", ""), next, "").register_hook);
    // /dev/nvidia-modeset names no GPU (NVIDIA's CDI specs add it to every device)
    CHECK_FALSE(decide_shim_registration(spec("", kModeset), next, "").register_hook);
    // the variable with no hook to read it (a CUDA image on a CDI-only node) gives no GPU
    CHECK_FALSE(decide_shim_registration(spec(R"("NVIDIA_VISIBLE_DEVICES=all","CUDA_VERSION=12.4.1")", ""), next, "").register_hook);
    CHECK_FALSE(decide_shim_registration(
                    spec("", "", R"(,"mounts":[{"destination":"/var/run/nvidia-container-devices/0","source":"/dev/null"}])"), next, "")
                    .register_hook);
  }
}

TEST_CASE("shim decision: every way a GPU reaches a container keeps the hook") {
  const std::string next = "/usr/sbin/runc";
  CHECK(decide_shim_registration(spec("", kGpu0), next, "").register_hook);
  CHECK(decide_shim_registration(spec(R"("NVIDIA_VISIBLE_DEVICES=all")", "", kNvidiaHook), next, "").register_hook);
  CHECK(decide_shim_registration(spec(R"("NVIDIA_VISIBLE_DEVICES=GPU-0b6c1e2a-1111-2222-3333-444455556666")", "", kNvidiaHook),
                                 next, "")
            .register_hook);
  CHECK(decide_shim_registration(
            spec("", "", R"(,"mounts":[{"destination":"/var/run/nvidia-container-devices/all","source":"/dev/null"}])" + kNvidiaHook),
            next, "")
            .register_hook);
  // our hook chained to NVIDIA's ([chain] next-hook): the variable counts as in legacy mode
  CHECK(decide_shim_registration(spec(R"("NVIDIA_VISIBLE_DEVICES=all")", ""), next, "/usr/bin/nvidia-container-runtime-hook")
            .register_hook);
  CHECK(decide_shim_registration(spec("", "", R"(,"annotations":{"cdi.k8s.io/gpu":"nvidia.com/gpu=0"})"), next, "")
            .register_hook);
}

TEST_CASE("shim decision: before an unknown runtime, every container keeps the hook") {
  // a wrapper we do not know may add GPUs its own way: what config.json shows now is not what runc runs
  for (const char* next : {"/opt/bin/runc-wrapper", "/usr/bin/runc.old", "/usr/local/bin/kata-runtime"}) {
    CAPTURE(next);
    CHECK(decide_shim_registration(spec(R"("PATH=/bin")", ""), next, "").register_hook);
  }
}

TEST_CASE("shim decision: before NVIDIA's runtime, only a container showing nothing it reads is passed untouched") {
  for (const char* next : {"/usr/bin/nvidia-container-runtime", "/usr/bin/nvidia-container-runtime.cdi",
                           "/usr/local/nvidia/toolkit/nvidia-container-runtime.legacy"}) {
    CAPTURE(next);
    CHECK_FALSE(decide_shim_registration(spec(R"("PATH=/bin","HOME=/root")", ""), next, "").register_hook);
    CHECK_FALSE(decide_shim_registration(spec("", "", R"(,"annotations":{"io.kubernetes.cri.container-name":"web"})"), next, "")
                    .register_hook);
    // what its modes turn into GPUs, in each form; void and none too (the legacy hook still reads them)
    for (const char* env : {R"("NVIDIA_VISIBLE_DEVICES=all")", R"("NVIDIA_VISIBLE_DEVICES=void")",
                            R"("NVIDIA_DRIVER_CAPABILITIES=compute")", R"("CUDA_VERSION=12.4.1")"}) {
      CAPTURE(env);
      CHECK(decide_shim_registration(spec(env, ""), next, "").register_hook);
    }
    // a CDI device under a prefix its config.toml may add (annotation-prefixes)
    CHECK(decide_shim_registration(spec("", "", R"(,"annotations":{"example.com/gpus":"nvidia.com/gpu=0"})"), next, "")
              .register_hook);
    CHECK(decide_shim_registration(
              spec("", "", R"(,"mounts":[{"destination":"/var/run/nvidia-container-devices/0","source":"/dev/null"}])"), next, "")
              .register_hook);
    CHECK(decide_shim_registration(spec("", kGpu0), next, "").register_hook);
  }
}

TEST_CASE("shim decision: a config.json the hook would refuse gets the hook, which refuses it with its line") {
  const std::string next = "/usr/sbin/runc";
  CHECK(decide_shim_registration("{", next, "").register_hook);
  CHECK(decide_shim_registration("[]", next, "").register_hook);
  // two process members: runc and crun would read different ones (the hook's misread refusal)
  CHECK(decide_shim_registration(R"({"process":{"env":[]},"process":{"env":["NVIDIA_VISIBLE_DEVICES=all"]}})", next, "")
            .register_hook);
  // a device type no runtime accepts
  CHECK(decide_shim_registration(spec("", R"({"path":"/dev/x","type":"u","major":195,"minor":0})"), next, "").register_hook);
}

TEST_CASE("shim decision: a skipped container keeps its pod and name for the log line") {
  ShimDecision d = decide_shim_registration(
      spec("", "",
           R"(,"annotations":{"io.kubernetes.cri.sandbox-name":"web","io.kubernetes.cri.sandbox-namespace":"shop","io.kubernetes.cri.container-name":"nginx"})"),
      "/usr/sbin/runc", "");
  CHECK_FALSE(d.register_hook);
  CHECK(d.names.pod() == "shop/web");
  CHECK(d.names.container_name == "nginx");
}
