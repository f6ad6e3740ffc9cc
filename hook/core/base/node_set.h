// A set of NUMA node ids, bounded by the kernel's node limit, with the kernel's list syntax
// ("0,8,252-255") in and out. Hostile input cannot make it large: ids past kMaxNodes are errors.
#pragma once

#include <bitset>
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace gnh {

class NodeSet {
 public:
  // MAX_NUMNODES on the largest kernel configs (CONFIG_NODES_SHIFT=10).
  static constexpr int kMaxNodes = 1024;

  NodeSet() = default;
  static NodeSet of(std::initializer_list<int> ids);

  // Parses kernel list syntax; empty or whitespace-only text is the empty set.
  // Returns nullopt (and an explanation in *why) for anything malformed or out of range.
  static std::optional<NodeSet> parse(std::string_view text, std::string* why = nullptr);

  bool add(int id);  // false when out of range
  bool contains(int id) const { return id >= 0 && id < kMaxNodes && bits_.test(id); }
  bool empty() const { return bits_.none(); }
  size_t size() const { return bits_.count(); }
  bool is_subset_of(const NodeSet& other) const { return (bits_ & ~other.bits_).none(); }

  NodeSet operator|(const NodeSet& o) const { return NodeSet(bits_ | o.bits_); }
  NodeSet operator&(const NodeSet& o) const { return NodeSet(bits_ & o.bits_); }
  NodeSet operator-(const NodeSet& o) const { return NodeSet(bits_ & ~o.bits_); }
  NodeSet& operator|=(const NodeSet& o) { bits_ |= o.bits_; return *this; }
  bool operator==(const NodeSet& o) const { return bits_ == o.bits_; }

  std::vector<int> ids() const;
  // Kernel list syntax with ranges collapsed: "0,8,252-255"; "" for the empty set.
  std::string to_string() const;
  // Like to_string() but "-" for the empty set, for logs and messages.
  std::string to_display() const;

 private:
  explicit NodeSet(std::bitset<kMaxNodes> b) : bits_(b) {}
  std::bitset<kMaxNodes> bits_;
};

}  // namespace gnh
