#include "member_check.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstdint>

#include "base/text.h"

namespace oci {

bool same_but_case(std::string_view key, std::string_view ours) {
  auto lower = [](unsigned char c) { return c >= 'A' && c <= 'Z' ? static_cast<unsigned char>(c + 32) : c; };
  size_t i = 0, j = 0;
  bool folded = false;
  while (i < key.size() && j < ours.size()) {
    const unsigned char c = static_cast<unsigned char>(key[i]);
    const unsigned char o = lower(static_cast<unsigned char>(ours[j]));
    if (c < 0x80) {
      if (lower(c) != o) return false;
      folded |= c != static_cast<unsigned char>(ours[j]);
      ++i;
    } else {
      // unicode.ToUpper(unicode.ToLower(r)) of these is an ASCII letter (Go's encoding/json fold)
      const std::string_view rest = key.substr(i);
      size_t len = 0;
      if (o == 's' && rest.substr(0, 2) == "\xC5\xBF") len = 2;                // U+017F long s
      else if (o == 'k' && rest.substr(0, 3) == "\xE2\x84\xAA") len = 3;       // U+212A Kelvin sign
      else if (o == 'i' && (rest.substr(0, 2) == "\xC4\xB0" || rest.substr(0, 2) == "\xC4\xB1")) len = 2;
      if (len == 0) return false;
      folded = true;
      i += len;
    }
    ++j;
  }
  return folded && i == key.size() && j == ours.size();
}

namespace {

using nlohmann::json;

// Walks the document as nlohmann reads it (keys unescaped) and stops at the first misread member.
class Checker {
 public:
  Checker(const Shape& root, const char* what, std::string_view at) : root_(root), what_(what), at_(at) {}

  const std::optional<std::string>& found() const { return found_; }

  bool null() { return value(); }
  bool boolean(bool) { return value(); }
  bool number_integer(json::number_integer_t) { return value(); }
  bool number_unsigned(json::number_unsigned_t) { return value(); }
  bool number_float(json::number_float_t, const json::string_t&) { return value(); }
  bool string(json::string_t&) { return value(); }
  bool binary(json::binary_t&) { return value(); }
  bool start_object(std::size_t) { return open(true); }
  bool start_array(std::size_t) { return open(false); }
  bool end_object() { return close(); }
  bool end_array() { return close(); }
  bool parse_error(std::size_t, const std::string&, const nlohmann::detail::exception&) { return false; }

  bool key(json::string_t& k) {
    Frame& f = stack_.back();
    f.child_shape = nullptr;
    f.child_elements = nullptr;
    if (!f.shape && !f.unique) return true;
    if (f.unique) {
      if (std::find(f.keys.begin(), f.keys.end(), k) != f.keys.end()) return twice(f, k);
      f.keys.push_back(k);
    }
    f.child_name = k;
    if (!f.shape) return true;
    for (size_t m = 0; m < f.shape->members.size() && m < 64; ++m) {
      const Shape::Member& member = f.shape->members[m];
      if (k == member.key) {
        if (!f.unique && (f.seen >> m & 1)) return twice(f, k);
        f.seen |= uint64_t{1} << m;
        f.child_shape = member.object;
        f.child_elements = member.elements;
        return true;
      }
      if (same_but_case(k, member.key)) {
        found_ = std::string(what_) + " has \"" + shown(k) + "\" " + where(f) + " where the OCI spec has \"" +
                 std::string(member.key) + "\"; runc reads it as that member, crun ignores it: spell it \"" +
                 std::string(member.key) + "\"";
        return false;
      }
    }
    return true;
  }

 private:
  struct Frame {
    bool object = false;
    const Shape* shape = nullptr;  // objects: the shape read; arrays: their elements' shape
    bool unique = false;
    std::string path;  // as the messages name it ("linux.devices[0]"); "" for the top level
    uint64_t seen = 0;
    std::vector<std::string> keys;  // unique frames' keys so far
    size_t index = 0;               // arrays: the next element's
    std::string child_name;         // objects: the current member's key
    const Shape* child_shape = nullptr;
    const Shape* child_elements = nullptr;
  };

  static Frame frame(bool object, const Shape* shape, bool unique, std::string path) {
    Frame f;
    f.object = object;
    f.shape = shape;
    f.unique = unique;
    f.path = std::move(path);
    return f;
  }

  static std::string shown(std::string_view key) {
    std::string s = gnh::one_line(key.substr(0, 64));
    return key.size() > 64 ? s + "..." : s;
  }
  static std::string where(const Frame& f) { return f.path.empty() ? "at the top level" : "in " + f.path; }

  bool twice(const Frame& f, const std::string& k) {
    found_ = std::string(what_) + " has \"" + shown(k) + "\" twice " + where(f) +
             "; runc and crun would not read the same one: write it once";
    return false;
  }

  // A scalar: the next element of an array.
  bool value() {
    if (!stack_.empty() && !stack_.back().object) ++stack_.back().index;
    return true;
  }

  bool open(bool object) {
    if (stack_.empty()) {
      stack_.push_back(frame(object, object ? &root_ : nullptr, root_.unique_throughout, std::string(at_)));
      return true;
    }
    Frame& parent = stack_.back();
    const Shape* shape = nullptr;
    std::string path;
    if (parent.object) {
      shape = object ? parent.child_shape : parent.child_elements;
      if (shape || parent.unique) path = parent.path.empty() ? shown(parent.child_name) : parent.path + "." + shown(parent.child_name);
    } else {
      shape = object ? parent.shape : nullptr;
      if (shape || parent.unique) path = parent.path + "[" + std::to_string(parent.index) + "]";
    }
    const bool unique = parent.unique || (object && shape && shape->unique_throughout);
    if (!parent.object) ++parent.index;
    stack_.push_back(frame(object, shape, unique, std::move(path)));
    return true;
  }

  bool close() {
    stack_.pop_back();
    return true;
  }

  const Shape& root_;
  const char* what_;
  std::string_view at_;
  std::vector<Frame> stack_;
  std::optional<std::string> found_;
};

}  // namespace

std::optional<std::string> misread_member(std::string_view text, const Shape& root, const char* what,
                                          std::string_view at) {
  Checker checker(root, what, at);
  (void)json::sax_parse(text.begin(), text.end(), &checker);
  return checker.found();
}

}  // namespace oci
