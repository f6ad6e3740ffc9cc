// Finding a few members of a large JSON document without building it. A bundle's config.json is
// 2-20 KB (Docker's and the CRI's carry a seccomp profile), and nlohmann's parser spends ~0.1 ms
// a start building a document of which we read six fields (docs/internals/benchmarks.md). This one pass
// checks the whole text and records where the wanted values lie; only those are then parsed.
//
// The contract that keeps verdicts unchanged: when locate_members accepts a text, nlohmann::json
// would have parsed it too, and each located value is the one its document holds (the last of
// duplicate keys wins, as there). When it declines (invalid JSON, or a form it leaves to nlohmann,
// such as an escaped key on a wanted path), callers parse the whole document as before, which
// gives the same result or the same error message. tests/fuzz/fuzz_json_scan.cc checks both.
#pragma once

#include <cstddef>
#include <optional>
#include <string_view>
#include <vector>

namespace oci {

// A member path: object keys from the top-level object down ({"linux", "devices"}).
using MemberPath = std::vector<std::string_view>;

struct LocatedMembers {
  // One per wanted path, in order: the value's text ("[...]", "\"x\"", "null", ...), or nullopt
  // when the document has no such member (or a parent on the path is not an object).
  std::vector<std::optional<std::string_view>> values;
  size_t root_close = 0;    // offset of the top-level object's closing '}'
  bool root_empty = false;  // the top-level object has no members
  // An object on a wanted path has a wanted key twice, or a key that is a wanted one but for case
  // (member_check.h's same_but_case): runtimes would read it otherwise. Callers then ask
  // member_check.h for the line naming it.
  bool ambiguous = false;
};

// nullopt: `text` is not a JSON object as nlohmann::json::parse accepts it, or it needs nlohmann
// to tell (see above). Runs in one pass, without recursion, in memory bounded by the nesting.
std::optional<LocatedMembers> locate_members(std::string_view text, const std::vector<MemberPath>& wanted);

// The elements of a JSON array of objects, each as its text ("{...}"), for locate_members to read.
// nullopt: `text` is not an array, or an element is not an object (callers then parse the array
// with nlohmann, as when locate_members declines).
std::optional<std::vector<std::string_view>> object_elements(std::string_view text);

// The elements of a JSON array of strings, each as its text with its quotes ("\"A=1\""), checked
// as locate_members checks strings. nullopt: not an array, or an element is not a string.
std::optional<std::vector<std::string_view>> string_elements(std::string_view text);

}  // namespace oci
