// The rule every cgroup path we build or open obeys: a path relative to a hierarchy's mount made
// only of normal components. Cgroup paths come from /proc/<pid>/cgroup and config.json, which a
// container's creator can influence, so ".." or a NUL must never reach an open(). Pure.
#pragma once

#include <string_view>

namespace gnh {

// True for a relative cgroup path made only of normal components (no "..", ".", NUL or empties
// other than a leading/trailing slash).
bool is_clean_relative_path(std::string_view rel);

// "/a/b/" -> "a/b".
std::string_view strip_slashes(std::string_view s);

}  // namespace gnh
