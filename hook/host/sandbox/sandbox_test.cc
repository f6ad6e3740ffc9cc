// The sandbox is irreversible, so each case enters it in a forked child and reports back through
// a pipe: what still works (files, pidfds, a real cgroup v1 patch) and what must fail (execve,
// fork, network sockets, executable memory) with EPERM rather than a crash.
#include <doctest/doctest.h>

#include <fcntl.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <sys/mman.h>
#include <sys/ptrace.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstddef>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "host/cgroup/cpuset_tree.h"
#include "host/log/event_log.h"
#include "host/fs/host_fs.h"
#include "host/cgroup/patcher.h"
#include "host/sandbox/sandbox.h"
#include "host/sandbox/sandbox_rules.h"
#include "host/systemd/systemd_bus.h"
#include "systemd/dbus_message.h"
#include "systemd/systemd_unit.h"
#include "systemd/dbus_test_replies.h"
#include "scripted_systemd.h"

using namespace gnh;

#if defined(__SANITIZE_ADDRESS__)
#define GNH_TEST_ASAN_BUILD 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define GNH_TEST_ASAN_BUILD 1
#endif
#endif

namespace {

// Runs body() in a child after enter_hook_sandbox(); returns what the child wrote ("" = all good).
std::string in_sandboxed_child(const std::function<std::string()>& body) {
  int p[2];
  REQUIRE(::pipe(p) == 0);
  pid_t pid = ::fork();
  REQUIRE(pid >= 0);
  if (pid == 0) {
    ::close(p[0]);
    std::string out = enter_hook_sandbox();
    if (out.empty()) out = body();
    (void)!::write(p[1], out.data(), out.size());
    ::_exit(0);
  }
  ::close(p[1]);
  std::string out;
  char buf[512];
  ssize_t n;
  while ((n = ::read(p[0], buf, sizeof buf)) > 0) out.append(buf, static_cast<size_t>(n));
  ::close(p[0]);
  int status = 0;
  ::waitpid(pid, &status, 0);
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) out += " (child died, status " + std::to_string(status) + ")";
  return out;
}

std::string status_field(const std::string& key) {
  std::ifstream f("/proc/self/status");
  std::string line;
  while (std::getline(f, line))
    if (line.rfind(key + ":", 0) == 0) {
      std::string v = line.substr(key.size() + 1);
      return v.substr(v.find_first_not_of(" \t"));
    }
  return "";
}

std::string expect_eperm(const char* what, long rc) {
  if (rc == -1 && errno == EPERM) return "";
  return std::string(what) + " was not refused with EPERM (rc " + std::to_string(rc) + ", errno " +
         std::to_string(errno) + "); ";
}

bool is_root() { return ::geteuid() == 0; }

}  // namespace

TEST_CASE("the sandbox keeps exactly CAP_DAC_OVERRIDE and CAP_KILL") {
  CHECK(sandbox_kept_capabilities() == std::vector<std::string>{"cap_dac_override", "cap_kill"});
}

TEST_CASE("inside the sandbox: no new privileges, two capabilities, a seccomp filter") {
  if (!is_root()) return;  // the capability sets below are root's
  const std::string bounding_before = status_field("CapBnd");
  std::string out = in_sandboxed_child([bounding_before] {
    std::string bad;
    if (status_field("NoNewPrivs") != "1") bad += "NoNewPrivs is " + status_field("NoNewPrivs") + "; ";
    if (status_field("Seccomp") != "2") bad += "Seccomp is " + status_field("Seccomp") + "; ";
    // bit 1 CAP_DAC_OVERRIDE, bit 5 CAP_KILL
    for (const char* set : {"CapEff", "CapPrm"})
      if (status_field(set) != "0000000000000022") bad += std::string(set) + " is " + status_field(set) + "; ";
    // Under no_new_privs the bounding set is left as it was: an execve could gain nothing from it.
    if (status_field("CapBnd") != bounding_before) bad += "CapBnd is " + status_field("CapBnd") + ", was " + bounding_before + "; ";
    if (status_field("CapInh") != "0000000000000000") bad += "CapInh is " + status_field("CapInh") + "; ";
    return bad;
  });
  CHECK(out == "");
}

