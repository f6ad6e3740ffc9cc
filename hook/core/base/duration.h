// Durations on the command line as operators write them: "5m", "30s", "1500ms", "2h", and a plain
// number meaning seconds (what `wait --timeout` always took). Pure.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace gnh {

// The longest duration accepted: a week. Beyond it a value is a typo, not a plan.
constexpr double kMaxDurationSeconds = 7 * 24 * 3600;

// Seconds, or nullopt with *why saying what is wrong ("'-1' is negative; ..."). A number (digits,
// at most one '.') then optionally one unit: ms, s, m, h. Nothing else: no sign, no space, no
// exponent, no "1m30s".
std::optional<double> parse_duration_seconds(std::string_view text, std::string* why);

}  // namespace gnh
