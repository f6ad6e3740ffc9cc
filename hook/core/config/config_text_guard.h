// toml++ 3.3.0 (Debian 12) reaches __builtin_unreachable, undefined behaviour, on some non-ASCII
// characters where it looks for whitespace: a bare "é = 1" or "a = é", a quote glued to a number
// ("a = 1\"é\"", its number scanner reads on through the quote), or one after a line-ending
// backslash in a """ string (marzer/tomlplusplus#190, #295; fixed upstream after 3.3). Found by
// tests/fuzz/fuzz_config. So the config text is checked first: a file that is all ASCII (every
// value this config takes is) passes untouched; otherwise non-ASCII is accepted only in comments
// that toml++ is sure to see as comments, and refused elsewhere with a line and column.
// parse_config runs it on text its plain reader declined: text that reader took has every comment
// delimited by the reader itself, and needs no guard (config.cc says why).
#pragma once

#include <string>
#include <string_view>

namespace gnh {

// Failure "config <file>: line L, column C: ..." for a non-ASCII byte anywhere but a comment
// whose '#' starts the line or follows a blank with no quote before it on that line (and none at
// all in a file with a multi-line string).
void check_config_text(std::string_view text, const std::string& file_name);

}  // namespace gnh
