// How a tool (explain, topology, check, wait) reports the failure that stopped it: one line on
// stderr, and exit 2. Failures we know (gnh::Error: a file, a parse) are printed as they are;
// anything else is marked "unexpected". Hook mode has its own verdict (decide/verdict.h).
#pragma once

#include <cstdio>
#include <exception>
#include <string>

#include "base/error.h"
#include "base/exit_code.h"

namespace gnh {

// prefix: "gpu-numa-hook: check: ", "gpu-numa-hook: ".
inline int report_tool_error(const std::string& prefix, const std::exception& e) {
  bool known = dynamic_cast<const Error*>(&e) != nullptr;
  std::fprintf(stderr, "%s%s%s\n", prefix.c_str(), known ? "" : "unexpected: ", e.what());
  return as_int(ExitCode::error);
}

}  // namespace gnh
