#include "plugin/hook_binary.h"

#include <sys/stat.h>

#include <cerrno>
#include <cstdio>
#include <cstring>

namespace gnh::nri {

HookBinary probe_hook_binary(const std::string& path) {
  HookBinary h;
  h.path = path;
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) {
    h.problem = std::strerror(errno);
  } else if (!S_ISREG(st.st_mode)) {
    h.problem = "not a regular file";
  } else if ((st.st_mode & 0111) == 0) {
    // Not access(X_OK): that answers for our uid and capabilities, and runc, as root, runs a file
    // with any execute bit.
    char mode[16];
    std::snprintf(mode, sizeof(mode), "%04o", unsigned(st.st_mode & 07777));
    h.problem = std::string("not executable (mode ") + mode + ")";
  } else {
    h.usable = true;
  }
  return h;
}

}  // namespace gnh::nri
