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

constexpr const char* kUnkeyedHeader = "Error while parsing table header: a table name must start with a key";
constexpr const char* kBraceInArray = "Error while parsing array: expected a value or ']', saw '}'";

// One pass over the text as TOML's lexer sees it: strings (basic, literal, multi-line) and comments
// are skipped, and the '[' and '{' opened in a value are kept in order, so that only a '[' at a
// statement's start (none open, first on its line) is taken for a table header, and a '}' is
// known to fall where an array's value belongs (after its '[' or a ',', blanks and comments aside).
TextPosition first_toml_assumption(std::string_view text) {
  std::string open;  // the brackets and braces open in a value, innermost last
  bool value_expected = false;  // in an array, after its '[' or a ',': its next token is a value
  size_t line = 1, line_start = 0;
  bool statement_start = true;  // nothing but blanks since the line began, outside any value
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (c == '\n') {
      ++line;
      line_start = i + 1;
      statement_start = open.empty();
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
      value_expected = false;
      continue;
    }
    if (c == '[' && statement_start && open.empty()) {
      size_t k = i + 1;
      if (k < text.size() && text[k] == '[') ++k;  // [[array of tables]]
      while (k < text.size() && (text[k] == ' ' || text[k] == '\t')) ++k;
      // A key character or quote is fine; a blank key (']') and the file's end are toml++'s own
      // errors; anything else, the line's end included, meets the assumption.
      if (k < text.size() && text[k] != ']' && !key_start(text[k])) return {line, k - line_start + 1, kUnkeyedHeader};
      size_t nl = text.find('\n', i);  // a header is one line: the rest of it is no value
      if (nl == std::string_view::npos) break;
      i = nl - 1;
      statement_start = false;
      continue;
    }
    statement_start = false;
    if (c == '}' && value_expected) return {line, i - line_start + 1, kBraceInArray};
    if (c == '[' || c == '{') open.push_back(c);
    else if ((c == ']' || c == '}') && !open.empty()) open.pop_back();
    value_expected = c == '[' || (c == ',' && !open.empty() && open.back() == '[');
  }
  return {};
}

toml::table parse_toml_text(std::string_view text, std::string_view source) {
  TextPosition p = first_toml_assumption(text);
  if (p.line) {
    const auto where = toml::source_position{static_cast<toml::source_index>(p.line), static_cast<toml::source_index>(p.column)};
    throw toml::parse_error(p.what,
                            toml::source_region{where, where, std::make_shared<const std::string>(source)});
  }
  return toml::parse(text, source);
}

}  // namespace gnh
