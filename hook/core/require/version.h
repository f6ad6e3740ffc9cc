// Versions as NVIDIA's requirement checks compare them ("12.4", "580.159.04", "9.0"): numbers
// separated by dots, compared number by number, missing trailing numbers count as 0 ("12" == "12.0").
// Pure, bounded: at most kMaxVersionParts numbers of at most 9 digits each.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace gnh {

struct Version {
  std::vector<uint32_t> parts;
  std::string to_string() const;  // "12.4", "580.159.4" (leading zeros of a part are not kept)
};

constexpr size_t kMaxVersionParts = 4;

// nullopt unless `s` is 1..4 non-empty runs of 1..9 digits separated by single dots.
std::optional<Version> parse_version(std::string_view s);
// <0, 0, >0; trailing zero parts do not count.
int compare(const Version& a, const Version& b);
inline bool operator==(const Version& a, const Version& b) { return compare(a, b) == 0; }
inline bool operator<(const Version& a, const Version& b) { return compare(a, b) < 0; }

}  // namespace gnh
