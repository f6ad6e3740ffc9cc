// `check`'s reader of crun's containers: <root>/<id>/status (tests/fixtures/crun-1.8.1), whose
// cgroup path is relative to the hierarchy, joined here to the cpuset mount `check` walks.
#pragma once

#include <optional>
#include <string>

#include "config/config.h"
#include "host/fs/host_fs.h"
#include "host/runtime/runtime_update.h"

namespace gnh {

// nullopt when <root>/<id> holds no crun status (a runc container, or gone). A Failure naming the
// file when the status names no cgroup or no bundle, or what it leads to cannot be read.
std::optional<RunningContainer> read_crun_container(const HostFs& fs, const std::string& root, const std::string& id,
                                                    const std::string& cpuset_mount, const Config& config);

}  // namespace gnh
