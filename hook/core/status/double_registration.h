// `status`: the hook registered twice for the same containers. Each registration runs the whole
// check again (twice the start latency, two log lines per container, two refusals), so the docs
// say to register one. Pure: judged from what status read (node_status.h).
#pragma once

#include <string>
#include <vector>

#include "status/node_status.h"

namespace gnh {

// One line per pair of registrations that reach the same containers, naming both and what to
// remove; empty when each container gets the hook once.
std::vector<std::string> double_registrations(const StatusFacts& f);

}  // namespace gnh
