// HostFs's beneath rules, tested directly, both through openat2 and through the component walk
// used on kernels without it (forced here with the test seam).
#include "host/fs/host_fs.h"

#include <doctest/doctest.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <filesystem>
#include <fstream>
#include <functional>

#include "base/error.h"
#include "errno_of.h"

using namespace gnh;
namespace fs = std::filesystem;

namespace {

// A scratch tree: base/a/b/file, a symlinked dir and file inside base, a secret outside it.
struct Tree {
  std::string top;
  std::string base;
  Tree() {
    char t[] = "/tmp/gnh-hostfs-XXXXXX";
    REQUIRE(::mkdtemp(t));
    top = t;
    base = top + "/base";
    fs::create_directories(base + "/a/b");
    std::ofstream(base + "/a/b/file") << "0,8\n";
    std::ofstream(top + "/secret") << "secret\n";
    fs::create_directory_symlink("a", base + "/link-dir");
    fs::create_symlink("../secret", base + "/a/link-file");
    fs::create_directory(base + "/mnt");
  }
  ~Tree() {
    ::umount2((base + "/mnt").c_str(), MNT_DETACH);
    fs::remove_all(top);
  }
};

// Runs the same checks with openat2 and with the fallback walk.
struct Openat2Mode {
  explicit Openat2Mode(bool disabled) { set_openat2_disabled_for_tests(disabled); }
  ~Openat2Mode() { set_openat2_disabled_for_tests(false); }
};

}  // namespace

TEST_CASE("beneath: a clean path reads and writes - absence is a value, not an error") {
  for (bool walk : {false, true}) {
    CAPTURE(walk);
    Openat2Mode mode(walk);
    Tree t;
    HostFs fs("/");
    CHECK(fs.read_beneath(t.base, "/a/b/file") == "0,8\n");
    CHECK(fs.read_beneath(t.base, "a/b/missing") == std::nullopt);
    CHECK(fs.read_beneath(t.base, "a/missing-dir/file") == std::nullopt);
    CHECK(fs.dir_exists_beneath(t.base, "a/b"));
    CHECK_FALSE(fs.dir_exists_beneath(t.base, "a/nope"));
    CHECK(fs.list_subdirs_beneath(t.base, "/") == std::vector<std::string>{"a", "mnt"});  // not the symlink
    CHECK(fs.list_subdirs_beneath(t.base, "gone") == std::nullopt);
    fs.write_beneath(t.base, "a/b/file", "0,8,252");
    CHECK(fs.read_beneath(t.base, "a/b/file") == "0,8,252");
    CHECK(errno_of([&] { fs.write_beneath(t.base, "a/b/missing", "1"); }) == ENOENT);
  }
}

TEST_CASE("beneath: '..', '.', absolute escapes and NUL are refused before any open") {
  for (bool walk : {false, true}) {
    CAPTURE(walk);
    Openat2Mode mode(walk);
    Tree t;
    HostFs fs("/");
    CHECK(errno_of([&] { fs.read_beneath(t.base, "a/../../secret"); }) == EINVAL);
    CHECK(errno_of([&] { fs.read_beneath(t.base, "../secret"); }) == EINVAL);
    CHECK(errno_of([&] { fs.read_beneath(t.base, "a/./b/file"); }) == EINVAL);
    CHECK(errno_of([&] { fs.read_beneath(t.base, "a//b/file"); }) == EINVAL);
    CHECK(errno_of([&] { fs.read_beneath(t.base, std::string("a/b/file\0/x", 11)); }) == EINVAL);
    CHECK(errno_of([&] { fs.write_beneath(t.base, "../secret", "x"); }) == EINVAL);
    CHECK(fs::exists(t.top + "/secret"));
    CHECK(errno_of([&] { fs.read(std::string("/etc/passwd\0/x", 14)); }) == EINVAL);
  }
}

TEST_CASE("beneath: symlinks are never followed, neither a directory on the way nor the file itself") {
  for (bool walk : {false, true}) {
    CAPTURE(walk);
    Openat2Mode mode(walk);
    Tree t;
    HostFs fs("/");
    CHECK(errno_of([&] { fs.read_beneath(t.base, "link-dir/b/file"); }) == ELOOP);
    CHECK(errno_of([&] { fs.read_beneath(t.base, "a/link-file"); }) == ELOOP);
    CHECK(errno_of([&] { fs.write_beneath(t.base, "a/link-file", "x"); }) == ELOOP);
    CHECK(errno_of([&] { fs.dir_exists_beneath(t.base, "link-dir"); }) == ELOOP);
    std::ifstream secret(t.top + "/secret");
    std::string line;
    std::getline(secret, line);
    CHECK(line == "secret");
  }
}

TEST_CASE("beneath: a mount inside the base is not crossed (RESOLVE_NO_XDEV, and st_dev in the walk)") {
  Tree t;
  REQUIRE_MESSAGE(::mount("tmpfs", (t.base + "/mnt").c_str(), "tmpfs", 0, "size=64k") == 0,
                  "mounting a tmpfs needs root (the test command runs as root)");
  std::ofstream(t.base + "/mnt/file") << "x\n";
  for (bool walk : {false, true}) {
    CAPTURE(walk);
    Openat2Mode mode(walk);
    HostFs fs("/");
    CHECK(errno_of([&] { fs.read_beneath(t.base, "mnt/file"); }) == EXDEV);
  }
}

