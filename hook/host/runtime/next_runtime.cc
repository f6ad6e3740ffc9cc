#include "host/runtime/next_runtime.h"

#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>

#include "base/error.h"

namespace gnh {

namespace {

std::vector<std::string> paths_for(const std::string& candidate) {
  if (candidate.front() == '/') return {candidate};
  std::vector<std::string> out;
  std::string dirs = kRuntimeSearchPath;
  size_t start = 0;
  while (start <= dirs.size()) {
    size_t colon = dirs.find(':', start);
    if (colon == std::string::npos) colon = dirs.size();
    out.push_back(dirs.substr(start, colon - start) + "/" + candidate);
    start = colon + 1;
  }
  return out;
}

}  // namespace

std::optional<size_t> chained_index(const char* value) {
  if (!value || !*value) return std::nullopt;
  size_t n = 0;
  for (const char* p = value; *p; ++p) {
    if (*p < '0' || *p > '9' || p - value >= 4) return std::nullopt;
    n = n * 10 + static_cast<size_t>(*p - '0');
  }
  return n;
}

NextRuntime find_next_runtime(const std::vector<std::string>& candidates, size_t from,
                              std::optional<size_t> reentered_from) {
  struct stat self {};
  if (::stat("/proc/self/exe", &self) != 0) fail_errno("cannot stat /proc/self/exe", errno);
  std::string list;
  for (size_t i = from; i < candidates.size(); ++i) {
    const std::string& c = candidates[i];
    list += (list.empty() ? "" : ", ") + c;
    for (const auto& path : paths_for(c)) {
      struct stat st {};
      if (::stat(path.c_str(), &st) != 0 || !S_ISREG(st.st_mode) || ::access(path.c_str(), X_OK) != 0) continue;
      if (st.st_dev == self.st_dev && st.st_ino == self.st_ino)
        fail("runtime.next: '" + c + "' (" + path + ") is gpu-numa-runtime itself; name the real runtime (runc, crun, nvidia-container-runtime)", ELOOP);
      return {path, i};
    }
  }
  if (reentered_from && *reentered_from < candidates.size())
    fail("runtime.next: '" + candidates[*reentered_from] + "' ran gpu-numa-runtime back as its own runtime, and no entry after it" +
             (list.empty() ? std::string(" is named") : " (" + list + ") is an executable file") +
             ": add runc after it, as install does ([runtime] next = [\"" + candidates[*reentered_from] + "\", \"runc\", \"crun\"])",
         ELOOP);
  fail("runtime.next: none of [" + list + "] is an executable file (names are looked up in " +
           std::string(kRuntimeSearchPath) + ")", ENOENT);
}

void exec_runtime(const NextRuntime& next, const std::vector<std::string>& argv) {
  std::vector<char*> args;
  args.push_back(const_cast<char*>(next.path.c_str()));
  for (size_t i = 1; i < argv.size(); ++i) args.push_back(const_cast<char*>(argv[i].c_str()));
  args.push_back(nullptr);
  if (::setenv(kChainedEnv, std::to_string(next.index).c_str(), 1) != 0) fail_errno("cannot set " + std::string(kChainedEnv), errno);
  ::execv(next.path.c_str(), args.data());
  fail_errno("cannot execute " + next.path, errno);
}

}  // namespace gnh
