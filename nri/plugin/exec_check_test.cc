#include "plugin/exec_check.h"

#include <elf.h>

#include <cerrno>

#include <doctest/doctest.h>

using namespace gnh;
using namespace gnh::nri;

namespace {

const char* kMountinfo =
    "22 1 8:3 / / rw,relatime shared:1 - ext4 /dev/sda3 rw\n"
    "30 22 8:4 / /opt rw,nosuid,nodev,noexec,relatime shared:2 - ext4 /dev/sda4 rw\n"
    "31 30 0:40 / /opt/gpu-numa-hook rw,relatime shared:3 - tmpfs tmpfs rw\n"
    "32 22 0:41 / /opt\\040x rw,noexec - tmpfs none rw\n"
    "33 30 0:42 / /opt rw,relatime - tmpfs over rw\n";

// A 64-byte ELF header prefix: class, byte order, e_machine.
std::string elf(int cls, int data, int machine) {
  std::string h(64, '\0');
  h[0] = 0x7f, h[1] = 'E', h[2] = 'L', h[3] = 'F';
  h[EI_CLASS] = char(cls);
  h[EI_DATA] = char(data);
  h[EI_VERSION] = 1;
  h[16] = 2;  // ET_EXEC
  if (data == ELFDATA2MSB) h[18] = char(machine >> 8), h[19] = char(machine & 0xff);
  else h[18] = char(machine & 0xff), h[19] = char(machine >> 8);
  return h;
}

const ElfIdentity kX86{ELFCLASS64, ELFDATA2LSB, EM_X86_64};

}  // namespace

TEST_CASE("exec check: mountinfo gives each mount its device and per-mount options") {
  auto m = parse_mountinfo(kMountinfo);
  REQUIRE(m);
  REQUIRE(m->size() == 5);
  CHECK((*m)[1].device == "8:4");
  CHECK((*m)[1].mount_options == std::vector<std::string>{"rw", "nosuid", "nodev", "noexec", "relatime"});
  CHECK((*m)[1].super_options == std::vector<std::string>{"rw"});
  CHECK((*m)[3].mount_point == "/opt x");
}

TEST_CASE("exec check: the mount holding a path is the longest mount-point prefix, the later one on top") {
  auto m = *parse_mountinfo(kMountinfo);
  CHECK(mount_for_path(m, "/opt/gpu-numa-hook/bin/gpu-numa-hook")->mount_point == "/opt/gpu-numa-hook");
  // /opt twice: the tmpfs mounted over the noexec ext4 is what a path under /opt reaches.
  CHECK(mount_for_path(m, "/opt/other/hook")->source == "over");
  CHECK(mount_for_path(m, "/opt")->source == "over");
  // A prefix by characters is not one by components.
  CHECK(mount_for_path(m, "/optx/hook")->mount_point == "/");
  CHECK(mount_for_path(m, "/usr/bin/gpu-numa-hook")->source == "/dev/sda3");
  CHECK(mount_for_path({}, "/usr/bin/x") == nullptr);
}

TEST_CASE("exec check: a noexec mount is named with its mount point and source") {
  auto m = *parse_mountinfo(kMountinfo);
  CHECK(noexec_problem(m[1]) == "on a noexec mount (/opt, /dev/sda4)");
  CHECK(noexec_problem(m[0]).empty());
  // noexec on the filesystem's super options alone is not a per-mount flag: only field 6 counts.
  auto su = *parse_mountinfo("40 1 0:5 / /x rw - tmpfs t rw,noexec\n");
  CHECK(noexec_problem(su[0]).empty());
}

TEST_CASE("exec check: an ELF of this node's machine, class and byte order, or a #! script, runs") {
  CHECK(exec_format_problem(elf(ELFCLASS64, ELFDATA2LSB, EM_X86_64), kX86).empty());
  CHECK(exec_format_problem("#!/bin/sh\nexec true\n", kX86).empty());
  CHECK(exec_format_problem(elf(ELFCLASS64, ELFDATA2LSB, EM_AARCH64), kX86) == "built for aarch64, this node is x86_64");
  CHECK(exec_format_problem(elf(ELFCLASS64, ELFDATA2LSB, EM_X86_64), {ELFCLASS64, ELFDATA2LSB, EM_PPC64}) ==
        "built for x86_64, this node is ppc64le");
  CHECK(exec_format_problem(elf(ELFCLASS64, ELFDATA2MSB, EM_PPC64), {ELFCLASS64, ELFDATA2LSB, EM_PPC64}) ==
        "built for ppc64 (big-endian), this node is ppc64le");
  CHECK(exec_format_problem(elf(ELFCLASS32, ELFDATA2LSB, EM_X86_64), kX86) ==
        "a 32-bit ELF, this node runs 64-bit programs");
  CHECK(exec_format_problem("PK\x03\x04 a zip", kX86) == "not an ELF executable or a #! script");
  CHECK(exec_format_problem("", kX86) == "not an ELF executable or a #! script");
  CHECK(exec_format_problem(elf(ELFCLASS64, ELFDATA2LSB, EM_X86_64).substr(0, 10), kX86) == "a truncated ELF header");
}

TEST_CASE("exec check: the node's identity is the one this test runs as") {
  ElfIdentity n = this_node_elf();
  CHECK(n.elf_class == (sizeof(void*) == 8 ? ELFCLASS64 : ELFCLASS32));
  CHECK(!arch_name(n.machine, n.data).empty());
  CHECK(arch_name(n.machine, n.data).rfind("machine ", 0) != 0);
}

TEST_CASE("exec check: a probe's errno is ours (a shortage) or the file's") {
  for (int err : {EMFILE, ENFILE, ENOMEM, ENOBUFS, EAGAIN, EINTR}) CHECK(probe_failure_is_ours(err));
  for (int err : {ENOENT, EACCES, EPERM, ENOTDIR, ELOOP, ENAMETOOLONG, EIO, ESTALE, 0}) CHECK_FALSE(probe_failure_is_ours(err));
}
