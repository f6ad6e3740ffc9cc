#include "plugin/decisions.h"

#include <doctest/doctest.h>

using namespace gnh::nri;
using gnh::NodeSet;

namespace {
NodeSet nodes(const char* s) { return *NodeSet::parse(s); }
}  // namespace

TEST_CASE("hook adjustment: a container with an NVIDIA device (195:N) gets our hook at createRuntime") {
  api::Container c;
  c.set_id("c1");
  auto* d = c.mutable_linux()->add_devices();
  d->set_path("/dev/nvidia0");
  d->set_type("c");
  d->set_major(195);
  d->set_minor(0);
  HookSettings hook;
  hook.extra_args = {"--config", "/etc/x.toml"};
  hook.timeout_s = 7;
  auto adj = hook_adjustment(c, api::PodSandbox{}, hook);
  REQUIRE(adj);
  REQUIRE(adj->hooks().create_runtime_size() == 1);
  const auto& h = adj->hooks().create_runtime(0);
  CHECK(h.path() == "/usr/bin/gpu-numa-hook");
  CHECK(std::vector<std::string>(h.args().begin(), h.args().end()) ==
        std::vector<std::string>{"gpu-numa-hook", "--config", "/etc/x.toml", "createRuntime"});
  CHECK(std::vector<std::string>(h.env().begin(), h.env().end()) == std::vector<std::string>{"PATH=/usr/sbin:/usr/bin:/sbin:/bin"});
  CHECK(h.timeout().value() == 7);
  CHECK(adj->hooks().prestart_size() == 0);
}

TEST_CASE("hook adjustment: each way a container gets GPUs, and none") {
  HookSettings hook;
  api::Container c;
  CHECK_FALSE(hook_adjustment(c, api::PodSandbox{}, hook));
  SUBCASE("NVIDIA_VISIBLE_DEVICES") {
    c.add_env("NVIDIA_VISIBLE_DEVICES=GPU-f0586c67-b718-ef40-6571-4caeff0ab99c");
    CHECK(hook_adjustment(c, api::PodSandbox{}, hook));
  }
  SUBCASE("NVIDIA_VISIBLE_DEVICES=void is no GPU") {
    c.add_env("NVIDIA_VISIBLE_DEVICES=void");
    CHECK_FALSE(hook_adjustment(c, api::PodSandbox{}, hook));
  }
  SUBCASE("the volume-mount strategy") {
    auto* m = c.add_mounts();
    m->set_destination("/var/run/nvidia-container-devices/0");
    m->set_source("/dev/null");
    CHECK(hook_adjustment(c, api::PodSandbox{}, hook));
  }
  SUBCASE("a CDI annotation") {
    (*c.mutable_annotations())["cdi.k8s.io/nvidia-device-plugin_abc"] = "nvidia.com/gpu=0";
    CHECK(hook_adjustment(c, api::PodSandbox{}, hook));
  }
  SUBCASE("nvidiactl alone (195:255) is no GPU") {
    auto* d = c.mutable_linux()->add_devices();
    d->set_type("c");
    d->set_major(195);
    d->set_minor(255);
    CHECK_FALSE(hook_adjustment(c, api::PodSandbox{}, hook));
  }
  SUBCASE("a container that already has our hook at createRuntime gets no second one") {
    c.add_env("NVIDIA_VISIBLE_DEVICES=0");
    c.mutable_hooks()->add_create_runtime()->set_path(hook.path);
    CHECK_FALSE(hook_adjustment(c, api::PodSandbox{}, hook));
  }
  // CRI-O gives plugins the container with its hooks.d hooks in it (seen with CRI-O 1.37, tests/crio)
  SUBCASE("ours from hooks.d under another path, at createRuntime or at prestart: no second one") {
    c.add_env("NVIDIA_VISIBLE_DEVICES=0");
    SUBCASE("createRuntime") { c.mutable_hooks()->add_create_runtime()->set_path("/opt/gnh/bin/gpu-numa-hook"); }
    SUBCASE("prestart") { c.mutable_hooks()->add_prestart()->set_path(hook.path); }
    CHECK_FALSE(hook_adjustment(c, api::PodSandbox{}, hook));
  }
  SUBCASE("another program's hook does not count as ours") {
    c.add_env("NVIDIA_VISIBLE_DEVICES=0");
    c.mutable_hooks()->add_create_runtime()->set_path("/usr/bin/nvidia-container-runtime-hook");
    c.mutable_hooks()->add_prestart()->set_path("/usr/bin/gpu-numa-hook-wrapper");
    CHECK(hook_adjustment(c, api::PodSandbox{}, hook));
  }
}

