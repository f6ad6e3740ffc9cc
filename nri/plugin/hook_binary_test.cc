#include "plugin/hook_binary.h"

#include <elf.h>
#include <fcntl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>

#include <doctest/doctest.h>

#include "plugin/exec_check.h"

using namespace gnh::nri;
namespace fs = std::filesystem;

namespace {

// A host's root as the DaemonSet's plugin sees it under --host-root: files at their host paths and
// the host init's mount table at <root>/proc/1/mountinfo, which names the mount each file is on.
// Each case gets its own root, so the probe reads its own table (the cache is per table path).
struct HostRoot {
  fs::path root;
  HostRoot() {
    char t[] = "/tmp/gnh-hook-binary-XXXXXX";
    root = ::mkdtemp(t);
    fs::create_directories(root / "proc/1");
    fs::create_directories(root / "opt/gpu-numa-hook/bin");
  }
  ~HostRoot() {
    std::error_code ec;
    fs::remove_all(root, ec);
  }
  HostRoot(const HostRoot&) = delete;
  HostRoot& operator=(const HostRoot&) = delete;
  void put(const std::string& host_path, const std::string& bytes, mode_t mode) const {
    const fs::path p = root / host_path.substr(1);
    fs::create_directories(p.parent_path());
    std::ofstream(p, std::ios::binary) << bytes;
    ::chmod(p.c_str(), mode);
  }
  // "M:m", the device the files here are on, as mountinfo's third field names it.
  std::string device() const {
    struct stat st {};
    ::stat(root.c_str(), &st);
    return std::to_string(major(st.st_dev)) + ":" + std::to_string(minor(st.st_dev));
  }
  void mountinfo(const std::string& opt_options) const {
    std::ofstream(root / "proc/1/mountinfo") << "22 1 " << device() << " / / rw,relatime shared:1 - ext4 /dev/sda3 rw\n"
                                              << "30 22 " << device() << " / /opt " << opt_options
                                              << " shared:2 - ext4 /dev/sda4 rw\n";
  }
};

// The first bytes of this test program: an ELF of this node's class, byte order and machine.
std::string this_node_head() {
  std::ifstream in("/proc/self/exe", std::ios::binary);
  std::string h(64, '\0');
  in.read(h.data(), 64);
  return h;
}

constexpr const char* kHook = "/opt/gpu-numa-hook/bin/gpu-numa-hook";

}  // namespace

TEST_CASE("hook binary: an executable ELF of this node's machine, found through the host's root, is usable") {
  HostRoot h;
  h.mountinfo("rw,relatime");
  h.put(kHook, this_node_head(), 0755);
  const HookBinary b = probe_hook_binary(kHook, h.root.string());
  CHECK(b.problem == "");
  CHECK(b.usable);
  CHECK(b.path == kHook);
  // A #! script: the kernel runs its interpreter, as for any script runc is given.
  HostRoot s;
  s.mountinfo("rw,relatime");
  s.put(kHook, "#!/bin/sh\nexec true\n", 0755);
  CHECK(probe_hook_binary(kHook, s.root.string()).usable);
}

TEST_CASE("hook binary: an absolute symlink is followed inside the host's root, never to this process's /") {
  HostRoot h;
  h.mountinfo("rw,relatime");
  h.put("/usr/local/lib/gnh/gpu-numa-hook", this_node_head(), 0755);
  fs::create_symlink("/usr/local/lib/gnh/gpu-numa-hook", h.root / "opt/gpu-numa-hook/bin/gpu-numa-hook");
  CHECK(probe_hook_binary(kHook, h.root.string()).usable);
  // /bin/sh exists in this process's view but not on that host: runc on the host could not run it.
  HostRoot o;
  o.mountinfo("rw,relatime");
  fs::create_symlink("/bin/sh", o.root / "opt/gpu-numa-hook/bin/gpu-numa-hook");
  const HookBinary b = probe_hook_binary(kHook, o.root.string());
  CHECK_FALSE(b.usable);
  CHECK(b.problem == "No such file or directory");
}

