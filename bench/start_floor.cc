// start_floor: the kernel work of one hook start on a fixture host, and nothing else. noop_hook is
// the floor of any hook; this is the floor of a hook that reaches our verdicts with our guarantees,
// so the benchmark can say how much of a start is the work itself and how much is our program.
//
//   start_floor fast|check HOST_ROOT < STATE
//
// It makes the system calls the hook makes on that path (strace the hook to compare), in the same
// order, and no others:
//   both:  read the config file; open the log; read the state to EOF; arm the watchdog timer; read
//          the bundle's config.json (the bundle named in the state, under HOST_ROOT);
//   fast:  (config.json names no GPU) disarm the timer, append a log line;
//   check: no_new_privs, the capability drop, the hook's own seccomp program (the same generated
//          bytes the hook installs); the driver's params; the GPU directory listed; each GPU's
//          information, then each GPU's numa_status; /proc/<pid>/cgroup, mountinfo; the cpuset
//          hierarchy opened once (O_PATH) and the container's cpuset.mems, cpuset.effective_mems and
//          the root's cpuset.mems read beneath it (openat2, RESOLVE_BENEATH); has_memory, possible;
//          disarm the timer, append a log line.
// Parsing is a string search and the mode is the caller's: the floor decides nothing, it only pays
// for the reading.
// Static and libc only, as noop_hook_static.
#include <fcntl.h>
#include <linux/capability.h>
#include <linux/filter.h>
#include <linux/openat2.h>
#include <linux/seccomp.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace gnh::generated {
#include "host/sandbox_filter.inc"
}  // namespace gnh::generated

namespace {

char g_state[64 * 1024];
char g_file[64 * 1024];
char g_path[4096];

// Reads fd to EOF into g_file, or once for a single-record kernel file (as the hook does).
size_t read_all(int fd, bool single_record) {
  size_t n = 0;
  while (n < sizeof g_file) {
    ssize_t r = read(fd, g_file + n, sizeof g_file - n > 4096 ? 4096 : sizeof g_file - n);
    if (r <= 0) break;
    n += static_cast<size_t>(r);
    if (single_record && r < 4096) break;
  }
  return n;
}

size_t read_file_at(int dir, const char* path, bool single_record) {
  int fd = openat(dir, path, O_RDONLY | O_NOCTTY | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) return 0;
  size_t n = read_all(fd, single_record);
  close(fd);
  return n;
}

const char* under(const char* root, const char* path) {
  snprintf(g_path, sizeof g_path, "%s%s", root, path);
  return g_path;
}

// The value of "key": in a JSON text, as a string of digits or characters up to the next quote.
bool json_string(const char* text, const char* key, char* out, size_t size) {
  const char* p = strstr(text, key);
  if (!p) return false;
  p += strlen(key);
  size_t i = 0;
  while (*p && *p != '"' && *p != ',' && *p != '}' && i + 1 < size) out[i++] = *p++;
  out[i] = 0;
  return i > 0;
}

void on_alarm(int) { _exit(0); }

void arm(long seconds) {
  struct itimerval t = {};
  t.it_value.tv_sec = seconds;
  setitimer(ITIMER_REAL, &t, nullptr);
}

void log_line(int log) {
  static const char line[] = "2026-01-01T00:00:00.000000Z info start_floor action=allow\n";
  if (log >= 0) {
    (void)!write(log, line, sizeof line - 1);
    close(log);
  }
}

void sandbox() {
  prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0);
  __user_cap_header_struct hdr{_LINUX_CAPABILITY_VERSION_3, 0};
  __user_cap_data_struct caps[_LINUX_CAPABILITY_U32S_3] = {};
  syscall(SYS_capget, &hdr, caps);
  prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0);
  __user_cap_data_struct want[_LINUX_CAPABILITY_U32S_3] = {};
  want[0].permitted = want[0].effective = (1u << CAP_DAC_OVERRIDE) | (1u << CAP_KILL);
  hdr = {_LINUX_CAPABILITY_VERSION_3, 0};
  syscall(SYS_capset, &hdr, want);
  constexpr size_t len = sizeof gnh::generated::kSandboxFilter / sizeof gnh::generated::kSandboxFilter[0];
  static sock_filter prog[len];
  memcpy(prog, gnh::generated::kSandboxFilter, sizeof prog);
  for (size_t slot : gnh::generated::kSandboxFilterPidSlots) prog[slot].k = static_cast<uint32_t>(getpid());
  sock_fprog fprog{static_cast<unsigned short>(len), prog};
  if (syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0, &fprog) != 0) _exit(3);
}

