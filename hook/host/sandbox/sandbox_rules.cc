#include "host/sandbox/sandbox_rules.h"

#include <linux/filter.h>
#include <linux/seccomp.h>
#include <sched.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <termios.h>
#include <unistd.h>

#include <cerrno>
#include <cstddef>
#include <cstdio>
#include <cstring>

#include "host/sandbox/sandbox.h"

namespace gnh {

namespace {

// Everything the hook still does after start-up, grouped by why. Names, not numbers: a name this
// architecture lacks is skipped. _llseek: glibc's lseek on ppc64le (the listing of the driver's
// GPU directory rewinds it); x86-64 and aarch64 have no such call, so their programs are as before.
constexpr const char* kAllowed[] = {
    // reading driver files, /proc, /sys, config.json; writing cpuset.mems; the lock file
    "read", "pread64", "readv", "write", "writev", "pwrite64", "openat", "openat2", "open", "close",
    "lseek", "_llseek", "fstat", "newfstatat", "stat", "lstat", "statx", "getdents", "getdents64", "fcntl",
    "dup", "dup2", "dup3", "flock", "mkdir", "mkdirat", "access", "faccessat", "faccessat2",
    "readlink", "readlinkat",
    // memory (malloc, C++ runtime); mmap and mprotect only without PROT_EXEC, see below
    "brk", "munmap", "mremap", "madvise",
    // the container's init held by a pidfd, probed with signal 0
    "pidfd_open", "pidfd_send_signal",
    // the deadline watchdog (SIGALRM) and the lock's back-off sleep
    "rt_sigaction", "rt_sigprocmask", "rt_sigreturn", "setitimer", "getitimer", "nanosleep",
    "clock_nanosleep", "clock_gettime", "clock_getres", "gettimeofday", "time", "restart_syscall",
    "poll", "ppoll",
    // a start asking topology --follow for a current NVML cache waits for its answer's rename
    "inotify_init1", "inotify_add_watch",
    // syslog(3) when [log] syslog = true: a datagram to /dev/log (AF_UNIX only, see below); the
    // D-Bus call to systemd after a patch of a systemd unit's cgroup (host/systemd/systemd_bus.h)
    "connect", "sendto", "sendmsg",
    // identity for log lines, locks and futexes of the C/C++ runtime
    "getpid", "gettid", "getuid", "geteuid", "getgid", "getegid", "futex", "sched_yield",
    "getrandom", "exit", "exit_group",
    // harmless, and what the sanitizer runtimes of the test builds use on an error path: an
    // alternate signal stack when an exception is thrown, a pipe to probe whether memory is readable
    "sigaltstack", "pipe", "pipe2",
};

// Test builds with AddressSanitizer only (tests/sanitize): LeakSanitizer's end-of-run scan stops
// the world from a helper thread that ptrace-attaches to us. Never in a production build.
constexpr const char* kAllowedForLeakSanitizer[] = {"ptrace", "prctl", "wait4", "waitid", "getppid",
                                                    "sched_getaffinity"};

std::string seccomp_error(const char* what, int rc) { return std::string(what) + ": " + std::strerror(-rc); }

std::string add_rules(scmp_filter_ctx ctx, uint32_t tgkill_pid, bool leak_sanitizer) {
  int rc = 0;
  for (const char* name : kAllowed) {
    int nr = seccomp_syscall_resolve_name(name);
    if (nr == __NR_SCMP_ERROR) continue;
    if ((rc = seccomp_rule_add(ctx, SCMP_ACT_ALLOW, nr, 0)) < 0) return seccomp_error(name, rc);
  }
  if (leak_sanitizer) {
    for (const char* name : kAllowedForLeakSanitizer) {
      int nr = seccomp_syscall_resolve_name(name);
      if (nr == __NR_SCMP_ERROR) continue;
      if ((rc = seccomp_rule_add(ctx, SCMP_ACT_ALLOW, nr, 0)) < 0) return seccomp_error(name, rc);
    }
    // A thread sharing our memory (the scan's helper), never a new process.
    if ((rc = seccomp_rule_add(ctx, SCMP_ACT_ALLOW, SCMP_SYS(clone), 1,
                               SCMP_A0(SCMP_CMP_MASKED_EQ, CLONE_VM | CLONE_UNTRACED, CLONE_VM | CLONE_UNTRACED))) < 0)
      return seccomp_error("clone", rc);
  }
  // No new executable memory: a parser bug cannot become injected code.
  for (const char* name : {"mmap", "mprotect"}) {
    int nr = seccomp_syscall_resolve_name(name);
    if (nr == __NR_SCMP_ERROR) continue;
    if ((rc = seccomp_rule_add(ctx, SCMP_ACT_ALLOW, nr, 1, SCMP_A2(SCMP_CMP_MASKED_EQ, PROT_EXEC, 0))) < 0)
      return seccomp_error(name, rc);
  }
  // syslog's socket, nothing that reaches a network.
  if ((rc = seccomp_rule_add(ctx, SCMP_ACT_ALLOW, SCMP_SYS(socket), 1, SCMP_A0(SCMP_CMP_EQ, AF_UNIX))) < 0)
    return seccomp_error("socket", rc);
  // isatty() from stdio, nothing else through ioctl.
  if ((rc = seccomp_rule_add(ctx, SCMP_ACT_ALLOW, SCMP_SYS(ioctl), 1, SCMP_A1(SCMP_CMP_EQ, TCGETS))) < 0)
    return seccomp_error("ioctl", rc);
  // abort() signals itself; no other process can be signalled (pidfd_send_signal is for the probe).
  if ((rc = seccomp_rule_add(ctx, SCMP_ACT_ALLOW, SCMP_SYS(tgkill), 1,
                             SCMP_A0(SCMP_CMP_EQ, static_cast<scmp_datum_t>(tgkill_pid)))) < 0)
    return seccomp_error("tgkill", rc);
  return "";
}

}  // namespace

std::string build_sandbox_filter(uint32_t tgkill_pid, bool leak_sanitizer, scmp_filter_ctx* out) {
  scmp_filter_ctx ctx = seccomp_init(SCMP_ACT_ERRNO(kSandboxDeniedErrno));
  if (!ctx) return "seccomp_init failed";
  // A binary tree of system call numbers, not libseccomp's default linear chain: the kernel runs
  // the filter for every system call number when it is attached (to build its cache of constant
  // results) and for each call after; a chain of ~90 comparisons made attaching it cost ~0.2 ms.
  int rc = seccomp_attr_set(ctx, SCMP_FLTATR_CTL_OPTIMIZE, 2);
  std::string err = rc < 0 ? seccomp_error("SCMP_FLTATR_CTL_OPTIMIZE", rc) : add_rules(ctx, tgkill_pid, leak_sanitizer);
  if (!err.empty()) {
    seccomp_release(ctx);
    return err;
  }
  *out = ctx;
  return "";
}

std::string export_libseccomp_filter(uint32_t tgkill_pid, bool leak_sanitizer, std::vector<unsigned char>* bytes) {
  scmp_filter_ctx ctx = nullptr;
  std::string err = build_sandbox_filter(tgkill_pid, leak_sanitizer, &ctx);
  if (!err.empty()) return err;
  std::FILE* f = std::tmpfile();
  if (!f) {
    seccomp_release(ctx);
    return std::string("tmpfile: ") + std::strerror(errno);
  }
  int rc = seccomp_export_bpf(ctx, ::fileno(f));
  seccomp_release(ctx);
  if (rc < 0) {
    std::fclose(f);
    return seccomp_error("seccomp_export_bpf", rc);
  }
  std::rewind(f);
  bytes->clear();
  unsigned char buf[4096];
  size_t n;
  while ((n = std::fread(buf, 1, sizeof buf, f)) > 0) bytes->insert(bytes->end(), buf, buf + n);
  std::fclose(f);
  return "";
}

std::string export_sandbox_filter(uint32_t tgkill_pid, bool leak_sanitizer, std::vector<unsigned char>* bytes) {
  std::vector<unsigned char> program;
  std::string err = export_libseccomp_filter(tgkill_pid, leak_sanitizer, &program);
  if (!err.empty()) return err;
  const sock_filter load_ip = BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, instruction_pointer));
  const auto* first = reinterpret_cast<const unsigned char*>(&load_ip);
  bytes->assign(first, first + sizeof load_ip);
  bytes->insert(bytes->end(), program.begin(), program.end());
  return "";
}

}  // namespace gnh
