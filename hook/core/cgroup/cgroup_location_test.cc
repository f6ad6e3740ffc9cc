#include "cgroup/cgroup_location.h"

#include <doctest/doctest.h>

using namespace gnh;

static const char* kHybridMountinfo =
    "25 30 0:23 / /sys/fs/cgroup rw,nosuid,nodev,noexec - tmpfs tmpfs ro,mode=755\n"
    "26 25 0:24 / /sys/fs/cgroup/unified rw,nosuid,nodev,noexec,relatime shared:6 - cgroup2 cgroup2 rw,nsdelegate\n"
    "31 25 0:29 / /sys/fs/cgroup/cpuset rw,nosuid,nodev,noexec,relatime shared:12 - cgroup cgroup rw,cpuset\n"
    "32 25 0:30 / /sys/fs/cgroup/cpu,cpuacct rw,nosuid shared:13 - cgroup cgroup rw,cpu,cpuacct\n";

TEST_CASE("hybrid host: the v1 cpuset hierarchy wins over cgroup2") {
  auto proc = parse_proc_cgroup("12:cpu,cpuacct:/docker/abc\n5:cpuset:/docker/abc\n0::/docker/abc\n");
  auto mounts = parse_mountinfo(kHybridMountinfo);
  REQUIRE(proc);
  REQUIRE(mounts);
  auto loc = locate_cpuset(*proc, *mounts);
  REQUIRE(loc);
  CHECK(loc->version == CgroupVersion::v1);
  CHECK(loc->mount_point == "/sys/fs/cgroup/cpuset");
  CHECK(loc->path == "/docker/abc");
  CHECK(loc->display() == "/sys/fs/cgroup/cpuset/docker/abc");
}

TEST_CASE("pure v2 host with nested Kubernetes slices") {
  auto proc = parse_proc_cgroup(
      "0::/kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod1.slice/cri-containerd-ab.scope\n");
  auto mounts = parse_mountinfo("32 23 0:28 / /sys/fs/cgroup rw,nosuid - cgroup2 cgroup2 rw,nsdelegate\n");
  auto loc = locate_cpuset(*proc, *mounts);
  REQUIRE(loc);
  CHECK(loc->version == CgroupVersion::v2);
  CHECK(loc->path == "/kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod1.slice/cri-containerd-ab.scope");
  CHECK(cgroup_chain(loc->path).size() == 4);
  CHECK(cgroup_chain("/a/b") == std::vector<std::string>{"/a", "/a/b"});
  CHECK(cgroup_parent("/a/b") == "/a");
  CHECK(cgroup_parent("/a") == "/");
}

TEST_CASE("a mount of a sub-tree: its root is stripped from the process path") {
  auto proc = parse_proc_cgroup("3:cpuset:/machine.slice/ctr\n");
  auto mounts = parse_mountinfo("40 1 0:29 /machine.slice /sys/fs/cgroup/cpuset rw - cgroup cgroup rw,cpuset\n");
  auto loc = locate_cpuset(*proc, *mounts);
  REQUIRE(loc);
  CHECK(loc->path == "/ctr");
}

TEST_CASE("unsafe or unlocatable paths are refused with a reason") {
  std::string why;
  auto mounts = parse_mountinfo(kHybridMountinfo);
  auto dots = parse_proc_cgroup("5:cpuset:/docker/../../etc\n");
  REQUIRE(dots);
  CHECK_FALSE(locate_cpuset(*dots, *mounts, &why));
  CHECK(why.find("..") != std::string::npos);
  auto no_cpuset = parse_proc_cgroup("12:memory:/x\n");
  CHECK_FALSE(locate_cpuset(*no_cpuset, *mounts, &why));
  CHECK_FALSE(parse_proc_cgroup("garbage\n", &why));
  CHECK_FALSE(parse_proc_cgroup("x:cpuset:/a\n", &why));
  CHECK_FALSE(parse_proc_cgroup("5:cpuset:relative\n", &why));
  CHECK_FALSE(parse_mountinfo("1 2 3\n", &why));
}

TEST_CASE("mountinfo octal escapes are decoded") {
  auto m = parse_mountinfo("40 1 0:29 / /mnt/with\\040space rw - cgroup cgroup rw,cpuset\n");
  REQUIRE(m);
  CHECK((*m)[0].mount_point == "/mnt/with space");
  CHECK((*m)[0].super_options == std::vector<std::string>{"rw", "cpuset"});
}

TEST_CASE("mountinfo: the cgroup filter keeps exactly the cgroup and cgroup2 lines, and checks every line") {
  auto all = parse_mountinfo(kHybridMountinfo);
  auto cg = parse_mountinfo(kHybridMountinfo, nullptr, MountFilter::cgroup);
  REQUIRE(all);
  REQUIRE(cg);
  CHECK(all->size() == 4);
  REQUIRE(cg->size() == 3);
  CHECK(cg->at(0).mount_point == "/sys/fs/cgroup/unified");
  CHECK(cg->at(0).fstype == "cgroup2");
  CHECK(cg->at(1).mount_point == "/sys/fs/cgroup/cpuset");
  CHECK(cg->at(1).super_options == std::vector<std::string>{"rw", "cpuset"});
  CHECK(cg->at(2).mount_point == "/sys/fs/cgroup/cpu,cpuacct");
  // the same location either way
  auto proc = parse_proc_cgroup("5:cpuset:/docker/abc\n0::/docker/abc\n");
  CHECK(locate_cpuset(*proc, *cg)->display() == locate_cpuset(*proc, *all)->display());
  // a malformed line that is not a cgroup mount still fails the file, filter or not
  std::string why;
  const std::string bad = std::string(kHybridMountinfo) + "77 25 0:40 / /mnt rw - tmpfs\n";
  CHECK_FALSE(parse_mountinfo(bad, &why, MountFilter::cgroup));
  CHECK(why.find("is not a mountinfo line") != std::string::npos);
  CHECK_FALSE(parse_mountinfo(bad, &why));
  // a field named "cgroup" before the separator is not the type
  CHECK(parse_mountinfo("40 1 0:29 / /cgroup rw shared:1 - tmpfs cgroup rw\n", nullptr, MountFilter::cgroup)->empty());
}
