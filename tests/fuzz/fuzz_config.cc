// /etc/gpu-numa-hook/config.toml: operator-written, but a typo or a truncated file must become a
// Failure that names the key, never a crash or a silently odd value.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "config/config.h"
#include "base/error.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  try {
    gnh::Config c = gnh::parse_config(text, "fuzz.toml");
    if (c.deadline_ms < 100 || c.deadline_ms > 600000) __builtin_trap();
    if (c.chain_timeout_ms < 100 || c.chain_timeout_ms > 600000) __builtin_trap();
    if (c.lock_path.empty() || c.lock_path.front() != '/') __builtin_trap();
    if (!c.next_hook.empty() && c.next_hook.front() != '/') __builtin_trap();
    for (const auto& o : c.overrides)
      if (!o.memory_node && !o.affinity_node) __builtin_trap();
  } catch (const gnh::Failure&) {
  }
  return 0;
}
