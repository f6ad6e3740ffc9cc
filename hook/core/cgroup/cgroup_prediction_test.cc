#include "cgroup/cgroup_prediction.h"

#include <doctest/doctest.h>

using namespace gnh;

TEST_CASE("systemd cgroupsPath forms expand like systemd does") {
  CHECK(*cgroup_from_cgroups_path("system.slice:docker:3f2a") == "/system.slice/docker-3f2a.scope");
  CHECK(*cgroup_from_cgroups_path("machine.slice:libpod:ab") == "/machine.slice/libpod-ab.scope");
  CHECK(*cgroup_from_cgroups_path("kubepods-burstable-pod1.slice:cri-containerd:ab") ==
        "/kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod1.slice/cri-containerd-ab.scope");
  CHECK(expand_systemd_slice("-.slice") == "/");
}

TEST_CASE("cgroupfs paths are taken as given, unsafe ones refused") {
  CHECK(*cgroup_from_cgroups_path("/docker/3f2a") == "/docker/3f2a");
  CHECK(*cgroup_from_cgroups_path("/libpod_parent/libpod-x/") == "/libpod_parent/libpod-x");
  CHECK_FALSE(cgroup_from_cgroups_path("/docker/../etc"));
  CHECK_FALSE(cgroup_from_cgroups_path(""));
}
