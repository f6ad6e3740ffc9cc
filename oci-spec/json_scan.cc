#include "json_scan.h"

#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <string>

#include "member_check.h"

namespace oci {

namespace {

// The grammar below is RFC 8259 as nlohmann 3.11 implements it: no comments, an optional UTF-8
// BOM at the very start, strict UTF-8 in strings, paired \u surrogates, and numbers that must be
// finite as doubles (it refuses 1e999 with "number overflow"). Where this scanner is stricter
// than nlohmann it only costs the caller the slow path; it must never be laxer.

// One compare for the usual byte (a compact config.json has no blanks between tokens).
bool is_ws(char c) {
  return static_cast<unsigned char>(c) <= ' ' && (c == ' ' || c == '\t' || c == '\n' || c == '\r');
}
bool is_digit(char c) { return c >= '0' && c <= '9'; }

// The bytes that need a look of their own inside a string: '"', '\\', control characters and
// everything above ASCII. Strings are most of a config.json; a table lookup per byte keeps the
// scan a few instructions a byte.
struct SpecialBytes {
  bool at[256] = {};
  constexpr SpecialBytes() {
    for (int c = 0; c < 0x20; ++c) at[c] = true;
    for (int c = 0x80; c < 0x100; ++c) at[c] = true;
    at[static_cast<unsigned char>('"')] = at[static_cast<unsigned char>('\\')] = true;
  }
};
constexpr SpecialBytes kSpecial;

// How many of the 16 bytes at p need no look of their own (16: none does). One vector compare
// for a block: most strings of a config.json end within their first. GCC's vector extension, so
// SSE2, NEON and VSX alike; the first special byte is found from the lowest set byte, which
// needs a little-endian machine (the others take the byte loop alone).
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
constexpr bool kBlockScan = true;
size_t plain_run16(const unsigned char* p) {
  typedef unsigned char Bytes16 __attribute__((vector_size(16)));
  Bytes16 v;
  std::memcpy(&v, p, 16);
  const auto special = (v == '"') | (v == '\\') | (v < 0x20) | (v >= 0x80);
  uint64_t lo, hi;
  std::memcpy(&lo, &special, 8);
  std::memcpy(&hi, reinterpret_cast<const char*>(&special) + 8, 8);
  if (lo) return static_cast<size_t>(__builtin_ctzll(lo)) / 8;
  if (hi) return 8 + static_cast<size_t>(__builtin_ctzll(hi)) / 8;
  return 16;
}
#else
constexpr bool kBlockScan = false;
size_t plain_run16(const unsigned char*) { return 0; }
#endif

int hex_value(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

class Scanner {
 public:
  explicit Scanner(std::string_view text) : t_(text), n_(text.size()) {}

  size_t pos() const { return i_; }
  bool at_end() const { return i_ >= n_; }
  char peek() const { return i_ < n_ ? t_[i_] : '\0'; }
  void advance() { ++i_; }

  void skip_ws() {
    while (i_ < n_ && is_ws(t_[i_])) ++i_;
  }

  bool skip_bom() {
    if (n_ > 0 && static_cast<unsigned char>(t_[0]) == 0xEF) {
      if (n_ < 3 || static_cast<unsigned char>(t_[1]) != 0xBB || static_cast<unsigned char>(t_[2]) != 0xBF) return false;
      i_ = 3;
    }
    return true;
  }

  // At '"': past the closing quote. `escaped` says whether the string held a backslash.
  bool string(bool& escaped) {
    escaped = false;
    ++i_;
    const unsigned char* const p = reinterpret_cast<const unsigned char*>(t_.data());
    while (i_ < n_) {
      // The plain run in a local index: i_ is a member the byte loads might alias, so a loop on it
      // stores it back every byte (twice the instructions; strings are most of a config.json).
      size_t i = i_;
      while (kBlockScan && i + 16 <= n_) {
        const size_t run = plain_run16(p + i);
        i += run;
        if (run < 16) break;
      }
      while (i < n_ && !kSpecial.at[p[i]]) ++i;
      i_ = i;
      if (i_ >= n_) break;
      const unsigned char c = static_cast<unsigned char>(t_[i_]);
      if (c == '"') {
        ++i_;
        return true;
      }
      if (c == '\\') {
        escaped = true;
        if (!escape()) return false;
        continue;
      }
      if (c < 0x20) return false;
      if (!utf8_sequence()) return false;
    }
    return false;
  }

  // At a value that is not an object or array: a string, true, false, null or a number.
  bool scalar() {
    const char c = peek();
    if (c == '"') {
      bool escaped;
      return string(escaped);
    }
    if (c == 't') return literal("true");
    if (c == 'f') return literal("false");
    if (c == 'n') return literal("null");
    if (c == '-' || is_digit(c)) return number();
    return false;
  }

  // At the first character of a literal or number.
  bool literal(std::string_view word) {
    if (t_.substr(i_, word.size()) != word) return false;
    i_ += word.size();
    return true;
  }

  bool number() {
    const size_t start = i_;
    bool plain_integer = true;
    if (peek() == '-') ++i_;
    if (peek() == '0') {
      ++i_;
    } else if (peek() >= '1' && peek() <= '9') {
      while (is_digit(peek())) ++i_;
    } else {
      return false;
    }
    if (peek() == '.') {
      plain_integer = false;
      ++i_;
      if (!is_digit(peek())) return false;
      while (is_digit(peek())) ++i_;
    }
    if (peek() == 'e' || peek() == 'E') {
      plain_integer = false;
      ++i_;
      if (peek() == '+' || peek() == '-') ++i_;
      if (!is_digit(peek())) return false;
      while (is_digit(peek())) ++i_;
    }
    // An integer of up to 300 digits is finite as a double whatever nlohmann stores it as; any
    // other number gets the same strtod nlohmann uses, and an infinite one is refused as there.
    if (plain_integer && i_ - start <= 300) return true;
    const std::string digits(t_.substr(start, i_ - start));
    return std::isfinite(std::strtod(digits.c_str(), nullptr));
  }

 private:
  bool escape() {  // at '\\'
    if (i_ + 1 >= n_) return false;
    const char e = t_[i_ + 1];
    if (e == '"' || e == '\\' || e == '/' || e == 'b' || e == 'f' || e == 'n' || e == 'r' || e == 't') {
      i_ += 2;
      return true;
    }
    if (e != 'u') return false;
    const int first = code_unit(i_ + 2);
    if (first < 0) return false;
    i_ += 6;
    if (first >= 0xDC00 && first <= 0xDFFF) return false;  // a low surrogate without its high one
    if (first < 0xD800 || first > 0xDBFF) return true;
    if (i_ + 1 >= n_ || t_[i_] != '\\' || t_[i_ + 1] != 'u') return false;
    const int second = code_unit(i_ + 2);
    if (second < 0xDC00 || second > 0xDFFF) return false;
    i_ += 6;
    return true;
  }

  int code_unit(size_t at) const {
    if (at + 4 > n_) return -1;
    int v = 0;
    for (size_t k = 0; k < 4; ++k) {
      const int h = hex_value(t_[at + k]);
      if (h < 0) return -1;
      v = v * 16 + h;
    }
    return v;
  }

  // RFC 3629's table, as nlohmann checks it: no overlong forms, no surrogates, nothing above U+10FFFF.
  bool utf8_sequence() {
    auto byte = [&](size_t k) { return i_ + k < n_ ? static_cast<unsigned char>(t_[i_ + k]) : 0; };
    auto in = [](unsigned char c, unsigned lo, unsigned hi) { return c >= lo && c <= hi; };
    const unsigned char c = byte(0);
    size_t len = 0;
    if (in(c, 0xC2, 0xDF)) {
      len = in(byte(1), 0x80, 0xBF) ? 2 : 0;
    } else if (c == 0xE0) {
      len = in(byte(1), 0xA0, 0xBF) && in(byte(2), 0x80, 0xBF) ? 3 : 0;
    } else if (in(c, 0xE1, 0xEC) || in(c, 0xEE, 0xEF)) {
      len = in(byte(1), 0x80, 0xBF) && in(byte(2), 0x80, 0xBF) ? 3 : 0;
    } else if (c == 0xED) {
      len = in(byte(1), 0x80, 0x9F) && in(byte(2), 0x80, 0xBF) ? 3 : 0;
    } else if (c == 0xF0) {
      len = in(byte(1), 0x90, 0xBF) && in(byte(2), 0x80, 0xBF) && in(byte(3), 0x80, 0xBF) ? 4 : 0;
    } else if (in(c, 0xF1, 0xF3)) {
      len = in(byte(1), 0x80, 0xBF) && in(byte(2), 0x80, 0xBF) && in(byte(3), 0x80, 0xBF) ? 4 : 0;
    } else if (c == 0xF4) {
      len = in(byte(1), 0x80, 0x8F) && in(byte(2), 0x80, 0xBF) && in(byte(3), 0x80, 0xBF) ? 4 : 0;
    }
    if (len == 0) return false;
    i_ += len;
    return true;
  }

  std::string_view t_;
  size_t n_;
  size_t i_ = 0;
};

// One open object or array.
struct Frame {
  bool object;
  bool tracked;         // an object on a wanted path: its keys are compared (its key is in `prefix`)
  size_t start;         // offset of its '{' or '['
  uint64_t record = 0;  // wanted paths whose value this container is
  uint64_t seen = 0;    // tracked objects: wanted paths whose key at this depth was met
};

// Whether `key` may be `ours` in another case (same_but_case): its first byte is the same letter
// but for case, or not ASCII (a letter Go folds onto an ASCII one). A cheap filter for on_key.
bool may_fold(std::string_view key, std::string_view ours) {
  if (key.empty() || ours.empty()) return false;
  const unsigned char k = static_cast<unsigned char>(key[0]);
  return k >= 0x80 || (k | 0x20) == (static_cast<unsigned char>(ours[0]) | 0x20);
}

char closer(char opener) { return opener == '{' ? '}' : ']'; }

// At the '{' or '[' of a value nothing is wanted inside: past its closing bracket, its grammar
// checked as the main loop would, without the loop's bookkeeping per token (most of a
// config.json is such values: the seccomp profile, the mounts). false: not JSON.
bool skip_container(Scanner& s) {
  std::string open(1, s.peek());  // the openers still open, innermost last
  s.advance();
  bool may_close = true;  // just past an opener: an empty container's close may come at once
  while (true) {
    s.skip_ws();
    char c = s.peek();
    if (!(may_close && c == closer(open.back()))) {
      if (open.back() == '{') {
        bool escaped;
        if (c != '"' || !s.string(escaped)) return false;
        s.skip_ws();
        if (s.peek() != ':') return false;
        s.advance();
        s.skip_ws();
        c = s.peek();
      }
      if (c == '{' || c == '[') {
        open.push_back(c);
        s.advance();
        may_close = true;
        continue;
      }
      if (!s.scalar()) return false;
      s.skip_ws();
      c = s.peek();
    }
    // After a value, or at an empty container's close: closes, then a comma before the next.
    while (c == closer(open.back())) {
      s.advance();
      open.pop_back();
      if (open.empty()) return true;
      s.skip_ws();
      c = s.peek();
    }
    if (c != ',') return false;
    s.advance();
    may_close = false;
  }
}

}  // namespace

std::optional<LocatedMembers> locate_members(std::string_view text, const std::vector<MemberPath>& wanted) {
  if (wanted.size() > 64) return std::nullopt;  // the record masks are 64 bits; no caller comes near
  LocatedMembers out;
  out.values.assign(wanted.size(), std::nullopt);
  Scanner s(text);
  if (!s.skip_bom()) return std::nullopt;
  s.skip_ws();
  if (s.peek() != '{') return std::nullopt;

  std::vector<Frame> stack;
  std::vector<std::string_view> prefix;  // keys of the tracked objects, from the top
  uint64_t pending_record = 0;           // for the value about to start: wanted paths it is
  bool pending_tracked = false;          // ... and whether, as an object, it is on a wanted path
  std::string_view pending_key;

  auto record = [&](uint64_t mask, size_t begin, size_t end) {
    for (size_t k = 0; mask; ++k, mask >>= 1)
      if (mask & 1) out.values[k] = text.substr(begin, end - begin);
  };
  // At a key of a tracked object: a later duplicate replaces the earlier value and everything
  // below it, as in nlohmann's document; then say what the value will be. A wanted key met twice,
  // or met in another case, makes the text ambiguous (runtimes read it otherwise).
  auto on_key = [&](std::string_view key, Frame& frame) {
    const size_t depth = prefix.size();
    pending_record = 0;
    pending_tracked = false;
    pending_key = key;
    uint64_t matched = 0;
    bool other_case = false;
    for (size_t k = 0; k < wanted.size(); ++k) {
      const MemberPath& w = wanted[k];
      if (w.size() <= depth) continue;
      const bool exact = w[depth] == key;
      // most keys differ from a wanted one in their first letter: only the others get the case compare
      if (!exact && (matched || other_case || !may_fold(key, w[depth]) || !same_but_case(key, w[depth]))) continue;
      bool on_path = true;
      for (size_t d = 0; d < depth && on_path; ++d) on_path = w[d] == prefix[d];
      if (!on_path) continue;
      if (!exact) {
        other_case = true;
        continue;
      }
      matched |= uint64_t{1} << k;
      out.values[k].reset();
      if (w.size() == depth + 1) pending_record |= uint64_t{1} << k;
      else pending_tracked = true;
    }
    if ((frame.seen & matched) || (other_case && !matched)) out.ambiguous = true;
    frame.seen |= matched;
  };

  enum class Want { value, value_or_close, key_or_close, key, comma_or_close, end };
  Want want = Want::value;
  bool root = true;
  while (true) {
    s.skip_ws();
    switch (want) {
      case Want::value:
      case Want::value_or_close: {
        const char c = s.peek();
        if (want == Want::value_or_close && c == ']') goto close;
        const size_t start = s.pos();
        const uint64_t rec = pending_record;
        const bool tracked = pending_tracked;
        pending_record = 0;
        pending_tracked = false;
        if ((c == '{' || c == '[') && !root && !(c == '{' && tracked)) {
          // Nothing wanted inside (at most the whole value): checked and passed over in one go.
          if (!skip_container(s)) return std::nullopt;
          record(rec, start, s.pos());
          want = Want::comma_or_close;
          continue;
        }
        if (c == '{' || c == '[') {
          stack.push_back({c == '{', c == '{' && (tracked || root), start, rec});
          if (c == '{' && tracked) prefix.push_back(pending_key);
          root = false;
          s.advance();
          want = c == '{' ? Want::key_or_close : Want::value_or_close;
          continue;
        }
        if (!s.scalar()) return std::nullopt;
        record(rec, start, s.pos());
        want = Want::comma_or_close;
        continue;
      }
      case Want::key_or_close:
      case Want::key: {
        if (want == Want::key_or_close && s.peek() == '}') {
          if (stack.size() == 1) out.root_empty = true;
          goto close;
        }
        if (s.peek() != '"') return std::nullopt;
        const size_t start = s.pos();
        bool escaped;
        if (!s.string(escaped)) return std::nullopt;
        if (stack.back().tracked) {
          // nlohmann compares keys unescaped; an escaped key on a path we follow is left to it
          if (escaped) return std::nullopt;
          on_key(text.substr(start + 1, s.pos() - start - 2), stack.back());
        } else {
          pending_record = 0;
          pending_tracked = false;
        }
        s.skip_ws();
        if (s.peek() != ':') return std::nullopt;
        s.advance();
        want = Want::value;
        continue;
      }
      case Want::comma_or_close: {
        if (stack.empty()) {
          want = Want::end;
          continue;
        }
        const char c = s.peek();
        if (c == ',') {
          s.advance();
          want = stack.back().object ? Want::key : Want::value;
          continue;
        }
        if (c == (stack.back().object ? '}' : ']')) goto close;
        return std::nullopt;
      }
      case Want::end:
        if (!s.at_end()) return std::nullopt;
        return out;
    }
  close:
    // at the '}' or ']' that closes stack.back()
    {
      const Frame f = stack.back();
      stack.pop_back();
      if (f.object && f.tracked && !prefix.empty() && !stack.empty()) prefix.pop_back();
      if (stack.empty()) out.root_close = s.pos();
      s.advance();
      record(f.record, f.start, s.pos());
      want = Want::comma_or_close;
    }
  }
}

namespace {

// The elements of a JSON array that is the whole of `text`, as views into it: `element` passes
// the scanner over one element (it starts at the element's first byte) and says whether it was
// one of the kind wanted. nullopt: not an array, or an element of another kind.
template <typename Element>
std::optional<std::vector<std::string_view>> array_elements(std::string_view text, Element&& element) {
  Scanner s(text);
  s.skip_ws();
  if (s.peek() != '[') return std::nullopt;
  s.advance();
  std::vector<std::string_view> out;
  s.skip_ws();
  if (s.peek() == ']') {
    s.advance();
  } else {
    while (true) {
      s.skip_ws();
      const size_t start = s.pos();
      if (!element(s)) return std::nullopt;
      out.push_back(text.substr(start, s.pos() - start));
      s.skip_ws();
      if (s.peek() == ']') {
        s.advance();
        break;
      }
      if (s.peek() != ',') return std::nullopt;
      s.advance();
    }
  }
  s.skip_ws();
  if (!s.at_end()) return std::nullopt;
  return out;
}

}  // namespace

std::optional<std::vector<std::string_view>> string_elements(std::string_view text) {
  return array_elements(text, [](Scanner& s) {
    bool escaped;
    return s.peek() == '"' && s.string(escaped);
  });
}

std::optional<std::vector<std::string_view>> object_elements(std::string_view text) {
  return array_elements(text, [](Scanner& s) {
    if (s.peek() != '{') return false;
    // To the bracket that closes it; strings are skipped whole (their brackets are text). The
    // element's grammar is locate_members' to check, when the caller reads it.
    size_t depth = 0;
    do {
      if (s.at_end()) return false;
      const char c = s.peek();
      if (c == '"') {
        bool escaped;
        if (!s.string(escaped)) return false;
        continue;
      }
      if (c == '{' || c == '[') ++depth;
      if (c == '}' || c == ']') --depth;
      s.advance();
    } while (depth > 0);
    return true;
  });
}

}  // namespace oci
