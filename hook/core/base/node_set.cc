#include "base/node_set.h"

#include <charconv>

#include "base/text.h"

namespace gnh {

namespace {

constexpr size_t kBits = NodeSet::kMaxNodes;

// Parses a decimal node id; rejects signs, empty text and values past the node limit.
bool parse_id(std::string_view s, int* out, std::string* why) {
  if (s.empty()) {
    if (why) *why = "empty number";
    return false;
  }
  unsigned long long v = 0;
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || p != s.data() + s.size()) {
    if (why) *why = "'" + std::string(s) + "' is not a node number";
    return false;
  }
  if (v >= NodeSet::kMaxNodes) {
    if (why) *why = "node " + std::string(s) + " is past the kernel's limit of " +
                    std::to_string(NodeSet::kMaxNodes - 1);
    return false;
  }
  *out = static_cast<int>(v);
  return true;
}

}  // namespace

NodeSet NodeSet::of(std::initializer_list<int> ids) {
  NodeSet s;
  for (int id : ids) s.add(id);
  return s;
}

bool NodeSet::add(int id) {
  if (id < 0 || id >= kMaxNodes) return false;
  bits_.set(id);
  return true;
}

std::optional<NodeSet> NodeSet::parse(std::string_view text, std::string* why) {
  NodeSet out;
  text = trim(text);
  if (text.empty()) return out;
  while (true) {
    size_t comma = text.find(',');
    std::string_view item = trim(text.substr(0, comma));
    size_t dash = item.find('-');
    int lo = 0, hi = 0;
    if (dash == std::string_view::npos) {
      if (!parse_id(item, &lo, why)) return std::nullopt;
      hi = lo;
    } else {
      if (!parse_id(trim(item.substr(0, dash)), &lo, why) ||
          !parse_id(trim(item.substr(dash + 1)), &hi, why))
        return std::nullopt;
      if (hi < lo) {
        if (why) *why = "range '" + std::string(item) + "' runs backwards";
        return std::nullopt;
      }
    }
    for (int i = lo; i <= hi; ++i) out.bits_.set(i);
    if (comma == std::string_view::npos) break;
    text = text.substr(comma + 1);
  }
  return out;
}

// _Find_first/_Find_next (libstdc++) skip a word of clear bits at a time: a set is 1024 bits and
// these run for every log line and message on a GPU start.
std::vector<int> NodeSet::ids() const {
  std::vector<int> v;
  for (size_t i = bits_._Find_first(); i < kBits; i = bits_._Find_next(i)) v.push_back(static_cast<int>(i));
  return v;
}

std::string NodeSet::to_string() const {
  std::string s;
  for (size_t i = bits_._Find_first(); i < kBits;) {
    size_t j = i;
    while (j + 1 < kBits && bits_.test(j + 1)) ++j;
    if (!s.empty()) s += ',';
    s += std::to_string(i);
    if (j > i) s += '-' + std::to_string(j);
    i = bits_._Find_next(j);
  }
  return s;
}

std::string NodeSet::to_display() const { return empty() ? "-" : to_string(); }

}  // namespace gnh
