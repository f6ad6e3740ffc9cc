#include "base/toml_guard.h"

#include <memory>
#include <string>

namespace gnh {

namespace {

bool key_start(char c) {
  return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_' || c == '-' ||
         c == '"' || c == '\'';
}

}  // namespace

// One pass over the text as TOML's lexer sees it: strings (basic, literal, multi-line) and comments
// are skipped, and '[' / '{' opened in a value are counted, so that only a '[' at a statement's
// start (depth 0, first on its line) is taken for a table header.
TextPosition first_unkeyed_table_header(std::string_view text) {
  size_t depth = 0, line = 1, line_start = 0;
  bool statement_start = true;  // nothing but blanks since the line began, outside any value
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (c == '\n') {
      ++line;
      line_start = i + 1;
      statement_start = depth == 0;
      continue;
    }
    if (c == ' ' || c == '\t' || c == '\r') continue;
    if (c == '#') {  // a comment runs to the line's end
      size_t nl = text.find('\n', i);
      if (nl == std::string_view::npos) break;
      i = nl - 1;
      continue;
    }
    if (c == '"' || c == '\'') {
      const bool multi = text.substr(i, 3) == (c == '"' ? "\"\"\"" : "\'\'\'");
      size_t j = i + (multi ? 3 : 1);
      for (; j < text.size(); ++j) {
        if (c == '"' && text[j] == '\\') { ++j; continue; }  // an escape, in basic strings only
        if (!multi && text[j] == '\n') break;                 // toml++'s own error
        if (text[j] == c && (!multi || text.substr(j, 3) == (c == '"' ? "\"\"\"" : "\'\'\'"))) break;
      }
      for (size_t k = i; k < j && k < text.size(); ++k)
        if (text[k] == '\n') { ++line; line_start = k + 1; }
      i = multi ? j + 2 : j;
      statement_start = false;
      continue;
    }
    if (c == '[' && statement_start && depth == 0) {
      size_t k = i + 1;
      if (k < text.size() && text[k] == '[') ++k;  // [[array of tables]]
      while (k < text.size() && (text[k] == ' ' || text[k] == '\t')) ++k;
      // A key character or quote is fine; a blank key (']') and the file's end are toml++'s own
      // errors; anything else, the line's end included, meets the assumption.
      if (k < text.size() && text[k] != ']' && !key_start(text[k])) return {line, k - line_start + 1};
      size_t nl = text.find('\n', i);  // a header is one line: the rest of it is no value
      if (nl == std::string_view::npos) break;
      i = nl - 1;
      statement_start = false;
      continue;
    }
    statement_start = false;
    if (c == '[' || c == '{') ++depth;
    else if ((c == ']' || c == '}') && depth > 0) --depth;
  }
  return {};
}

toml::table parse_toml_text(std::string_view text, std::string_view source) {
  TextPosition p = first_unkeyed_table_header(text);
  if (p.line) {
    const auto where = toml::source_position{static_cast<toml::source_index>(p.line), static_cast<toml::source_index>(p.column)};
    throw toml::parse_error("Error while parsing table header: a table name must start with a key",
                            toml::source_region{where, where, std::make_shared<const std::string>(source)});
  }
  return toml::parse(text, source);
}

}  // namespace gnh
