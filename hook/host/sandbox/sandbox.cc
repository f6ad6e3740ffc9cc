#include "host/sandbox/sandbox.h"

#include <linux/capability.h>
#include <sys/prctl.h>
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
constexpr int kKeptCaps[] = {CAP_DAC_OVERRIDE, CAP_KILL};

bool is_kept(int c) {
  for (int k : kKeptCaps)
    if (k == c) return true;
  return false;
}

// Names as capabilities(7) and libcap spell them, by number; libcap is not linked: its
// per-capability probes (CAP_IS_SUPPORTED, cap_reset_ambient) were 87 prctl calls per start.
constexpr const char* kCapNames[] = {
    "cap_chown", "cap_dac_override", "cap_dac_read_search", "cap_fowner", "cap_fsetid", "cap_kill",
    "cap_setgid", "cap_setuid", "cap_setpcap", "cap_linux_immutable", "cap_net_bind_service",
    "cap_net_broadcast", "cap_net_admin", "cap_net_raw", "cap_ipc_lock", "cap_ipc_owner", "cap_sys_module",
    "cap_sys_rawio", "cap_sys_chroot", "cap_sys_ptrace", "cap_sys_pacct", "cap_sys_admin", "cap_sys_boot",
    "cap_sys_nice", "cap_sys_resource", "cap_sys_time", "cap_sys_tty_config", "cap_mknod", "cap_lease",
    "cap_audit_write", "cap_audit_control", "cap_setfcap", "cap_mac_override", "cap_mac_admin", "cap_syslog",
    "cap_wake_alarm", "cap_block_suspend", "cap_audit_read", "cap_perfmon", "cap_bpf", "cap_checkpoint_restore",
};

static_assert(sizeof kCapNames / sizeof kCapNames[0] == CAP_LAST_CAP + 1, "a capability without a name");

std::string cap_name(int c) {
  if (c >= 0 && static_cast<size_t>(c) < sizeof kCapNames / sizeof kCapNames[0]) return kCapNames[c];
  return std::to_string(c);
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
// every start cost about 0.3 ms of each container start (docs/internals/benchmarks.md). An AddressSanitizer
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

// Drops every capability not in kKeptCaps from the inheritable, ambient, permitted and effective
// sets, and from the bounding set when `bounding`. Keeps only those the process already had (a
// non-root test run has none). Raw capget/capset/prctl, no probes.
std::string drop_capabilities(bool bounding) {
  std::string note;
  __user_cap_header_struct hdr{_LINUX_CAPABILITY_VERSION_3, 0};
  __user_cap_data_struct now[_LINUX_CAPABILITY_U32S_3] = {};
  if (::syscall(SYS_capget, &hdr, now) != 0) return std::string("capget: ") + std::strerror(errno);
  auto has = [](const __user_cap_data_struct* d, int c, bool effective) {
    const __u32 word = effective ? d[CAP_TO_INDEX(c)].effective : d[CAP_TO_INDEX(c)].permitted;
    return (word & CAP_TO_MASK(c)) != 0;
  };
  // The bounding set needs CAP_SETPCAP, so it goes first. EINVAL: past the last capability this
  // kernel knows.
  if (bounding && has(now, CAP_SETPCAP, true)) {
    for (int c = 0; c < 64; ++c) {
      if (is_kept(c)) continue;
      if (::prctl(PR_CAPBSET_DROP, c, 0, 0, 0) != 0) {
        if (errno == EINVAL) break;
        if (note.empty()) note = "cannot drop " + cap_name(c) + " from the bounding set: " + std::strerror(errno);
      }
    }
  }
  (void)::prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0);  // EINVAL before Linux 4.3: none to clear
  __user_cap_data_struct want[_LINUX_CAPABILITY_U32S_3] = {};
  for (int c : kKeptCaps) {
    if (!has(now, c, false)) continue;
    want[CAP_TO_INDEX(c)].permitted |= CAP_TO_MASK(c);
    want[CAP_TO_INDEX(c)].effective |= CAP_TO_MASK(c);
  }
  hdr = {_LINUX_CAPABILITY_VERSION_3, 0};
  if (::syscall(SYS_capset, &hdr, want) != 0 && note.empty()) note = std::string("cap_set_proc: ") + std::strerror(errno);
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
  for (int c : kKeptCaps) out.push_back(cap_name(c));
  return out;
}

std::string enter_hook_sandbox() {
  std::string notes;
  auto note = [&](const std::string& n) {
    if (!n.empty()) notes += (notes.empty() ? "" : "; ") + n;
  };
  // First: nothing we could still exec (nothing, once seccomp is on) may gain privileges.
  const bool no_new_privs = ::prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) == 0;
  if (!no_new_privs) note(std::string("no_new_privs: ") + std::strerror(errno));
  // The bounding set only limits what an execve may grant, and under no_new_privs an execve grants
  // nothing (and seccomp forbids execve): emptying it would be 40 prctl calls, each a credential
  // commit, about 0.05 ms of every GPU start (docs/internals/benchmarks.md). It is the second line
  // only where no_new_privs could not be set.
  note(drop_capabilities(!no_new_privs));
  note(apply_seccomp());
  return notes;
}

}  // namespace gnh
