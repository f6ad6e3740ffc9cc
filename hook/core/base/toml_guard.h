// One way into toml++ for every TOML text we read (our config, containerd's and CRI-O's files).
// toml++ 3.3.0 (Debian 12) asserts, and with NDEBUG assumes (undefined behaviour in a release
// build, where the compiler has __builtin_assume), two things a text can break:
//   - a table header's first key starts with a key character or a quote: "[[[", "[=]", "[.a]" or
//     "[ .x]" reach that assumption instead of a parse error (found by the ASan build);
//   - a value in an array does not start with '}': "a = [}" or "a = [1, }" (found by the fuzzer).
// Such a text is refused here first, as toml++'s own errors are, with the line and column.
#pragma once

#include <string_view>

#include <toml++/toml.h>

namespace gnh {

// toml::parse, after the check above; throws toml::parse_error like it.
toml::table parse_toml_text(std::string_view text, std::string_view source);

// The 1-based line and column of the first such place and toml++-style words for it, or line 0
// when there is none (pure; the text inside strings and comments is skipped).
struct TextPosition {
  size_t line = 0;
  size_t column = 0;
  const char* what = "";
};
TextPosition first_toml_assumption(std::string_view text);

}  // namespace gnh
