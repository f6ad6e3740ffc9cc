// The update handler fed from a node root other than "/" (the DaemonSet's /host): the driver's GPU
// files and the container's cgroup are both read there.
#include "plugin/gpu_numa_plugin.h"

#include <doctest/doctest.h>
#include <fcntl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <vector>

using namespace gnh;
using namespace gnh::nri;
namespace fs = std::filesystem;

namespace {

constexpr const char* kBus = "0000:00:06.0";

// A node's / as the DaemonSet sees it at /host: the driver's files of one GPU (memory node 0,
// online), the node's mount table with a v1 cpuset hierarchy, and a container's cgroup there.
struct NodeRoot {
  std::string root;
  std::string cgroup_file;
  NodeRoot() {
    char t[] = "/tmp/gnh-nri-root-XXXXXX";
    REQUIRE(::mkdtemp(t));
    root = t;
    std::string gpu = root + "/proc/driver/nvidia/gpus/" + kBus;
    fs::create_directories(gpu);
    std::ofstream(gpu + "/information") << "Model: \t\t NVIDIA H200\nGPU UUID: \t GPU-f0586c67-b718-ef40-6571-4caeff0ab99c\n"
                                           "Bus Location: \t " << kBus << "\nDevice Minor: \t 0\n";
    std::ofstream(gpu + "/numa_status") << "Node:      0\nStatus:    online\n";
    fs::create_directories(root + "/proc/1");
    std::ofstream(root + "/proc/1/mountinfo") << "34 31 0:31 / /sys/fs/cgroup/cpuset rw,relatime - cgroup cgroup rw,cpuset\n";
    std::string dir = root + "/sys/fs/cgroup/cpuset/kubepods/pod1/c1";
    fs::create_directories(dir);
    cgroup_file = dir + "/cpuset.mems";
    std::ofstream(cgroup_file) << "0\n";
  }
  ~NodeRoot() { fs::remove_all(root); }
};

// A running GPU container (device 195:0) in that cgroup, and kubelet's update asking for mems 1.
api::UpdateContainerRequest update_to_node_1() {
  api::UpdateContainerRequest req;
  api::Container* c = req.mutable_container();
  c->set_id("c1");
  c->mutable_linux()->set_cgroups_path("/kubepods/pod1/c1");
  auto* d = c->mutable_linux()->add_devices();
  d->set_path("/dev/nvidia0");
  d->set_type("c");
  d->set_major(195);
  d->set_minor(0);
  req.mutable_linux_resources()->mutable_cpu()->set_mems("1");
  return req;
}

}  // namespace

TEST_CASE("plugin update: the GPUs and the container's cgroup are read under --host-root") {
  NodeRoot node;
  HookSettings hook;
  hook.host_root = node.root;
  std::vector<LogRecord> lines;
  GpuNumaPlugin plugin(Config{}, hook, [&](const LogRecord& r) { lines.push_back(r); });

  SUBCASE("the cgroup readable: its mems are the container's now") {
    auto resp = plugin.update_container(update_to_node_1());
    REQUIRE(resp.update_size() == 1);
    CHECK(resp.update(0).container_id() == "c1");
    CHECK(resp.update(0).linux().resources().cpu().mems() == "0-1");
    REQUIRE(lines.size() == 1);
    CHECK(lines[0].stage == "nri-update");
    CHECK(lines[0].action == "patch");
    CHECK(lines[0].gpus == std::string("/dev/nvidia0(") + kBus + ")");
    CHECK(lines[0].required == "0");
    CHECK(lines[0].mems_before == "0");
    CHECK(lines[0].cgroup == node.cgroup_file);
  }
  SUBCASE("no cgroup there: the stand-in, but the GPU still found under the root") {
    fs::remove(node.cgroup_file);
    auto resp = plugin.update_container(update_to_node_1());
    REQUIRE(resp.update_size() == 1);
    CHECK(resp.update(0).linux().resources().cpu().mems() == "0-1");
    REQUIRE(lines.size() == 1);
    CHECK(lines[0].gpus == std::string("/dev/nvidia0(") + kBus + ")");
    CHECK(lines[0].cgroup.rfind("assumed:", 0) == 0);
  }
  SUBCASE("no driver files there: no GPU, nothing to keep") {
    fs::remove_all(node.root + "/proc/driver");
    auto resp = plugin.update_container(update_to_node_1());
    CHECK(resp.update_size() == 0);
    CHECK(lines.empty());
  }
}