TEST_CASE("hook binary: missing, not a regular file, not executable: not usable, and why") {
  HostRoot h;
  h.mountinfo("rw,relatime");
  HookBinary b = probe_hook_binary(kHook, h.root.string());
  CHECK_FALSE(b.usable);
  CHECK(b.problem == "No such file or directory");
  fs::create_directories(h.root / "opt/gpu-numa-hook/bin/gpu-numa-hook");
  b = probe_hook_binary(kHook, h.root.string());
  CHECK_FALSE(b.usable);
  CHECK(b.problem == "not a regular file");
  HostRoot m;
  m.mountinfo("rw,relatime");
  m.put(kHook, this_node_head(), 0644);
  b = probe_hook_binary(kHook, m.root.string());
  CHECK_FALSE(b.usable);
  CHECK(b.problem == "not executable (mode 0644)");
}

TEST_CASE("hook binary: on a mount the host's mount table says is noexec: not usable, the mount named") {
  HostRoot h;
  h.mountinfo("rw,nosuid,noexec,relatime");
  h.put(kHook, this_node_head(), 0755);
  const HookBinary b = probe_hook_binary(kHook, h.root.string());
  CHECK_FALSE(b.usable);
  CHECK(b.problem == "on a noexec mount (/opt, /dev/sda4)");
}

TEST_CASE("hook binary: an ELF built for another machine: not usable, both machines named") {
  const ElfIdentity node = this_node_elf();
  const int other = node.machine == EM_AARCH64 ? EM_X86_64 : EM_AARCH64;
  std::string head = this_node_head();
  if (node.data == ELFDATA2MSB) head[18] = char(other >> 8), head[19] = char(other & 0xff);
  else head[18] = char(other & 0xff), head[19] = char(other >> 8);
  HostRoot h;
  h.mountinfo("rw,relatime");
  h.put(kHook, head, 0755);
  const HookBinary b = probe_hook_binary(kHook, h.root.string());
  CHECK_FALSE(b.usable);
  // The head keeps this node's byte order; only the machine differs.
  CHECK(b.problem == "built for " + arch_name(other, node.data) + ", this node is " + arch_name(node.machine, node.data));
}

namespace {

// While alive, this process can open no descriptor (EMFILE): the soft RLIMIT_NOFILE is lowered to
// the lowest free descriptor, as a plugin that leaked descriptors under load would be.
struct NoFreeDescriptors {
  struct rlimit saved {};
  NoFreeDescriptors() {
    ::getrlimit(RLIMIT_NOFILE, &saved);
    const int lowest = ::open("/dev/null", O_RDONLY | O_CLOEXEC);
    REQUIRE(lowest >= 0);
    ::close(lowest);
    struct rlimit lowered = saved;
    lowered.rlim_cur = static_cast<rlim_t>(lowest);
    REQUIRE(::setrlimit(RLIMIT_NOFILE, &lowered) == 0);
  }
  ~NoFreeDescriptors() { ::setrlimit(RLIMIT_NOFILE, &saved); }
};

HookBinary probe_without_descriptors(const HostRoot& h) {
  NoFreeDescriptors none;
  return probe_hook_binary(kHook, h.root.string());
}

}  // namespace

TEST_CASE("hook binary: a probe that cannot open a descriptor (EMFILE) keeps the last verdict, never reads as missing") {
  // A shortage of the plugin's own says nothing of the hook: injection goes on as it was.
  HostRoot h;
  h.mountinfo("rw,relatime");
  h.put(kHook, this_node_head(), 0755);
  REQUIRE(probe_hook_binary(kHook, h.root.string()).usable);
  HookBinary b = probe_without_descriptors(h);
  CHECK(b.usable);
  CHECK(b.problem == "");
  CHECK(b.unchecked == "Too many open files");
  // Once it can look again, it does.
  b = probe_hook_binary(kHook, h.root.string());
  CHECK(b.usable);
  CHECK(b.unchecked == "");

  // A hook last seen missing stays missing: the shortage does not make it present either.
  HostRoot m;
  m.mountinfo("rw,relatime");
  REQUIRE_FALSE(probe_hook_binary(kHook, m.root.string()).usable);
  b = probe_without_descriptors(m);
  CHECK_FALSE(b.usable);
  CHECK(b.problem == "No such file or directory");
  CHECK(b.unchecked == "Too many open files");

  // Never checked: taken as present, the verdict that keeps containers protected.
  HostRoot n;
  n.mountinfo("rw,relatime");
  b = probe_without_descriptors(n);
  CHECK(b.usable);
  CHECK(b.unchecked == "Too many open files");
}
