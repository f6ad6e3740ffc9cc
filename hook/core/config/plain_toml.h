// A reader for the plain TOML a config file is written in, for the hook's start-up: toml++ reads
// a character at a time through its UTF-8 reader and costs a container start about 140,000
// instructions on the shipped config, the most of any step before the verdict
// (docs/internals/benchmarks.md). This one reads only the plain forms, line by line:
//   [table]                        a bare name, once
//   key = "text" | 'text' | 123 | true | false | ["a", "b"]   (a bare key, once per table)
//   # comments, alone or after a value; blank lines
// with printable ASCII in keys and strings, and UTF-8 in comments. Anything else (dotted or quoted keys, escapes,
// floats, dates, inline tables, [[arrays of tables]], multi-line values, CR, tabs in strings,
// non-ASCII outside comments) is declined, and the caller parses the text with toml++ as before.
//
// The contract: when it accepts a text, toml++ accepts it too and builds an equal table
// (tests/fuzz/fuzz_config.cc checks both). Its nodes carry no source positions, so a caller that
// needs a line number (a config problem to report) parses with toml++ again.
#pragma once

#include <optional>
#include <string_view>

#include <toml++/toml.h>

namespace gnh {

std::optional<toml::table> parse_plain_toml(std::string_view text);

}  // namespace gnh