TEST_CASE("inside the sandbox: execve, fork, network sockets and executable memory fail with EPERM") {
  std::string out = in_sandboxed_child([] {
    std::string bad;
    char* argv[] = {const_cast<char*>("/bin/true"), nullptr};
    char* envp[] = {nullptr};
    bad += expect_eperm("execve", ::execve("/bin/true", argv, envp));
    bad += expect_eperm("fork", static_cast<long>(::syscall(SYS_clone, SIGCHLD, 0, 0, 0, 0)));
    bad += expect_eperm("socket(AF_INET)", ::socket(AF_INET, SOCK_STREAM, 0));
#ifndef GNH_TEST_ASAN_BUILD  // an AddressSanitizer build lets LeakSanitizer ptrace (sandbox.cc)
    bad += expect_eperm("ptrace", ::syscall(SYS_ptrace, 0 /* PTRACE_TRACEME */, 0, 0, 0));
#endif
    bad += expect_eperm("mount", ::syscall(SYS_mount, "none", "/tmp", "tmpfs", 0, nullptr));
    void* m = ::mmap(nullptr, 4096, PROT_READ | PROT_EXEC, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    bad += expect_eperm("mmap(PROT_EXEC)", m == MAP_FAILED ? -1 : 0);
    void* rw = ::mmap(nullptr, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (rw == MAP_FAILED) bad += "mmap(PROT_READ|PROT_WRITE) failed; ";
    else bad += expect_eperm("mprotect(PROT_EXEC)", ::mprotect(rw, 4096, PROT_READ | PROT_EXEC));
    return bad;
  });
  CHECK(out == "");
}

TEST_CASE("inside the sandbox: files, directories, locks, pidfds and syslog's socket still work") {
  char dir_t[] = "/tmp/gnh-sandbox-XXXXXX";
  REQUIRE(::mkdtemp(dir_t));
  std::string dir = dir_t;
  std::ofstream(dir + "/in") << "0,8\n";
  const pid_t parent = ::getpid();  // getppid is not on the allow-list: the hook never needs it
  std::string out = in_sandboxed_child([&] {
    std::string bad;
    HostFs fs(dir);
    auto text = fs.read("/in");
    if (!text || *text != "0,8\n") bad += "reading a file failed; ";
    try {
      fs.write_beneath("/", "in", "1");
    } catch (const std::exception& e) {
      bad += std::string("write_beneath failed: ") + e.what() + "; ";
    }
    if (::mkdir((dir + "/sub").c_str(), 0755) != 0) bad += "mkdir failed; ";
    if (fs.list_dir("/").value_or(std::vector<std::string>()).size() != 2) bad += "list_dir failed; ";
    int pidfd = static_cast<int>(::syscall(SYS_pidfd_open, parent, 0));
    if (pidfd < 0) bad += "pidfd_open failed: errno " + std::to_string(errno) + "; ";
    else if (::syscall(SYS_pidfd_send_signal, pidfd, 0, nullptr, 0) != 0) bad += "pidfd_send_signal(0) failed; ";
    int s = ::socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
    if (s < 0) bad += "socket(AF_UNIX) failed; ";
    else ::close(s);
    return bad;
  });
  CHECK(out == "");
  std::string cmd = "rm -rf " + dir;
  CHECK(std::system(cmd.c_str()) == 0);
}

// Not named "inside the sandbox...": the race VM counts those cases (tests/vm/guest-init.sh).
TEST_CASE("sandboxed: the D-Bus call to systemd goes through the allow-list as it is") {
  char dir_t[] = "/tmp/gnh-sandbox-dbus-XXXXXX";
  REQUIRE(::mkdtemp(dir_t));
  std::string dir = dir_t;
  REQUIRE(std::system(("mkdir -p " + dir + "/run/systemd").c_str()) == 0);
  ScriptedSystemd systemd(dir + "/run/systemd/private");
  std::thread server([&] {
    systemd.serve({dbus_replies::byte_array_property_reply(2, {0x01}), dbus_replies::method_return(3)});
  });
  std::string out = in_sandboxed_child([&] {
    return set_unit_allowed_memory_nodes(HostFs(dir), "runc-c1.scope", NodeSet::of({0, 1}),
                                         Deadline(std::chrono::milliseconds(5000)))
        .error;
  });
  server.join();
  CHECK(out == "");
  CHECK(systemd.auth == std::string(1, '\0') + dbus_auth_external_line(static_cast<unsigned>(::geteuid())));
  REQUIRE(systemd.calls.size() == 2);
  CHECK(systemd.calls[1] == dbus_set_allowed_memory_nodes_call(3, "runc-c1.scope", true, {0x03}));
  // No socket at all (no systemd private socket, no system bus): an answer naming both, not a hang.
  std::string none = in_sandboxed_child([&] {
    return set_unit_allowed_memory_nodes(HostFs(dir + "/nowhere"), "runc-c1.scope", NodeSet::of({0, 1}),
                                         Deadline(std::chrono::milliseconds(5000)))
        .error;
  });
  CHECK(none.find("/run/systemd/private") != std::string::npos);
  CHECK(none.find("/run/dbus/system_bus_socket") != std::string::npos);
  CHECK(std::system(("rm -rf " + dir).c_str()) == 0);
}

// The log's fallback starts inside the sandbox when the disk fills after the hook entered it: the
// stderr line and syslog(3) (an AF_UNIX datagram socket to /dev/log) must both be allowed there.
TEST_CASE("inside the sandbox: a log file that fails at a write falls back to stderr and syslog") {
  char dir_t[] = "/tmp/gnh-sandbox-log-XXXXXX";
  REQUIRE(::mkdtemp(dir_t));
  const std::string dir = dir_t;
  REQUIRE(::symlink("/dev/full", (dir + "/log").c_str()) == 0);
  const std::string err_file = dir + "/stderr";
  pid_t pid = ::fork();
  REQUIRE(pid >= 0);
  if (pid == 0) {
    int fd = ::open(err_file.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    if (fd < 0 || ::dup2(fd, 2) != 2) ::_exit(3);
    LogConfig cfg;
    cfg.file = "/log";
    cfg.syslog = true;
    EventLog log(cfg, HostFs(dir));  // opened before the sandbox, as in the hook
    if (!enter_hook_sandbox().empty()) ::_exit(4);
    LogRecord r;
    r.container = "c1";
    r.stage = "prestart";
    r.msg = "inside";
    log.write(r);
    ::_exit(log.fell_back() ? 0 : 5);
  }
  int status = 0;
  ::waitpid(pid, &status, 0);
  CHECK(WIFEXITED(status));
  CHECK(WEXITSTATUS(status) == 0);
  std::ifstream in(err_file);
  std::stringstream text;
  text << in.rdbuf();
  std::string err = text.str();
  CHECK(err.find("]: cannot write the log file " + dir + "/log (write failed: No space left on device): this and later records go to stderr and syslog\n") != std::string::npos);
  CHECK(err.find(" container=c1 stage=prestart action=allow ") != std::string::npos);
  CHECK(err.find("msg=\"inside\"\n") != std::string::npos);
  std::filesystem::remove_all(dir);
}

// The real kernel's cgroup v1 cpuset, this machine's: a stale-looking chain (empty mems, which a
// one-node host allows) patched top-down from inside the sandbox, under the real lock code.
TEST_CASE("inside the sandbox: apply_patch writes a real cgroup v1 cpuset chain") {
  const std::string mount = "/sys/fs/cgroup/cpuset";
  struct stat st;
  if (!is_root() || ::stat((mount + "/cpuset.mems").c_str(), &st) != 0) return;
  HostFs host("/");
  std::string root_mems = *host.read(mount + "/cpuset.mems");
  auto nodes = NodeSet::parse(root_mems);
  REQUIRE(nodes);
  REQUIRE(!nodes->empty());
  NodeSet first = NodeSet::of({nodes->ids().front()});
  std::string parent = "/gnh-sandbox-test-" + std::to_string(::getpid());
  REQUIRE(::mkdir((mount + parent).c_str(), 0755) == 0);
  REQUIRE(::mkdir((mount + parent + "/c1").c_str(), 0755) == 0);
  // A fresh v1 cpuset starts with empty mems: "stale" towards every node.
  CHECK(host.read(mount + parent + "/c1/cpuset.mems").value_or("?") == "\n");
  std::string lock = "/tmp/gnh-sandbox-test-" + std::to_string(::getpid()) + ".lock";
  std::string out = in_sandboxed_child([&] {
    CpusetTree tree(host, CpusetLocation{CgroupVersion::v1, mount, "/"});
    PatchOutcome o = apply_patch(tree, parent + "/c1", first, lock, Deadline(std::chrono::seconds(5)));
    if (!o.ok) return "apply_patch failed: " + o.error;
    if (o.steps.size() != 2) return "expected 2 writes, got " + std::to_string(o.steps.size());
    return std::string();
  });
  CHECK(out == "");
  CHECK(host.read(mount + parent + "/cpuset.mems").value_or("?") == first.to_string() + "\n");
  CHECK(host.read(mount + parent + "/c1/cpuset.mems").value_or("?") == first.to_string() + "\n");
  ::rmdir((mount + parent + "/c1").c_str());
  ::rmdir((mount + parent).c_str());
  ::unlink(lock.c_str());
}

// The filter is compiled to BPF at build time (sandbox_filter_gen); these prove the program the
// hook installs is exactly what libseccomp builds from the same rule list now, at test time,
// behind the one-instruction prologue that spares the kernel's attach-time emulation.
namespace {
bool asan_build() {
#ifdef GNH_TEST_ASAN_BUILD
  return true;
#else
  return false;
#endif
}
}  // namespace

TEST_CASE("the build-time seccomp program equals libseccomp's, byte for byte") {
  std::vector<unsigned char> expected;
  REQUIRE(export_sandbox_filter(static_cast<uint32_t>(::getpid()), asan_build(), &expected) == "");
  REQUIRE(!expected.empty());
  CHECK(sandbox_filter_program() == expected);
}

TEST_CASE("the installed program is libseccomp's behind one load of the instruction pointer") {
  std::vector<unsigned char> libseccomp, installed;
  REQUIRE(export_libseccomp_filter(static_cast<uint32_t>(::getpid()), asan_build(), &libseccomp) == "");
  REQUIRE(export_sandbox_filter(static_cast<uint32_t>(::getpid()), asan_build(), &installed) == "");
  REQUIRE(installed.size() == libseccomp.size() + sizeof(sock_filter));
  sock_filter first;
  std::memcpy(&first, installed.data(), sizeof first);
  // A load the kernel's cache builder cannot evaluate (kernel/seccomp.c, seccomp_is_const_allow
  // takes only nr and arch), so it gives up at instruction 0 for every system call number.
  CHECK(first.code == (BPF_LD | BPF_W | BPF_ABS));
  CHECK(first.k == offsetof(struct seccomp_data, instruction_pointer));
  CHECK(std::equal(libseccomp.begin(), libseccomp.end(), installed.begin() + sizeof first));
  // libseccomp's program starts by loading the architecture, so the prologue's value is never used.
  sock_filter second;
  std::memcpy(&second, libseccomp.data(), sizeof second);
  CHECK(second.code == (BPF_LD | BPF_W | BPF_ABS));
  CHECK(second.k == offsetof(struct seccomp_data, arch));
}

TEST_CASE("the filter the kernel holds after enter_hook_sandbox() is libseccomp's, byte for byte") {
  if (!is_root()) return;  // PTRACE_SECCOMP_GET_FILTER needs CAP_SYS_ADMIN
  int go[2], done[2];
  REQUIRE(::pipe(go) == 0);
  REQUIRE(::pipe(done) == 0);
  pid_t pid = ::fork();
  REQUIRE(pid >= 0);
  if (pid == 0) {
    ::close(go[1]);
    ::close(done[0]);
    std::string note = enter_hook_sandbox();
    char c = note.empty() ? 'y' : 'n';
    (void)!::write(done[1], &c, 1);
    (void)!::read(go[0], &c, 1);  // the parent reads our filter meanwhile
    ::_exit(0);
  }
  ::close(go[0]);
  ::close(done[1]);
  char c = 0;
  REQUIRE(::read(done[0], &c, 1) == 1);
  CHECK(c == 'y');
  std::vector<unsigned char> installed;
  if (::ptrace(PTRACE_SEIZE, pid, nullptr, nullptr) == 0) {
    ::ptrace(PTRACE_INTERRUPT, pid, nullptr, nullptr);
    int status = 0;
    ::waitpid(pid, &status, 0);
    long n = ::ptrace(PTRACE_SECCOMP_GET_FILTER, pid, reinterpret_cast<void*>(0), nullptr);
    if (n > 0) {
      std::vector<sock_filter> prog(static_cast<size_t>(n));
      if (::ptrace(PTRACE_SECCOMP_GET_FILTER, pid, reinterpret_cast<void*>(0), prog.data()) == n) {
        const auto* b = reinterpret_cast<const unsigned char*>(prog.data());
        installed.assign(b, b + prog.size() * sizeof(sock_filter));
      }
    }
    ::ptrace(PTRACE_DETACH, pid, nullptr, nullptr);
  }
  (void)!::write(go[1], "x", 1);
  ::close(go[1]);
  ::close(done[0]);
  int status = 0;
  ::waitpid(pid, &status, 0);
  std::vector<unsigned char> expected;
  REQUIRE(export_sandbox_filter(static_cast<uint32_t>(pid), asan_build(), &expected) == "");
  REQUIRE(!installed.empty());
  CHECK(installed == expected);
}
