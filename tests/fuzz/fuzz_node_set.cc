// Kernel node lists ("0,8,252-255") from cpuset files, sysfs and config.json. A parsed set must
// print back to text that parses to the same set, and stay within the node limit.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "base/node_set.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  std::string why;
  auto set = gnh::NodeSet::parse(text, &why);
  if (!set) {
    if (why.empty()) __builtin_trap();  // a refusal always says why
    return 0;
  }
  auto again = gnh::NodeSet::parse(set->to_string());
  if (!again || !(*again == *set)) __builtin_trap();
  for (int id : set->ids())
    if (id < 0 || id >= gnh::NodeSet::kMaxNodes) __builtin_trap();
  return 0;
}