// NVIDIA's NRI plugin gives the container its GPU from these pod annotations, as CDI devices that
// containerd resolves after every plugin answered: the container we are shown has no GPU in it.
TEST_CASE("hook adjustment: NVIDIA's NRI annotation on the pod, each scope, as NVIDIA's plugin reads it") {
  HookSettings hook;
  api::Container c;
  c.set_name("cuda");
  api::PodSandbox pod;
  pod.set_namespace_("default");
  auto& ann = *pod.mutable_annotations();
  SUBCASE("container scope") {
    ann["nvidia.cdi.k8s.io/container.cuda"] = "nvidia.com/gpu=0";
    CHECK(hook_adjustment(c, pod, hook));
  }
  SUBCASE("container scope of another container: not this one's") {
    ann["nvidia.cdi.k8s.io/container.sidecar"] = "nvidia.com/gpu=0";
    CHECK_FALSE(hook_adjustment(c, pod, hook));
  }
  SUBCASE("pod scope") {
    ann["nvidia.cdi.k8s.io/pod"] = "nvidia.com/gpu=all";
    CHECK(hook_adjustment(c, pod, hook));
  }
  SUBCASE("the bare key") {
    ann["nvidia.cdi.k8s.io"] = "nvidia.com/gpu=GPU-f0586c67-b718-ef40-6571-4caeff0ab99c";
    CHECK(hook_adjustment(c, pod, hook));
  }
  SUBCASE("a MIG device, a second name, the operator's management device") {
    SUBCASE("MIG") { ann["nvidia.cdi.k8s.io/pod"] = "nvidia.com/gpu=0:1"; }
    SUBCASE("second of two") { ann["nvidia.cdi.k8s.io/pod"] = "vendor.example/fpga=0,nvidia.com/gpu=1"; }
    SUBCASE("management") { ann["nvidia.cdi.k8s.io/pod"] = "management.nvidia.com/gpu=all"; }
    CHECK(hook_adjustment(c, pod, hook));
  }
  SUBCASE("the container scope wins over the pod scope: a container told to take no GPU gets none") {
    ann["nvidia.cdi.k8s.io/pod"] = "nvidia.com/gpu=0";
    SUBCASE("another vendor's device") { ann["nvidia.cdi.k8s.io/container.cuda"] = "vendor.example/fpga=0"; }
    SUBCASE("empty") { ann["nvidia.cdi.k8s.io/container.cuda"] = ""; }
    CHECK_FALSE(hook_adjustment(c, pod, hook));
  }
  SUBCASE("the container scope wins over the pod scope: GPU in the container's only") {
    ann["nvidia.cdi.k8s.io/pod"] = "vendor.example/fpga=0";
    ann["nvidia.cdi.k8s.io/container.cuda"] = "nvidia.com/gpu=0";
    CHECK(hook_adjustment(c, pod, hook));
  }
  SUBCASE("the pod scope wins over the bare key") {
    ann["nvidia.cdi.k8s.io"] = "nvidia.com/gpu=0";
    ann["nvidia.cdi.k8s.io/pod"] = "nvidia.com/imex-channel=0";
    CHECK_FALSE(hook_adjustment(c, pod, hook));
  }
  SUBCASE("no GPU: another CDI device, an empty value, another annotation") {
    SUBCASE("imex channel") { ann["nvidia.cdi.k8s.io/container.cuda"] = "nvidia.com/imex-channel=0"; }
    SUBCASE("other vendor") { ann["nvidia.cdi.k8s.io/pod"] = "vendor.example/fpga=0"; }
    SUBCASE("empty") { ann["nvidia.cdi.k8s.io/pod"] = ""; }
    SUBCASE("unrelated key") { ann["example.com/nvidia.cdi.k8s.io"] = "nvidia.com/gpu=0"; }
    CHECK_FALSE(hook_adjustment(c, pod, hook));
  }
  SUBCASE("a container that already has our hook gets no second one") {
    ann["nvidia.cdi.k8s.io/pod"] = "nvidia.com/gpu=0";
    c.mutable_hooks()->add_create_runtime()->set_path(hook.path);
    CHECK_FALSE(hook_adjustment(c, pod, hook));
  }
}

