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
  auto adj = hook_adjustment(c, hook);
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
  CHECK_FALSE(hook_adjustment(c, hook));
  SUBCASE("NVIDIA_VISIBLE_DEVICES") {
    c.add_env("NVIDIA_VISIBLE_DEVICES=GPU-f0586c67-b718-ef40-6571-4caeff0ab99c");
    CHECK(hook_adjustment(c, hook));
  }
  SUBCASE("NVIDIA_VISIBLE_DEVICES=void is no GPU") {
    c.add_env("NVIDIA_VISIBLE_DEVICES=void");
    CHECK_FALSE(hook_adjustment(c, hook));
  }
  SUBCASE("the volume-mount strategy") {
    auto* m = c.add_mounts();
    m->set_destination("/var/run/nvidia-container-devices/0");
    m->set_source("/dev/null");
    CHECK(hook_adjustment(c, hook));
  }
  SUBCASE("a CDI annotation") {
    (*c.mutable_annotations())["cdi.k8s.io/nvidia-device-plugin_abc"] = "nvidia.com/gpu=0";
    CHECK(hook_adjustment(c, hook));
  }
  SUBCASE("nvidiactl alone (195:255) is no GPU") {
    auto* d = c.mutable_linux()->add_devices();
    d->set_type("c");
    d->set_major(195);
    d->set_minor(255);
    CHECK_FALSE(hook_adjustment(c, hook));
  }
  SUBCASE("a container that already has our hook at createRuntime gets no second one") {
    c.add_env("NVIDIA_VISIBLE_DEVICES=0");
    c.mutable_hooks()->add_create_runtime()->set_path(hook.path);
    CHECK_FALSE(hook_adjustment(c, hook));
  }
}

TEST_CASE("update: dropping a GPU node the container has is widened, naming the container, cpu.mems only") {
  api::LinuxResources req;
  req.mutable_cpu()->set_mems("1");
  req.mutable_cpu()->set_cpus("0-3");
  gnh::MemsUpdate m;
  auto u = widen_update("c1", req, nodes("0-1"), nodes("0"), &m);
  REQUIRE(u);
  CHECK(u->container_id() == "c1");
  CHECK(u->linux().resources().cpu().mems() == "0-1");
  CHECK(u->linux().resources().cpu().cpus().empty());  // not ours: another plugin may own it
  CHECK(m.requested == "1");
  CHECK(m.kept.to_string() == "0");
}

TEST_CASE("update: nothing to widen") {
  gnh::MemsUpdate m;
  api::LinuxResources req;
  CHECK_FALSE(widen_update("c1", req, nodes("0"), nodes("0"), &m));  // no mems in the update
  req.mutable_cpu()->set_mems("0,1");
  CHECK_FALSE(widen_update("c1", req, nodes("0"), nodes("0"), &m));  // keeps the GPU node
  req.mutable_cpu()->set_mems("1");
  CHECK_FALSE(widen_update("c1", req, nodes("1"), nodes("0"), &m));  // never adds a node it lacks
  req.mutable_cpu()->set_mems("x");
  CHECK_THROWS(widen_update("c1", req, nodes("0"), nodes("0"), &m));
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
