#include "host/oci/next_hook.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <thread>

#include "base/error.h"

namespace gnh {

namespace {

// Feeds stdin_data to the child without blocking forever on a child that never reads.
void feed(int fd, const std::string& data, std::chrono::steady_clock::time_point end) {
  size_t off = 0;
  while (off < data.size()) {
    struct pollfd p = {fd, POLLOUT, 0};
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(end - std::chrono::steady_clock::now()).count();
    if (left <= 0 || ::poll(&p, 1, static_cast<int>(left)) <= 0) return;
    ssize_t n = ::write(fd, data.data() + off, data.size() - off);
    if (n < 0) {
      if (errno == EINTR || errno == EAGAIN) continue;
      return;  // EPIPE: it stopped reading; its exit status tells the rest
    }
    off += static_cast<size_t>(n);
  }
}

}  // namespace

NextHookResult run_next_hook(const std::string& path, const std::vector<std::string>& args,
                             const std::string& stdin_data, int timeout_ms) {
  NextHookResult r;
  if (::access(path.c_str(), X_OK) != 0) {
    r.error = "next hook " + path + " cannot be run: " + errno_text(errno);
    return r;
  }
  int pipefd[2];
  if (::pipe2(pipefd, O_CLOEXEC) != 0) {
    r.error = "pipe: " + errno_text(errno);
    return r;
  }
  std::vector<char*> argv;
  argv.push_back(const_cast<char*>(path.c_str()));
  for (const auto& a : args) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);

  // Ignore SIGPIPE around the write so a child that exits early cannot kill us.
  struct sigaction ign = {}, old = {};
  ign.sa_handler = SIG_IGN;
  ::sigaction(SIGPIPE, &ign, &old);

  pid_t pid = ::fork();
  if (pid < 0) {
    r.error = "fork: " + errno_text(errno);
    ::close(pipefd[0]);
    ::close(pipefd[1]);
    ::sigaction(SIGPIPE, &old, nullptr);
    return r;
  }
  if (pid == 0) {
    ::sigaction(SIGPIPE, &old, nullptr);
    ::dup2(pipefd[0], 0);
    ::execv(path.c_str(), argv.data());
    _exit(127);
  }
  ::close(pipefd[0]);
  ::fcntl(pipefd[1], F_SETFL, O_NONBLOCK);
  auto end = std::chrono::steady_clock::now() + std::chrono::milliseconds(timeout_ms);
  feed(pipefd[1], stdin_data, end);
  ::close(pipefd[1]);
  ::sigaction(SIGPIPE, &old, nullptr);

  int pidfd = static_cast<int>(::syscall(SYS_pidfd_open, pid, 0));
  int status = 0;
  while (true) {
    pid_t w = ::waitpid(pid, &status, WNOHANG);
    if (w == pid) break;
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(end - std::chrono::steady_clock::now()).count();
    if (left <= 0) {
      ::kill(pid, SIGKILL);
      ::waitpid(pid, &status, 0);
      r.timed_out = true;
      break;
    }
    if (pidfd >= 0) {
      struct pollfd p = {pidfd, POLLIN, 0};
      ::poll(&p, 1, static_cast<int>(left));
    } else {
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
  }
  if (pidfd >= 0) ::close(pidfd);
  if (r.timed_out) r.exit_code = 1;
  else if (WIFEXITED(status)) r.exit_code = WEXITSTATUS(status);
  else if (WIFSIGNALED(status)) r.exit_code = 128 + WTERMSIG(status);
  if (!r.timed_out && r.exit_code == 127) r.error = "next hook " + path + " could not be executed";
  return r;
}

}  // namespace gnh
