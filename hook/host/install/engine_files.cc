#include "host/install/engine_files.h"

#include <fcntl.h>
#include <glob.h>
#include <poll.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <ctime>

#include "host/fs/host_fs.h"
#include "host/runtime/next_runtime.h"
#include "install/containerd_config.h"

namespace gnh {

std::optional<std::string> HostConfigReader::read(const std::string& path) const {
  return HostFs("/").read(path, 4 * 1024 * 1024);
}

bool HostConfigReader::exists(const std::string& path) const {
  struct stat st {};
  return ::stat(path.c_str(), &st) == 0;
}

std::vector<std::string> HostConfigReader::glob(const std::string& pattern) const {
  std::vector<std::string> out;
  glob_t g{};
  if (::glob(pattern.c_str(), 0, nullptr, &g) == 0)
    for (size_t i = 0; i < g.gl_pathc; ++i) out.emplace_back(g.gl_pathv[i]);
  ::globfree(&g);
  return out;  // glob(3) sorts
}

namespace {

// name in each directory of the shim's fixed PATH, in order (as next_runtime.cc looks it up).
std::vector<std::string> paths_in_search_path(const std::string& name) {
  std::vector<std::string> out;
  const std::string dirs = kRuntimeSearchPath;
  for (size_t start = 0; start <= dirs.size();) {
    size_t colon = dirs.find(':', start);
    if (colon == std::string::npos) colon = dirs.size();
    out.push_back(dirs.substr(start, colon - start) + "/" + name);
    start = colon + 1;
  }
  return out;
}

// The first line of a program's stdout (stderr discarded), "" when it cannot run or takes too long.
std::string first_line_of(const std::string& path, const std::vector<std::string>& args) {
  int fds[2];
  if (::pipe2(fds, O_CLOEXEC) != 0) return "";
  pid_t pid = ::fork();
  if (pid < 0) {
    ::close(fds[0]);
    ::close(fds[1]);
    return "";
  }
  if (pid == 0) {
    ::dup2(fds[1], 1);
    int null = ::open("/dev/null", O_WRONLY);
    if (null >= 0) ::dup2(null, 2);
    std::vector<char*> argv;
    argv.push_back(const_cast<char*>(path.c_str()));
    for (const auto& a : args) argv.push_back(const_cast<char*>(a.c_str()));
    argv.push_back(nullptr);
    ::execv(path.c_str(), argv.data());
    ::_exit(127);
  }
  ::close(fds[1]);
  std::string out;
  // Only a bound against a binary that never answers: `containerd --version` takes milliseconds,
  // but on a loaded node a 50 MB Go binary took more than 10 s to start, and an unknown release
  // makes install guess the layout from the file alone. Install is not on a container's path.
  const time_t deadline = ::time(nullptr) + 60;
  char buf[512];
  for (;;) {
    pollfd p{fds[0], POLLIN, 0};
    if (::poll(&p, 1, 1000) < 0 && errno != EINTR) break;
    if (::time(nullptr) > deadline) {
      ::kill(pid, SIGKILL);
      out.clear();
      break;
    }
    if (!(p.revents & (POLLIN | POLLHUP))) continue;
    ssize_t n = ::read(fds[0], buf, sizeof buf);
    if (n <= 0) break;
    out.append(buf, static_cast<size_t>(n));
    if (out.size() > 4096) break;
  }
  ::close(fds[0]);
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) return "";
  return out.substr(0, out.find('\n'));
}

}  // namespace

ContainerdRelease installed_containerd() {
  for (const std::string& path : paths_in_search_path("containerd")) {
    struct stat st {};
    if (::stat(path.c_str(), &st) != 0 || !S_ISREG(st.st_mode) || ::access(path.c_str(), X_OK) != 0) continue;
    return containerd_release_from(first_line_of(path, {"--version"}), "`" + path + " --version`");
  }
  return {};
}

std::string absolute_runtime(const std::string& name, const std::string& root) {
  if (name.empty() || name.front() == '/') return name;
  const std::string prefix = root == "/" ? "" : root;
  for (const std::string& path : paths_in_search_path(name)) {
    struct stat st {};
    if (::stat((prefix + path).c_str(), &st) == 0 && S_ISREG(st.st_mode) && (st.st_mode & 0111)) return path;
  }
  return name;
}

}  // namespace gnh
