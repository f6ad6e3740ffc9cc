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

#include <linux/filter.h>
#include <linux/seccomp.h>
#include <sys/syscall.h>

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

#if defined(__SANITIZE_ADDRESS__)
#define GNH_ASAN_BUILD 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define GNH_ASAN_BUILD 1
#endif
#endif

namespace generated {
#include "host/sandbox_filter.inc"
}  // namespace generated

// The allow-list (sandbox_rules.cc), compiled to BPF at build time: building it with libseccomp at
// every start cost about 0.3 ms of each container start (docs/BENCHMARKS.md). An AddressSanitizer
// test build gets the program with LeakSanitizer's extra rules.
#ifdef GNH_ASAN_BUILD
constexpr const auto& kFilter = generated::kSandboxFilterLeakSanitizer;
constexpr const auto& kFilterPidSlots = generated::kSandboxFilterLeakSanitizerPidSlots;
#else
constexpr const auto& kFilter = generated::kSandboxFilter;
constexpr const auto& kFilterPidSlots = generated::kSandboxFilterPidSlots;
#endif
constexpr size_t kFilterLen = sizeof kFilter / sizeof kFilter[0];

// The program for this process: tgkill's operand is our pid.
void filter_for_this_process(sock_filter (&prog)[kFilterLen]) {
  std::memcpy(prog, kFilter, sizeof kFilter);
  for (size_t slot : kFilterPidSlots) prog[slot].k = static_cast<uint32_t>(::getpid());
}

// seccomp(2) only, no prctl(PR_SET_SECCOMP) fallback: every kernel the hook supports has it, and
// under valgrind (bench/callgrind.sh), which does not implement seccomp(2), the call fails with
// ENOSYS instead of confining valgrind itself.
std::string apply_seccomp() {
  sock_filter prog[kFilterLen];
  filter_for_this_process(prog);
  sock_fprog fprog{static_cast<unsigned short>(kFilterLen), prog};
  if (::syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0, &fprog) != 0)
    return std::string("seccomp: ") + std::strerror(errno);
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

std::vector<unsigned char> sandbox_filter_program() {
  sock_filter prog[kFilterLen];
  filter_for_this_process(prog);
  const auto* b = reinterpret_cast<const unsigned char*>(prog);
  return std::vector<unsigned char>(b, b + sizeof prog);
}

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
