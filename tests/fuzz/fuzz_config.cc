// /etc/gpu-numa-hook/config.toml: operator-written, but a typo or a truncated file must become a
// Failure that names the key, never a crash or a silently odd value.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include <toml++/toml.h>

#include "config/config.h"
#include "config/config_text_guard.h"
#include "config/plain_toml.h"
#include "base/error.h"
#include "base/toml_guard.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  // parse_config hands toml++ the text with its comment lines blanked: toml++ must read the two
  // alike (both refused, or the same table). Only where the guard lets toml++ see the text at all.
  bool guarded = true;
  try {
    gnh::check_config_text(text, "fuzz.toml");
  } catch (const gnh::Failure&) {
    guarded = false;
  }
  if (auto lean = gnh::blank_comment_lines(text); lean && guarded) {
    auto parse = [](std::string_view t, toml::table* out) {
      try {
        *out = gnh::parse_toml_text(t, "fuzz.toml");  // as parse_config reads it
        return true;
      } catch (const toml::parse_error&) {
        return false;
      }
    };
    toml::table a, b;
    bool ok_a = parse(text, &a), ok_b = parse(*lean, &b);
    if (ok_a != ok_b) __builtin_trap();
    if (ok_a && !(a == b)) __builtin_trap();
  }
  // The plain reader parse_config tries first must never accept what toml++ refuses, nor read it
  // differently (plain_toml.h). It accepts only printable ASCII, which toml++ reads safely.
  if (auto plain = gnh::parse_plain_toml(text)) {
    toml::table full;
    try {
      full = gnh::parse_toml_text(text, "fuzz.toml");
    } catch (const toml::parse_error&) {
      __builtin_trap();
    }
    if (!(*plain == full)) __builtin_trap();
  }
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
