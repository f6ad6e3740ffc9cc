// `status`'s host side: every fact status judges (status/node_status.h), read beneath --host-root
// and never written: the engines' files and what install-state.json records, the binaries they
// name, the config, the driver's GPUs, check's findings on the cpuset hierarchy (no fix), the log
// file's tail and the check timer's enablement.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "config/config.h"
#include "host/fs/host_fs.h"
#include "status/node_status.h"

namespace gnh {

// The config's validity, as status reports it: "" when valid, else the one line saying why;
// *loaded gets the config to use (built-in defaults when it is not valid). One function so that a
// loader collecting warnings changes status here only.
// The problems the loader records and the hook ignores go to *warnings.
std::string config_problem(const HostFs& fs, const std::optional<std::string>& explicit_path, Config* loaded,
                           std::vector<std::string>* warnings);

// `refusals`: how many of the log's last refusal lines to keep.
StatusFacts read_node_status(const HostFs& fs, const std::optional<std::string>& config_path, size_t refusals);

}  // namespace gnh
