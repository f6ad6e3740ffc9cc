// The OCI state on the hook's stdin: anything a runtime (or whatever poses as one) writes there.
// Only ParseError may come out; any other exception, crash or sanitizer report is a bug.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "parse_error.h"
#include "state.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  try {
    oci::State s = oci::parse_state(text);
    // What parse_state promises its caller.
    if (s.id.empty() || s.bundle.empty() || s.pid < 0) __builtin_trap();
  } catch (const oci::ParseError&) {
  }
  return 0;
}