namespace {

// A GPU container being created (device 195:0), as the runtime asks about it.
api::CreateContainerRequest create_gpu_container() {
  api::CreateContainerRequest req;
  req.mutable_pod()->set_namespace_("ml");
  req.mutable_pod()->set_name("train-0");
  api::Container* c = req.mutable_container();
  c->set_id("c1");
  c->set_name("trainer");
  auto* d = c->mutable_linux()->add_devices();
  d->set_path("/dev/nvidia0");
  d->set_type("c");
  d->set_major(195);
  d->set_minor(0);
  return req;
}

}  // namespace

TEST_CASE("plugin create: a hook check the plugin cannot make (EMFILE) still injects the hook, with a warning") {
  // The plugin out of descriptors says nothing of the hook: the container must not lose it.
  NodeRoot node;
  const std::string hook_path = "/opt/gpu-numa-hook/bin/gpu-numa-hook";
  fs::create_directories(node.root + "/opt/gpu-numa-hook/bin");
  std::ofstream(node.root + hook_path) << "#!/bin/sh\nexit 0\n";
  fs::permissions(node.root + hook_path, fs::perms::owner_all);
  // The node's / as an exec mount in its table, so the verdict does not hang on how /tmp is mounted.
  struct stat st {};
  REQUIRE(::stat(node.root.c_str(), &st) == 0);
  std::ofstream(node.root + "/proc/1/mountinfo", std::ios::app)
      << "22 1 " << major(st.st_dev) << ":" << minor(st.st_dev) << " / / rw,relatime - ext4 /dev/sda3 rw\n";
  HookSettings hook;
  hook.path = hook_path;
  hook.host_root = node.root;
  std::vector<LogRecord> lines;
  GpuNumaPlugin plugin(Config{}, hook, [&](const LogRecord& r) { lines.push_back(r); });
  REQUIRE(plugin.create_container(create_gpu_container()).has_adjust());  // checked: usable

  struct rlimit saved {};
  ::getrlimit(RLIMIT_NOFILE, &saved);
  const int lowest = ::open("/dev/null", O_RDONLY | O_CLOEXEC);
  REQUIRE(lowest >= 0);
  ::close(lowest);
  struct rlimit lowered = saved;
  lowered.rlim_cur = static_cast<rlim_t>(lowest);
  REQUIRE(::setrlimit(RLIMIT_NOFILE, &lowered) == 0);
  const api::CreateContainerResponse resp = plugin.create_container(create_gpu_container());
  ::setrlimit(RLIMIT_NOFILE, &saved);

  CHECK(resp.has_adjust());
  CHECK(plugin.injections() == 2);
  REQUIRE(lines.size() == 2);
  CHECK(lines[1].action == "inject");
  CHECK(lines[1].level == "warn");
  CHECK(lines[1].msg.find("the hook could not be checked (Too many open files, a shortage of this plugin's own)") !=
        std::string::npos);
}

TEST_CASE("plugin: only a container that cannot get a GPU is decided from the request alone") {
  HookSettings hook;
  hook.host_root = "/nonexistent-node-root";  // a host read would find nothing here
  std::vector<LogRecord> lines;
  GpuNumaPlugin plugin(Config{}, hook, [&](const LogRecord& r) { lines.push_back(r); });
  api::UpdateContainerRequest gpu_update = update_to_node_1();
  api::CreateContainerRequest gpu_create;
  *gpu_create.mutable_container() = gpu_update.container();
  // The GPU container: the host must be read (the hook's binary, the driver, its cgroup).
  CHECK_FALSE(plugin.create_from_request(gpu_create));
  CHECK_FALSE(plugin.update_from_request(gpu_update));
  // Without the device: no adjustment, no update, no log line.
  api::UpdateContainerRequest plain_update = gpu_update;
  plain_update.mutable_container()->mutable_linux()->clear_devices();
  api::CreateContainerRequest plain_create;
  *plain_create.mutable_container() = plain_update.container();
  auto created = plugin.create_from_request(plain_create);
  REQUIRE(created);
  CHECK_FALSE(created->has_adjust());
  auto updated = plugin.update_from_request(plain_update);
  REQUIRE(updated);
  CHECK(updated->update_size() == 0);
  // A GPU container whose update sets no mems, and whose spec set none: nothing can be dropped.
  api::UpdateContainerRequest no_mems = gpu_update;
  no_mems.mutable_linux_resources()->mutable_cpu()->clear_mems();
  CHECK(plugin.update_from_request(no_mems));
  CHECK(lines.empty());
}
