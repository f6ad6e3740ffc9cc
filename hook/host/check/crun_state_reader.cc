#include "host/check/crun_state_reader.h"

#include <cerrno>

#include "base/error.h"
#include "runtime/crun_status.h"

namespace gnh {

std::optional<RunningContainer> read_crun_container(const HostFs& fs, const std::string& root, const std::string& id,
                                                    const std::string& cpuset_mount, const Config& config) {
  if (id.empty() || id.find('/') != std::string::npos || id == "." || id == "..") return std::nullopt;
  const std::string file = root + "/" + id + "/status";
  auto text = fs.read(file, 4 * 1024 * 1024);
  if (!text) return std::nullopt;
  CrunStatus s = parse_crun_status(*text);
  if (!s.cgroup_path) fail("check: " + file + " names no cgroup", ENOENT);
  if (!s.bundle) fail("check: " + file + " names no bundle", ENOENT);
  // The v2 root's "/" joined to "/a/b" would give "//a/b": the cgroup path carries the slash.
  std::string mount = cpuset_mount == "/" ? "" : cpuset_mount;
  return read_container_at(fs, mount + *s.cgroup_path, *s.bundle, config, "check");
}

}  // namespace gnh
