#include "host/driver/nvml_probe_runner.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>

namespace gnh {

std::string probe_beside_this_program() {
  char buf[4096];
  ssize_t n = ::readlink("/proc/self/exe", buf, sizeof buf - 1);
  if (n <= 0) return "/usr/bin/gpu-numa-nvml-probe";
  std::string self(buf, static_cast<size_t>(n));
  return self.substr(0, self.rfind('/') + 1) + "gpu-numa-nvml-probe";
}

ProbeRun run_nvml_probe(const std::string& path, const std::vector<std::string>& args, int timeout_ms,
                        size_t max_output) {
  ProbeRun run;
  if (path.empty() || path.front() != '/') {
    run.error = "the probe '" + path + "' is not an absolute path";
    return run;
  }
  int fds[2];
  if (::pipe2(fds, O_CLOEXEC) != 0) {
    run.error = std::string("pipe: ") + std::strerror(errno);
    return run;
  }
  std::vector<std::string> argv_text = {path};
  argv_text.insert(argv_text.end(), args.begin(), args.end());
  std::vector<char*> argv;
  for (auto& a : argv_text) argv.push_back(a.data());
  argv.push_back(nullptr);
  // Fixed: nothing of the caller's environment (LD_PRELOAD, LD_LIBRARY_PATH) reaches the loader.
  char env_path[] = "PATH=/usr/sbin:/usr/bin:/sbin:/bin";
  char env_lang[] = "LC_ALL=C";
  char* envp[] = {env_path, env_lang, nullptr};
  pid_t pid = ::fork();
  if (pid < 0) {
    run.error = std::string("fork: ") + std::strerror(errno);
    ::close(fds[0]);
    ::close(fds[1]);
    return run;
  }
  if (pid == 0) {
    int null = ::open("/dev/null", O_RDONLY | O_CLOEXEC);
    if (null >= 0) ::dup2(null, 0);
    ::dup2(fds[1], 1);
    // `topology --follow` blocks SIGTERM to take it in its wait: the probe must still die of it.
    sigset_t none;
    sigemptyset(&none);
    ::sigprocmask(SIG_SETMASK, &none, nullptr);
    ::execve(path.c_str(), argv.data(), envp);
    const char* msg = "gpu-numa-hook: cannot execute the NVML probe\n";
    (void)!::write(2, msg, std::strlen(msg));
    ::_exit(127);
  }
  ::close(fds[1]);
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(timeout_ms);
  char buf[8192];
  while (true) {
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now()).count();
    if (left <= 0) {
      run.timed_out = true;
      break;
    }
    pollfd p{fds[0], POLLIN, 0};
    int r = ::poll(&p, 1, static_cast<int>(left));
    if (r < 0 && errno == EINTR) continue;
    if (r == 0) continue;  // the deadline is checked above
    ssize_t n = ::read(fds[0], buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    run.out.append(buf, static_cast<size_t>(n));
    if (run.out.size() > max_output) {
      run.error = "the probe wrote more than " + std::to_string(max_output) + " bytes";
      break;
    }
  }
  ::close(fds[0]);
  if (run.timed_out || !run.error.empty()) ::kill(pid, SIGKILL);
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  run.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  return run;
}

}  // namespace gnh
