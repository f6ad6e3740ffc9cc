// What `check` prints: a table for operators, one JSON object for tools (fields in docs/operate.md).
#pragma once

#include <string>

#include "check/result.h"

namespace gnh {

std::string check_text(const CheckResult& r);
std::string check_json(const CheckResult& r);

}  // namespace gnh
