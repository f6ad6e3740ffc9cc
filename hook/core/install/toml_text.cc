#include "install/toml_text.h"
#include "base/toml_guard.h"

#include <sstream>

#include "base/error.h"
#include "base/text.h"

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

std::string set_toml_key_line(std::string_view text, const std::string& section, const std::string& key,
                              const std::string& line) {
  const std::string header = "[" + section + "]";
  const bool remove = line.empty();
  std::string out;
  bool in_section = false, done = false, saw_section = false, skipping_array = false;
  size_t pos = 0;
  while (pos < text.size()) {
    size_t nl = text.find('\n', pos);
    std::string_view l = text.substr(pos, nl == std::string_view::npos ? std::string_view::npos : nl - pos);
    pos = nl == std::string_view::npos ? text.size() : nl + 1;
    const std::string t(trim(l));
    if (skipping_array) {  // the rest of a multi-line value we replaced
      if (t.find(']') != std::string::npos) skipping_array = false;
      continue;
    }
    if (!t.empty() && t.front() == '[') {
      if (in_section && !done && !remove) { out += line + "\n"; done = true; }
      in_section = t == header;
      saw_section |= in_section;
    } else if (in_section && !done && t.rfind(key, 0) == 0 && t.find('=') != std::string::npos &&
               trim(t.substr(key.size(), t.find('=') - key.size())).empty()) {
      if (!remove) out += line + "\n";
      done = true;
      skipping_array = t.find('[', t.find('=')) != std::string::npos && t.find(']', t.find('=')) == std::string::npos;
      continue;
    }
    out += std::string(l) + "\n";
  }
  if (remove) return out;
  if (in_section && !done) out += line + "\n";
  if (!saw_section) out += "\n" + header + "\n" + line + "\n";
  return out;
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
