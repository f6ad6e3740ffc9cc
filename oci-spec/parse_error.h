// Parsing failures of OCI documents carry the JSON field they are about ("process.env[3]").
#pragma once

#include <stdexcept>
#include <string>

namespace oci {

class ParseError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

}  // namespace oci
