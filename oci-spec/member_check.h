// Members of config.json that the runtimes read otherwise than we do. runc (Go's encoding/json)
// takes a key that matches ours but for case ("LINUX", "Devices") as ours, takes the last of two
// equal keys (merging two objects), and crun (libocispec over yajl) takes the first and ignores
// other spellings. A config.json with such members could give a container /dev/nvidia0 while we
// read no GPU, so on the paths we read they are refused. Engines write each member once, spelled
// as the OCI spec spells it: only hand-written text meets these refusals.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "parse_error.h"

namespace oci {

// An object whose members we read, with the shapes of the objects below them we read too.
struct Shape {
  struct Member {
    std::string_view key;
    const Shape* object = nullptr;    // the value, when an object, is read with this shape
    const Shape* elements = nullptr;  // the value, when an array, has objects of this shape
  };
  std::vector<Member> members;
  // Every key in this object and everything inside it must be unique, ours or not: for text we
  // parse and write back (hooks), where nlohmann would keep only the last of two.
  bool unique_throughout = false;
};

// A config.json that runtimes would read otherwise than we do. The container's own problem: the
// hook refuses its start whatever policy.on-error says, and the runtime shim leaves it unchanged.
class MisreadSpec : public ParseError {
 public:
  explicit MisreadSpec(const std::string& message) : ParseError(message) {}
};

// Whether runc would take `key` for `ours` though they differ: ASCII case, and the non-ASCII
// letters Go's folding maps onto ASCII ones (U+017F long s, U+212A Kelvin sign, U+0130 and U+0131
// dotted and dotless i). `ours` is ASCII.
bool same_but_case(std::string_view key, std::string_view ours);

// The first member in document order, on the shapes' paths, that runtimes read otherwise: one line
// naming it ("config.json has \"linux\" twice at the top level ..."), or nullopt. `text` must be
// JSON that nlohmann accepts; `what` names the document. `at`: where `text` lies in it, when it
// is one member's value ("hooks"), for the line; "" for the whole document.
std::optional<std::string> misread_member(std::string_view text, const Shape& root, const char* what,
                                          std::string_view at = "");

}  // namespace oci
