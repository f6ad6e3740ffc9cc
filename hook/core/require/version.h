// Versions as NVIDIA's requirement checks compare them ("12.4", "580.159.04", "9.0"): numbers
// separated by dots, compared number by number, missing trailing numbers count as 0 ("12" == "12.0").
// Pure, bounded: at most kMaxVersionParts numbers of at most 9 digits each. A parsed version keeps
// its text, so messages print it as the driver and nvidia-smi do ("580.159.04", not "580.159.4").
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace gnh {

struct Version {
  std::vector<uint32_t> parts;
  std::string text;               // as written ("580.159.04"); empty for one built from numbers
  std::string to_string() const;  // the text as written, else the numbers joined by dots
};

constexpr size_t kMaxVersionParts = 4;

// nullopt unless `s` is 1..4 non-empty runs of 1..9 digits separated by single dots.
std::optional<Version> parse_version(std::string_view s);
// <0, 0, >0; trailing zero parts do not count.
int compare(const Version& a, const Version& b);
inline bool operator==(const Version& a, const Version& b) { return compare(a, b) == 0; }
inline bool operator<(const Version& a, const Version& b) { return compare(a, b) < 0; }

}  // namespace gnh