int open_beneath(int dir, const char* rel) {
  struct open_how how = {};
  how.flags = O_RDONLY | O_NOCTTY | O_NONBLOCK | O_CLOEXEC;
  how.resolve = RESOLVE_BENEATH | RESOLVE_NO_XDEV | RESOLVE_NO_MAGICLINKS | RESOLVE_NO_SYMLINKS;
  return static_cast<int>(syscall(SYS_openat2, dir, rel, &how, sizeof how));
}

void read_beneath(int dir, const char* rel) {
  int fd = open_beneath(dir, rel);
  if (fd < 0) return;
  read_all(fd, true);
  close(fd);
}

void check(const char* root, const char* pid) {
  sandbox();
  read_file_at(AT_FDCWD, under(root, "/proc/driver/nvidia/params"), true);
  int gpus = open(under(root, "/proc/driver/nvidia/gpus"), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (gpus < 0) _exit(4);
  alignas(8) static char dents[32 * 1024];
  static char names[64][64];
  size_t count = 0;
  lseek(gpus, 0, SEEK_SET);
  for (long n; (n = syscall(SYS_getdents64, gpus, dents, sizeof dents)) > 0;) {
    for (long off = 0; off < n;) {
      const char* name = dents + off + 19;  // d_ino 8, d_off 8, d_reclen 2, d_type 1
      off += *reinterpret_cast<unsigned short*>(dents + off + 16);
      if (name[0] != '.' && count < 64) snprintf(names[count++], sizeof names[0], "%s", name);
    }
  }
  static const char* const files[] = {"information", "numa_status"};
  for (const char* file : files)
    for (size_t i = 0; i < count; ++i) {
      char rel[128];
      snprintf(rel, sizeof rel, "%s/%s", names[i], file);
      read_file_at(gpus, rel, true);
    }
  snprintf(g_path, sizeof g_path, "%s/proc/%s/cgroup", root, pid);
  size_t n = read_file_at(AT_FDCWD, g_path, true);
  // v1 "N:cpuset:/path" line: the container's cgroup, relative to the hierarchy's root.
  char cgroup[512] = "";
  g_file[n] = 0;
  if (const char* c = strstr(g_file, ":cpuset:/")) {
    c += 9;
    size_t i = 0;
    while (c[i] && c[i] != '\n' && i + 1 < sizeof cgroup) cgroup[i] = c[i], ++i;
    cgroup[i] = 0;
  }
  read_file_at(AT_FDCWD, under(root, "/proc/self/mountinfo"), false);
  int hierarchy = open(under(root, "/sys/fs/cgroup/cpuset"), O_RDONLY | O_CLOEXEC | O_PATH | O_DIRECTORY);
  char rel[600];
  snprintf(rel, sizeof rel, "%s/cpuset.mems", cgroup);
  read_beneath(hierarchy, rel);
  snprintf(rel, sizeof rel, "%s/cpuset.effective_mems", cgroup);
  read_beneath(hierarchy, rel);
  read_beneath(hierarchy, "cpuset.mems");
  close(hierarchy);
  read_file_at(AT_FDCWD, under(root, "/sys/devices/system/node/has_memory"), true);
  read_file_at(AT_FDCWD, under(root, "/sys/devices/system/node/possible"), true);
  close(gpus);
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 3 || (strcmp(argv[1], "fast") != 0 && strcmp(argv[1], "check") != 0)) {
    fprintf(stderr, "usage: start_floor fast|check HOST_ROOT < STATE\n");
    return 2;
  }
  const char* root = argv[2];
  read_file_at(AT_FDCWD, under(root, "/etc/gpu-numa-hook/config.toml"), false);
  int log = open(under(root, "/var/log/gpu-numa-hook.log"), O_WRONLY | O_CREAT | O_NOCTTY | O_APPEND | O_CLOEXEC, 0640);
  size_t n = 0;
  for (ssize_t r; n + 1 < sizeof g_state && (r = read(0, g_state + n, sizeof g_state - 1 - n)) > 0;) n += static_cast<size_t>(r);
  g_state[n] = 0;
  signal(SIGALRM, on_alarm);
  arm(6);
  char bundle[1024], pid[32];
  if (!json_string(g_state, "\"bundle\":\"", bundle, sizeof bundle)) return 5;
  snprintf(g_path, sizeof g_path, "%s%s/config.json", root, bundle);
  n = read_file_at(AT_FDCWD, g_path, false);
  if (n == 0) return 6;
  if (strcmp(argv[1], "check") == 0) {
    if (!json_string(g_state, "\"pid\":", pid, sizeof pid)) return 6;
    check(root, pid);
  }
  arm(0);
  log_line(log);
  return 0;
}
