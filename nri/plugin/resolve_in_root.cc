#include "plugin/resolve_in_root.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <deque>
#include <vector>

namespace gnh::nri {

ResolvedPath::ResolvedPath(ResolvedPath&& o) noexcept
    : error(o.error), host_path(std::move(o.host_path)), fd(o.fd), parent_fd(o.parent_fd), name(std::move(o.name)) {
  o.fd = o.parent_fd = -1;
}

ResolvedPath::~ResolvedPath() {
  if (fd >= 0) ::close(fd);
  if (parent_fd >= 0) ::close(parent_fd);
}

namespace {

void push_components(std::deque<std::string>* todo, const std::string& path) {
  std::deque<std::string> parts;
  size_t i = 0;
  while (i <= path.size()) {
    size_t j = path.find('/', i);
    if (j == std::string::npos) j = path.size();
    if (j > i) parts.push_back(path.substr(i, j - i));
    i = j + 1;
  }
  todo->insert(todo->begin(), parts.begin(), parts.end());
}

}  // namespace

ResolvedPath resolve_in_root(const std::string& root, const std::string& path) {
  ResolvedPath r;
  // One O_PATH descriptor per resolved level: ".." pops one, an absolute link goes back to [0].
  std::vector<int> fds;
  std::vector<std::string> names;
  auto close_from = [&](size_t keep) {
    while (fds.size() > keep) {
      ::close(fds.back());
      fds.pop_back();
      names.pop_back();
    }
  };
  int rfd = ::open(root.c_str(), O_PATH | O_DIRECTORY | O_CLOEXEC);
  if (rfd < 0) {
    r.error = errno;
    return r;
  }
  fds.push_back(rfd);
  names.emplace_back();
  std::deque<std::string> todo;
  push_components(&todo, path);
  int links = 0;
  while (!todo.empty()) {
    std::string c = std::move(todo.front());
    todo.pop_front();
    if (c == ".") continue;
    if (c == "..") {
      close_from(fds.size() > 1 ? fds.size() - 1 : 1);
      continue;
    }
    int fd = ::openat(fds.back(), c.c_str(), O_PATH | O_NOFOLLOW | O_CLOEXEC);
    struct stat st {};
    if (fd < 0 || ::fstat(fd, &st) != 0) {
      r.error = errno;
      if (fd >= 0) ::close(fd);
      break;
    }
    if (S_ISLNK(st.st_mode)) {
      char buf[4096];
      ssize_t n = ::readlinkat(fd, "", buf, sizeof(buf));
      ::close(fd);
      if (n < 0 || ++links > 40) {  // 40: the kernel's own limit on links in one lookup
        r.error = n < 0 ? errno : ELOOP;
        break;
      }
      std::string target(buf, size_t(n));
      if (!target.empty() && target[0] == '/') close_from(1);
      push_components(&todo, target);
      continue;
    }
    if (!todo.empty() && !S_ISDIR(st.st_mode)) {
      ::close(fd);
      r.error = ENOTDIR;
      break;
    }
    fds.push_back(fd);
    names.push_back(std::move(c));
  }
  if (r.error == 0) {
    for (size_t i = 1; i < names.size(); ++i) r.host_path += "/" + names[i];
    if (r.host_path.empty()) r.host_path = "/";
    r.fd = fds.back();
    fds.pop_back();
    r.name = names.back();
    if (!fds.empty() && r.fd != rfd) {
      r.parent_fd = fds.back();
      fds.pop_back();
    }
    names.clear();
  }
  for (int fd : fds) ::close(fd);
  return r;
}

}  // namespace gnh::nri
