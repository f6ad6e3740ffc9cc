// How the operator tools (explain, topology, wait) mention config problems the parser ignored:
// one stderr line each, so a run by hand shows them; `check` and `config check` report them as
// findings instead, and hook mode puts them on its log line.
#pragma once

#include <cstdio>
#include <string>

#include "config/config.h"

namespace gnh {

// prefix: "gpu-numa-hook: topology: "
inline void warn_config_problems(const std::string& prefix, const Config& c) {
  for (const auto& p : c.problems) std::fprintf(stderr, "%swarning: %s\n", prefix.c_str(), describe(p).c_str());
}

}  // namespace gnh
