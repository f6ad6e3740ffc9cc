// TOML files as install reads and writes them: parse with the file and line in the error, emit
// our own files without indentation.
#pragma once

#include <string>
#include <string_view>

#include <toml++/toml.h>

namespace gnh {

// The file's table; a Failure "FILE: line L, column C: cannot parse, left untouched: ..." otherwise.
toml::table parse_toml_file(std::string_view text, const std::string& file);
// Our own TOML text (toml++'s layout), ending in a newline.
std::string emit_toml(const toml::table& t);
// A TOML file edited as text, so its comments and layout survive (our conffile, NVIDIA's
// config.toml, as nvidia-ctk edits it): the `key = ...` line of [section] replaced by `line` (a
// multi-line array value too), or added at the end of the section, or a new section appended.
// `line` "" removes the key's line instead (nothing added). Every other line is kept as it was.
// Keys are matched bare (`key = `), as nvidia-ctk and our package write them.
std::string set_toml_key_line(std::string_view text, const std::string& section, const std::string& key,
                              const std::string& line);
// A TOML basic string: "v" with '"' and '\\' escaped.
std::string toml_quoted(const std::string& v);
// b's keys merged into a, tables merged key by key, anything else replaced (containerd 2.x's
// merge of imported files, PR 9982).
void deep_merge(toml::table& a, const toml::table& b);

}  // namespace gnh