TEST_CASE("beneath: the walk reads a real cgroup file on cgroupfs") {
  Openat2Mode mode(true);
  HostFs fs("/");
  std::string mount = fs::exists("/sys/fs/cgroup/cpuset/cpuset.mems") ? "/sys/fs/cgroup/cpuset" : "/sys/fs/cgroup";
  bool has_cpuset = fs::exists(mount + "/cpuset.mems") || fs::exists(mount + "/cpuset.mems.effective");
  REQUIRE_MESSAGE(has_cpuset, "no cpuset hierarchy on this machine");
  auto text = fs.read_beneath(mount, fs::exists(mount + "/cpuset.mems") ? "cpuset.mems" : "cpuset.mems.effective");
  REQUIRE(text);
  CHECK(!text->empty());
}

TEST_CASE("listing: an unlistable directory is an error with its errno, never an empty list") {
  Tree t;
  HostFs fs("/");
  CHECK(errno_of([&] { fs.list_dir(t.base + "/a/b/file"); }) == 0);  // ENOTDIR: absent
  CHECK(fs.list_dir(t.base + "/a/b/file") == std::nullopt);
  CHECK(fs.list_dir(t.base + "/nope") == std::nullopt);
  CHECK(fs.list_dir(t.base + "/a") == std::vector<std::string>{"b", "link-file"});
}

TEST_CASE("a held directory: files below it by relative path, absence a value, entries sorted") {
  Tree t;
  HostFs fs("/");
  CHECK(!fs.open_dir(t.base + "/nope"));
  auto dir = fs.open_dir(t.base);
  REQUIRE(dir);
  CHECK(dir->path() == t.base);
  CHECK(dir->read("a/b/file") == "0,8\n");
  CHECK(dir->read("a/b/missing") == std::nullopt);
  CHECK(dir->read("a/b/file/x") == std::nullopt);  // ENOTDIR: absent, as HostFs::read
  CHECK(dir->names() == std::vector<std::string>{"a", "link-dir", "mnt"});
  CHECK(dir->names() == std::vector<std::string>{"a", "link-dir", "mnt"});  // listed again from the start
  // A directory where the file should be: an error naming the file, never "absent".
  CHECK(errno_of([&] { (void)dir->read("a"); }) == EISDIR);
  // Under a fixture root, the held directory's path is the fixture's.
  HostFs rooted(t.top);
  auto under = rooted.open_dir("/base/a");
  REQUIRE(under);
  CHECK(under->path() == t.base + "/a");
  CHECK(under->read("b/file", 64, ReadEnd::at_short_read) == "0,8\n");
}

TEST_CASE("ReadEnd::at_short_read: one read for a small file, a full buffer read on to the end") {
  Tree t;
  HostFs fs("/");
  for (size_t size : {0, 1, 100, 4095, 4096, 4097, 8192, 10000}) {
    CAPTURE(size);
    std::string text(size, 'x');
    for (size_t i = 0; i < size; ++i) text[i] = static_cast<char>('a' + i % 26);
    std::ofstream(t.base + "/sized") << text;
    CHECK(fs.read(t.base + "/sized", 64 * 1024, ReadEnd::at_short_read) == text);
    CHECK(fs.read_beneath(t.base, "sized", 64 * 1024, ReadEnd::at_short_read) == text);
    CHECK(fs.open_dir(t.base)->read("sized", 64 * 1024, ReadEnd::at_short_read) == text);
  }
  // The kernel's single-record files read alike either way (those the hook reads with it).
  for (const char* f : {"/proc/self/cgroup", "/sys/devices/system/node/online", "/sys/devices/system/node/possible"}) {
    CAPTURE(f);
    auto whole = fs.read(f);
    if (!whole) continue;  // a kernel without NUMA has no node directory
    CHECK(fs.read(f, 64 * 1024, ReadEnd::at_short_read) == whole);
  }
}

TEST_CASE("read_head: a large file's first bytes with one read, a small one whole, absence a value") {
  char t[] = "/tmp/gnh-hostfs-head-XXXXXX";
  REQUIRE(::mkdtemp(t));
  const std::string dir = t;
  std::ofstream(dir + "/big") << std::string(8 << 20, 'x');  // a program's size
  std::ofstream(dir + "/small") << "#! /bin/sh\nexec x\n";
  HostFs fs(dir);
  auto head = fs.read_head("/big", 1024);
  REQUIRE(head);
  CHECK(head->size() == 1024);
  CHECK(fs.read_head("/small", 1024) == std::optional<std::string>("#! /bin/sh\nexec x\n"));
  CHECK_FALSE(fs.read_head("/absent", 1024));
  CHECK(errno_of([&] { fs.read_head(std::string("/small\0x", 8), 16); }) == EINVAL);
  fs::remove_all(dir);
}