TEST_CASE("hook adjustment: the CRI request's CDI devices (NRI 0.12), NVIDIA's GPU classes only") {
  HookSettings hook;
  api::PodSandbox pod;
  for (const char* name : {"nvidia.com/gpu=0", "nvidia.com/gpu=all", "k8s.device-plugin.nvidia.com/gpu=GPU-4b1c2d3e",
                           "nvidia.com/gpu=MIG-5d2c8e1a-0f3b-4c7d-9e61-a3b4c5d6e7f8"}) {
    CAPTURE(name);
    api::Container c;
    c.add_cdi_devices()->set_name(name);
    CHECK(cri_cdi_devices_give_gpu(c));
    CHECK(hook_adjustment(c, pod, hook));
    CHECK(created_without_hook(pod, c, hook) == std::optional<std::string>("CDI_devices"));
  }
  for (const char* name : {"nvidia.com/imex-channel=0", "vendor.example.com/fpga=0", "nvidia.com/gdrcopy=all"}) {
    CAPTURE(name);
    api::Container c;
    c.add_cdi_devices()->set_name(name);
    CHECK_FALSE(cri_cdi_devices_give_gpu(c));
    CHECK_FALSE(hook_adjustment(c, pod, hook));
  }
}

TEST_CASE("created without hook: a GPU another plugin added after ours answered, and the containers it leaves alone") {
  HookSettings hook;
  hook.path = "/opt/gpu-numa/gpu-numa-hook";
  api::PodSandbox pod;
  api::Container c;
  CHECK_FALSE(created_without_hook(pod, c, hook));  // no GPU
  auto* d = c.mutable_linux()->add_devices();  // a device injector's /dev/nvidia0
  d->set_path("/dev/nvidia0");
  d->set_type("c");
  d->set_major(195);
  d->set_minor(0);
  CHECK(created_without_hook(pod, c, hook) == std::optional<std::string>("linux.devices"));
  SUBCASE("ours at any stage, by path or by name") {
    c.mutable_hooks()->add_create_runtime()->set_path("/opt/gpu-numa/gpu-numa-hook");
    CHECK_FALSE(created_without_hook(pod, c, hook));
    c.mutable_hooks()->clear_create_runtime();
    c.mutable_hooks()->add_prestart()->set_path("/usr/bin/gpu-numa-hook");  // hooks.d's, another path
    CHECK_FALSE(created_without_hook(pod, c, hook));
    c.mutable_hooks()->clear_prestart();
    c.mutable_hooks()->add_create_container()->set_path("/usr/bin/nvidia-cdi-hook");  // NVIDIA's is not ours
    CHECK(created_without_hook(pod, c, hook));
  }
  SUBCASE("the modeset node alone is no GPU") {
    d->set_minor(254);
    CHECK_FALSE(created_without_hook(pod, c, hook));
  }
  SUBCASE("NVIDIA's NRI annotation names where it comes from") {
    c.mutable_linux()->clear_devices();
    c.set_name("cuda");
    (*pod.mutable_annotations())["nvidia.cdi.k8s.io/container.cuda"] = "nvidia.com/gpu=0";
    CHECK(created_without_hook(pod, c, hook) == std::optional<std::string>("nvidia.cdi.k8s.io"));
  }
}

TEST_CASE("effective pod annotation: containerd/nri's order, present beats non-empty") {
  api::PodSandbox pod;
  CHECK_FALSE(effective_pod_annotation(pod, "k.io", "c"));
  (*pod.mutable_annotations())["k.io"] = "bare";
  CHECK(effective_pod_annotation(pod, "k.io", "c") == "bare");
  (*pod.mutable_annotations())["k.io/pod"] = "pod";
  CHECK(effective_pod_annotation(pod, "k.io", "c") == "pod");
  (*pod.mutable_annotations())["k.io/container.c"] = "";
  CHECK(effective_pod_annotation(pod, "k.io", "c") == "");
  CHECK(effective_pod_annotation(pod, "k.io", "d") == "pod");
}

namespace {
api::LinuxResources mems_request(const std::string& mems, const std::string& cpus = "") {
  api::LinuxResources r;
  if (!mems.empty()) r.mutable_cpu()->set_mems(mems);
  if (!cpus.empty()) r.mutable_cpu()->set_cpus(cpus);
  return r;
}
}  // namespace

