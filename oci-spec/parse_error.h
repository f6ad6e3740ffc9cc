// Parsing failures of OCI documents carry the JSON field they are about ("process.env[3]"). They
// are gnh::Error like every other failure, so one catch at the top turns any of them into a line.
#pragma once

#include <string>

#include "base/error.h"

namespace oci {

class ParseError : public gnh::Error {
 public:
  explicit ParseError(const std::string& message) : gnh::Error(message) {}
};

}  // namespace oci
