#include "config/plain_toml.h"

#include "base/text.h"

#include <algorithm>
#include <cstdint>
#include <string>
#include <utility>

namespace gnh {

namespace {

bool bare_key_char(char c) {
  return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_' || c == '-';
}
bool printable(char c) { return c >= 0x20 && c < 0x7f; }

class PlainReader {
 public:
  explicit PlainReader(std::string_view text) : t_(text), n_(text.size()) {}

  std::optional<toml::table> read() {
    toml::table root;
    toml::table* current = &root;
    while (true) {
      skip_blanks();
      if (i_ >= n_) return root;
      const char c = t_[i_];
      if (c == '\n' || c == '#') {
        if (!line_end()) return std::nullopt;
        continue;
      }
      if (c == '[') {
        ++i_;
        skip_blanks();
        const std::string_view name = bare_key();
        skip_blanks();
        if (name.empty() || i_ >= n_ || t_[i_] != ']') return std::nullopt;
        ++i_;
        if (!value_ended() || !line_end()) return std::nullopt;
        auto [it, inserted] = root.insert(name, toml::table{});
        if (!inserted) return std::nullopt;  // a table named twice, or a key's name: toml++ to report
        current = it->second.as_table();
        continue;
      }
      const std::string_view key = bare_key();
      skip_blanks();
      if (key.empty() || i_ >= n_ || t_[i_] != '=') return std::nullopt;
      ++i_;
      skip_blanks();
      if (!value_into(*current, key) || !value_ended() || !line_end()) return std::nullopt;
    }
  }

 private:
  void skip_blanks() {
    while (i_ < n_ && (t_[i_] == ' ' || t_[i_] == '\t')) ++i_;
  }

  std::string_view bare_key() {
    const size_t start = i_;
    while (i_ < n_ && bare_key_char(t_[i_])) ++i_;
    return t_.substr(start, i_ - start);
  }

  // A value ends at a blank or the line's end; anything glued to it ("1_000", "1.5", "truex",
  // "\"a\"#c") is a form left to toml++.
  bool value_ended() const { return i_ >= n_ || t_[i_] == ' ' || t_[i_] == '\t' || t_[i_] == '\n'; }

  // Blanks, an optional comment, then the line's end (or the text's). A comment may hold UTF-8
  // (the shipped config's first line has a dash), never a control character but tab.
  bool line_end() {
    skip_blanks();
    if (i_ < n_ && t_[i_] == '#') {
      // Most of a config is comments: the usual one is checked eight bytes at a time.
      const size_t nl = std::min(t_.find('\n', i_), n_);
      if (printable_ascii_or_tab(t_.substr(i_, nl - i_))) i_ = nl;
      else if (!utf8_comment_until(nl)) return false;
    }
    if (i_ >= n_) return true;
    if (t_[i_] != '\n') return false;
    ++i_;
    return true;
  }

  // From the '#' to `end`: printable ASCII, tabs and UTF-8 sequences.
  bool utf8_comment_until(size_t end) {
    for (++i_; i_ < end;) {
      if (t_[i_] == '\t' || printable(t_[i_])) {
        ++i_;
        continue;
      }
      const size_t len = utf8_length();
      if (len == 0) return false;
      i_ += len;
    }
    return true;
  }

  // The length of the UTF-8 sequence at i_ (RFC 3629: no overlong form, no surrogate, nothing
  // past U+10FFFF), 0 when there is none or it is a C1 control (U+0080-U+009F).
  size_t utf8_length() const {
    auto byte = [&](size_t k) { return i_ + k < n_ ? static_cast<unsigned char>(t_[i_ + k]) : 0u; };
    auto in = [](unsigned c, unsigned lo, unsigned hi) { return c >= lo && c <= hi; };
    const unsigned c = byte(0);
    if (c == 0xC2) return in(byte(1), 0xA0, 0xBF) ? 2 : 0;
    if (in(c, 0xC3, 0xDF)) return in(byte(1), 0x80, 0xBF) ? 2 : 0;
    unsigned lo = 0x80, hi = 0xBF;
    if (c == 0xE0) lo = 0xA0;
    else if (c == 0xED) hi = 0x9F;
    else if (c == 0xF0) lo = 0x90;
    else if (c == 0xF4) hi = 0x8F;
    if (in(c, 0xE0, 0xEF)) return in(byte(1), lo, hi) && in(byte(2), 0x80, 0xBF) ? 3 : 0;
    if (in(c, 0xF0, 0xF4)) return in(byte(1), lo, hi) && in(byte(2), 0x80, 0xBF) && in(byte(3), 0x80, 0xBF) ? 4 : 0;
    return 0;
  }

  // At a quote: the text up to the closing one, all printable ASCII and, in "...", no backslash.
  std::optional<std::string_view> quoted() {
    const char q = t_[i_];
    const size_t start = ++i_;
    for (; i_ < n_ && t_[i_] != q; ++i_)
      if (!printable(t_[i_]) || (q == '"' && t_[i_] == '\\')) return std::nullopt;
    if (i_ >= n_) return std::nullopt;
    return t_.substr(start, i_++ - start);
  }

  bool value_into(toml::table& table, std::string_view key) {
    if (i_ >= n_) return false;
    const char c = t_[i_];
    if (c == '"' || c == '\'') {
      auto s = quoted();
      return s && table.insert(key, std::string(*s)).second;
    }
    if (c == '[') return array_into(table, key);
    if (c == 't' || c == 'f') {
      const std::string_view word = c == 't' ? "true" : "false";
      if (t_.substr(i_, word.size()) != word) return false;
      i_ += word.size();
      return table.insert(key, c == 't').second;
    }
    // A decimal integer: an optional sign, no leading zero, at most 18 digits (no overflow).
    const bool negative = c == '-';
    if (c == '+' || c == '-') ++i_;
    const size_t digits_start = i_;
    while (i_ < n_ && t_[i_] >= '0' && t_[i_] <= '9') ++i_;
    const size_t digits = i_ - digits_start;
    if (digits == 0 || digits > 18 || (digits > 1 && t_[digits_start] == '0')) return false;
    int64_t v = 0;
    for (size_t k = digits_start; k < i_; ++k) v = v * 10 + (t_[k] - '0');
    return table.insert(key, negative ? -v : v).second;
  }

  // ["a", 'b', ] on one line: strings only.
  bool array_into(toml::table& table, std::string_view key) {
    toml::array items;
    ++i_;
    skip_blanks();
    while (i_ < n_ && (t_[i_] == '"' || t_[i_] == '\'')) {
      auto s = quoted();
      if (!s) return false;
      items.push_back(std::string(*s));
      skip_blanks();
      if (i_ >= n_ || t_[i_] != ',') break;
      ++i_;
      skip_blanks();
    }
    if (i_ >= n_ || t_[i_] != ']') return false;
    ++i_;
    return table.insert(key, std::move(items)).second;
  }

  std::string_view t_;
  size_t n_;
  size_t i_ = 0;
};

}  // namespace

std::optional<toml::table> parse_plain_toml(std::string_view text) { return PlainReader(text).read(); }

}  // namespace gnh