TEST_CASE("update: a request whose mems drop a GPU node the container has is widened, cpu.mems only, ignore_failure") {
  UpdateFacts f{"0", nodes("0-1"), nodes("0")};
  UpdateDecision d;
  auto u = keep_gpu_nodes_update("c1", mems_request("1", "0-3"), f, &d);
  REQUIRE(u);
  CHECK(u->container_id() == "c1");
  CHECK(u->linux().resources().cpu().mems() == "0-1");
  CHECK(u->linux().resources().cpu().cpus().empty());  // not ours: another plugin may own it
  CHECK(u->ignore_failure());  // another plugin's cpu.mems wins over ours, the update goes on
  CHECK(d.mems.requested == "1");
  CHECK_FALSE(d.from_spec);
  CHECK(d.mems.kept.to_string() == "0");
  CHECK_FALSE(d.current_assumed);
}

TEST_CASE("update: a cpus-only update re-applies the spec's stale mems: the GPU node the hook added is kept") {
  // The spec asked for 1; the hook widened the cgroup to 0-1 (GPU on node 0); kubelet sends cpus only.
  UpdateFacts f{"1", nodes("0-1"), nodes("0")};
  UpdateDecision d;
  auto u = keep_gpu_nodes_update("c1", mems_request("", "2-3"), f, &d);
  REQUIRE(u);
  CHECK(u->linux().resources().cpu().mems() == "0-1");
  CHECK(u->linux().resources().cpu().cpus().empty());
  CHECK(d.from_spec);
  CHECK(d.mems.requested == "1");
  // A memory-only update (resources without cpu: our subset of the API reads no memory fields) is the same.
  api::LinuxResources mem_only;
  REQUIRE(keep_gpu_nodes_update("c1", mem_only, f, &d));
  CHECK(d.mems.widened == "0-1");
}

TEST_CASE("update: without a readable cgroup, 'now' is the spec's mems and the GPU nodes, never the spec's alone") {
  UpdateFacts f{"1", std::nullopt, nodes("0")};
  UpdateDecision d;
  auto u = keep_gpu_nodes_update("c1", mems_request(""), f, &d);
  REQUIRE(u);
  CHECK(u->linux().resources().cpu().mems() == "0-1");
  CHECK(d.current_assumed);
  CHECK(d.current.to_string() == "0-1");
  // An explicit request, the same.
  REQUIRE(keep_gpu_nodes_update("c1", mems_request("1"), f, &d));
  CHECK(d.mems.widened == "0-1");
}

TEST_CASE("update: nothing to answer") {
  UpdateDecision d;
  // No mems in the spec nor in the request: runc leaves mems alone.
  CHECK_FALSE(keep_gpu_nodes_update("c1", mems_request("", "0-1"), {"", nodes("0"), nodes("0")}, &d));
  CHECK_FALSE(keep_gpu_nodes_update("c1", mems_request("", "0-1"), {"", std::nullopt, nodes("0")}, &d));
  // The spec already holds the GPU node (an earlier update of ours repaired it).
  CHECK_FALSE(keep_gpu_nodes_update("c1", mems_request("", "0-1"), {"0-1", nodes("0-1"), nodes("0")}, &d));
  // The request keeps it.
  CHECK_FALSE(keep_gpu_nodes_update("c1", mems_request("0,1"), {"1", nodes("0-1"), nodes("0")}, &d));
  // Never adds a node the container lacks (the hook refused or the node was offline at start).
  CHECK_FALSE(keep_gpu_nodes_update("c1", mems_request("1"), {"1", nodes("1"), nodes("0")}, &d));
  // No GPU node online: nothing to keep, even with no cgroup to read.
  CHECK_FALSE(keep_gpu_nodes_update("c1", mems_request("1"), {"1", std::nullopt, NodeSet{}}, &d));
  CHECK_THROWS(keep_gpu_nodes_update("c1", mems_request("x"), {"", nodes("0"), nodes("0")}, &d));
}

TEST_CASE("spec_of: what the GPU request reads comes across") {
  api::Container c;
  c.add_env("A=1");
  (*c.mutable_annotations())["k"] = "v";
  c.mutable_linux()->set_cgroups_path("/kubepods/pod1/c1");
  c.mutable_linux()->mutable_resources()->mutable_cpu()->set_mems("0");
  auto s = spec_of(c);
  CHECK(s.env_value("A") == "1");
  CHECK(s.annotations.at("k") == "v");
  CHECK(s.cgroups_path == "/kubepods/pod1/c1");
  CHECK(s.cpuset_mems == "0");
}
