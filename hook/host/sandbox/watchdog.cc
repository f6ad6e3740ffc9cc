#include "host/sandbox/watchdog.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/time.h>
#include <unistd.h>

#include <cstring>

namespace gnh {

namespace {

struct Prepared {
  char log_path[1024];
  char log_line[2048];
  char stderr_line[2048];
  int exit_code;
};
Prepared g_prepared;

void copy_to(char* dst, size_t cap, const std::string& s) {
  size_t n = s.size() < cap - 1 ? s.size() : cap - 1;
  std::memcpy(dst, s.data(), n);
  dst[n] = '\0';
}

void write_all(int fd, const char* s) {
  size_t len = std::strlen(s);
  while (len > 0) {
    ssize_t n = ::write(fd, s, len);
    if (n <= 0) return;
    s += n;
    len -= static_cast<size_t>(n);
  }
}

void on_alarm(int) {
  if (g_prepared.log_path[0]) {
    int fd = ::open(g_prepared.log_path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0640);
    if (fd >= 0) {
      write_all(fd, g_prepared.log_line);
      ::close(fd);
    }
  }
  if (g_prepared.stderr_line[0]) write_all(2, g_prepared.stderr_line);
  _exit(g_prepared.exit_code);
}

}  // namespace

void arm_watchdog(int deadline_ms, const std::string& log_path, const std::string& log_line,
                  const std::string& stderr_line, int exit_code) {
  sigset_t block, old;
  sigemptyset(&block);
  sigaddset(&block, SIGALRM);
  ::sigprocmask(SIG_BLOCK, &block, &old);
  copy_to(g_prepared.log_path, sizeof g_prepared.log_path, log_path);
  copy_to(g_prepared.log_line, sizeof g_prepared.log_line, log_line + "\n");
  copy_to(g_prepared.stderr_line, sizeof g_prepared.stderr_line, stderr_line.empty() ? "" : stderr_line + "\n");
  g_prepared.exit_code = exit_code;
  struct sigaction sa = {};
  sa.sa_handler = on_alarm;
  ::sigaction(SIGALRM, &sa, nullptr);
  struct itimerval it = {};
  it.it_value.tv_sec = deadline_ms / 1000;
  it.it_value.tv_usec = (deadline_ms % 1000) * 1000;
  ::setitimer(ITIMER_REAL, &it, nullptr);
  ::sigprocmask(SIG_SETMASK, &old, nullptr);
}

void disarm_watchdog() {
  struct itimerval it = {};
  ::setitimer(ITIMER_REAL, &it, nullptr);
}

}  // namespace gnh
