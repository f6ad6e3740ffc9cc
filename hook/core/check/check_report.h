// What `check` prints: a table for operators, one JSON object for tools (fields in docs/operate.md).
#pragma once

#include <string>

#include "check/result.h"

namespace gnh {

// What the operator should do next. While a GPU memory node is still coming online (offline in the
// driver, or online there but not yet in the kernel) only `wait` helps: the fix cannot add a node
// before the kernel has it. Else `check --fix` when stale cgroups are left and no fix ran.
enum class NextStep { none, wait, fix };
NextStep next_step(const CheckResult& r);
// The GPU memory nodes still coming online (the reason for NextStep::wait).
NodeSet onlining_nodes(const CheckFindings& f);

std::string check_text(const CheckResult& r);
std::string check_json(const CheckResult& r);

}  // namespace gnh
