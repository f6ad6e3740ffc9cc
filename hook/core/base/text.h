// Small text helpers every parser of driver, kernel and OCI text shares.
#pragma once

#include <string>
#include <string_view>

namespace gnh {

// Without leading and trailing blanks (space, tab, CR, LF).
std::string_view trim(std::string_view s);

// Text from a container's creator (ids, paths, JSON strings) made safe to print on one line:
// newlines and tabs become spaces, other control bytes "\xNN".
std::string one_line(std::string_view s);

// What follows a path's last '/': a program's name ("/usr/bin/runc" -> "runc"), the whole text
// where there is none.
std::string_view base_name(std::string_view path);

// Every byte 0x20-0x7e or a tab: what a TOML comment may hold without a closer look.
bool printable_ascii_or_tab(std::string_view s);

}  // namespace gnh
