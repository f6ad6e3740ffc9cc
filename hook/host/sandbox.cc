#include "host/sandbox.h"

#include <fcntl.h>
#include <linux/capability.h>
#include <sched.h>
#include <sys/capability.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <termios.h>
#include <unistd.h>

#include <seccomp.h>

#include <cerrno>
#include <cstring>

namespace gnh {

namespace {

// CAP_DAC_OVERRIDE: cgroup directories delegated to another owner (systemd Delegate=, a chowned
// /docker), bundles and lock/log directories not owned by root. It also covers reading and
// searching, so CAP_DAC_READ_SEARCH is not kept (its extra, open_by_handle_at, is not wanted).
// CAP_KILL: pidfd_send_signal(pid, 0) checks permission even for signal 0; a container in a user
// namespace runs as another uid, and without it "is it still alive?" would read as "it exited".
// Not kept, though probed: CAP_SYS_PTRACE (only /proc mounted hidepid=2 with a gid root lacks hides
// /proc/<pid>/cgroup; worth less than what it grants), CAP_SYS_ADMIN (cpuset writes need none).
constexpr cap_value_t kKeptCaps[] = {CAP_DAC_OVERRIDE, CAP_KILL};

bool is_kept(cap_value_t c) {
  for (cap_value_t k : kKeptCaps)
    if (k == c) return true;
  return false;
}

std::string cap_name(cap_value_t c) {
  char* n = cap_to_name(c);
  std::string s = n ? n : std::to_string(c);
  cap_free(n);
  return s;
}

// Everything the hook still does after start-up, grouped by why. Names, not numbers: a name this
// architecture lacks is skipped.
constexpr const char* kAllowed[] = {
    // reading driver files, /proc, /sys, config.json; writing cpuset.mems; the lock file
    "read", "pread64", "readv", "write", "writev", "pwrite64", "openat", "openat2", "open", "close",
    "lseek", "fstat", "newfstatat", "stat", "lstat", "statx", "getdents", "getdents64", "fcntl",
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
    // syslog(3) when [log] syslog = true: a datagram to /dev/log (AF_UNIX only, see below)
    "connect", "sendto", "sendmsg",
    // identity for log lines, locks and futexes of the C/C++ runtime
    "getpid", "gettid", "getuid", "geteuid", "getgid", "getegid", "futex", "sched_yield",
    "getrandom", "exit", "exit_group",
    // harmless, and what the sanitizer runtimes of the test builds use on an error path: an
    // alternate signal stack when an exception is thrown, a pipe to probe whether memory is readable
    "sigaltstack", "pipe", "pipe2",
};

#if defined(__SANITIZE_ADDRESS__)
#define GNH_ASAN_BUILD 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define GNH_ASAN_BUILD 1
#endif
#endif

#ifdef GNH_ASAN_BUILD
// Test builds with AddressSanitizer only (tests/sanitize): LeakSanitizer's end-of-run scan stops
// the world from a helper thread that ptrace-attaches to us. Never in a production build.
constexpr const char* kAllowedForLeakSanitizer[] = {"ptrace", "prctl", "wait4", "waitid", "getppid",
                                                    "sched_getaffinity"};
#endif

std::string seccomp_error(const char* what, int rc) { return std::string(what) + ": " + std::strerror(-rc); }

std::string apply_seccomp() {
  scmp_filter_ctx ctx = seccomp_init(SCMP_ACT_ERRNO(kSandboxDeniedErrno));
  if (!ctx) return "seccomp_init failed";
  struct Guard {
    scmp_filter_ctx c;
    ~Guard() { seccomp_release(c); }
  } guard{ctx};
  int rc = 0;
  for (const char* name : kAllowed) {
    int nr = seccomp_syscall_resolve_name(name);
    if (nr == __NR_SCMP_ERROR) continue;
    if ((rc = seccomp_rule_add(ctx, SCMP_ACT_ALLOW, nr, 0)) < 0) return seccomp_error(name, rc);
  }
#ifdef GNH_ASAN_BUILD
  for (const char* name : kAllowedForLeakSanitizer) {
    int nr = seccomp_syscall_resolve_name(name);
    if (nr == __NR_SCMP_ERROR) continue;
    if ((rc = seccomp_rule_add(ctx, SCMP_ACT_ALLOW, nr, 0)) < 0) return seccomp_error(name, rc);
  }
  // A thread sharing our memory (the scan's helper), never a new process.
  if ((rc = seccomp_rule_add(ctx, SCMP_ACT_ALLOW, SCMP_SYS(clone), 1,
                             SCMP_A0(SCMP_CMP_MASKED_EQ, CLONE_VM | CLONE_UNTRACED, CLONE_VM | CLONE_UNTRACED))) < 0)
    return seccomp_error("clone", rc);
#endif
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
                             SCMP_A0(SCMP_CMP_EQ, static_cast<scmp_datum_t>(::getpid())))) < 0)
    return seccomp_error("tgkill", rc);
  if ((rc = seccomp_load(ctx)) < 0) return seccomp_error("seccomp_load", rc);
  return "";
}

// Drops every capability not in kKeptCaps from the bounding, inheritable, ambient, permitted and
// effective sets. Keeps only those the process already had (a non-root test run has none).
std::string drop_capabilities() {
  std::string note;
  cap_t now = cap_get_proc();
  if (!now) return std::string("cap_get_proc: ") + std::strerror(errno);
  cap_flag_value_t setpcap = CAP_CLEAR;
  cap_get_flag(now, CAP_SETPCAP, CAP_EFFECTIVE, &setpcap);
  // The bounding set needs CAP_SETPCAP, so it goes first; with no_new_privs and no execve it only
  // matters as a second line.
  if (setpcap == CAP_SET) {
    for (cap_value_t c = 0; c < cap_max_bits(); ++c)
      if (!is_kept(c) && CAP_IS_SUPPORTED(c) && cap_drop_bound(c) != 0 && note.empty())
        note = "cannot drop " + cap_name(c) + " from the bounding set: " + std::strerror(errno);
  }
  cap_reset_ambient();
  cap_t want = cap_init();
  for (cap_value_t c : kKeptCaps) {
    cap_flag_value_t had = CAP_CLEAR;
    cap_get_flag(now, c, CAP_PERMITTED, &had);
    if (had != CAP_SET) continue;
    cap_set_flag(want, CAP_PERMITTED, 1, &c, CAP_SET);
    cap_set_flag(want, CAP_EFFECTIVE, 1, &c, CAP_SET);
  }
  if (cap_set_proc(want) != 0 && note.empty()) note = std::string("cap_set_proc: ") + std::strerror(errno);
  cap_free(want);
  cap_free(now);
  return note;
}

}  // namespace

std::vector<std::string> sandbox_kept_capabilities() {
  std::vector<std::string> out;
  for (cap_value_t c : kKeptCaps) out.push_back(cap_name(c));
  return out;
}

std::string enter_hook_sandbox() {
  std::string notes;
  auto note = [&](const std::string& n) {
    if (!n.empty()) notes += (notes.empty() ? "" : "; ") + n;
  };
  // First: nothing we could still exec (nothing, once seccomp is on) may gain privileges.
  if (::prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0) note(std::string("no_new_privs: ") + std::strerror(errno));
  note(drop_capabilities());
  note(apply_seccomp());
  return notes;
}

}  // namespace gnh
