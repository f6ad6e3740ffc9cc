#include "install/toml_text.h"
#include "base/toml_guard.h"

#include <sstream>

#include "base/error.h"

namespace gnh {

toml::table parse_toml_file(std::string_view text, const std::string& file) {
  try {
    return parse_toml_text(text, file);
  } catch (const toml::parse_error& e) {
    fail(file + ": line " + std::to_string(e.source().begin.line) + ", column " + std::to_string(e.source().begin.column) +
         ": cannot parse, left untouched: " + std::string(e.description()));
  }
}

std::string emit_toml(const toml::table& t) {
  std::ostringstream out;
  out << toml::toml_formatter(t, toml::toml_formatter::default_flags & ~toml::format_flags::indentation);
  std::string s = out.str();
  if (!s.empty() && s.back() != '\n') s += '\n';
  return s;
}

std::string toml_quoted(const std::string& v) {
  std::string q = "\"";
  for (char c : v) {
    if (c == '"' || c == '\\') q += '\\';
    q += c;
  }
  return q + "\"";
}

void deep_merge(toml::table& a, const toml::table& b) {
  for (const auto& [k, v] : b) {
    toml::table* into = a[k].as_table();
    if (into && v.is_table()) deep_merge(*into, *v.as_table());
    else a.insert_or_assign(k, v);
  }
}

}  // namespace gnh
