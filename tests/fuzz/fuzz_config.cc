// /etc/gpu-numa-hook/config.toml: operator-written, but a typo or a truncated file must become a
// Failure that names the key, never a crash or a silently odd value.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include <toml++/toml.h>

#include "config/config.h"
#include "config/config_text_guard.h"
#include "config/plain_toml.h"
#include "base/error.h"
#include "base/toml_guard.h"

namespace {

// Every setting a Config holds, as text: two configs read alike when these are equal.
std::string settings(const gnh::Config& c) {
  std::string s;
  auto add = [&](const std::string& v) { (s += v) += '|'; };
  add(gnh::to_string(c.policy.missing_node));
  add(gnh::to_string(c.policy.gpu_affinity));
  add(gnh::to_string(c.policy.explicit_mems));
  add(gnh::to_string(c.policy.on_error));
  add(gnh::to_string(c.policy.cuda_requirement));
  add(std::to_string(c.deadline_ms));
  add(c.log.file), add(c.log.level), add(gnh::to_string(c.log.format)), add(std::to_string(c.log.syslog));
  add(c.lock_path), add(c.next_hook), add(std::to_string(c.chain_timeout_ms));
  add(std::to_string(c.check_fix)), add(std::to_string(c.systemd_allowed_memory_nodes));
  for (const auto& n : c.runtime.next) add(n);
  add(c.runtime.hook);
  add(c.nvml.cache), add(c.nvml.probe), add(c.nvml.library), add(std::to_string(c.nvml.probe_timeout_ms));
  for (const auto& o : c.overrides)
    add(std::to_string(o.minor.value_or(999)) + "," + o.uuid + "," + o.bus_id + "," +
        std::to_string(o.memory_node.value_or(-1)) + "," + std::to_string(o.affinity_node.value_or(-1)));
  return s;
}

}  // namespace

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
  // differently (plain_toml.h). It accepts non-ASCII only in comments it delimits itself, which
  // toml++ reads safely.
  if (auto plain = gnh::parse_plain_toml(text)) {
    toml::table full;
    try {
      full = gnh::parse_toml_text(text, "fuzz.toml");
    } catch (const toml::parse_error&) {
      __builtin_trap();
    }
    if (!(*plain == full)) __builtin_trap();
    // And parse_config, whichever of its paths it takes, honours such a text, with or without a
    // mistyped key added: a typo sends it from the plain path to toml++ (for the line number),
    // and must cost that one key, never the operator's other settings.
    const std::string typo = std::string(text) + "\nzz-fuzz-typo = 1\n";
    if (gnh::parse_plain_toml(typo)) {  // the last table did not have that key already
      gnh::Config clean, typed;
      try {
        clean = gnh::parse_config(text, "fuzz.toml");
        typed = gnh::parse_config(typo, "fuzz.toml");
      } catch (const gnh::Failure&) {
        __builtin_trap();
      }
      // (Inside a table that is itself unknown the key adds no problem of its own.)
      if (settings(clean) != settings(typed) || typed.problems.size() < clean.problems.size()) __builtin_trap();
    }
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
