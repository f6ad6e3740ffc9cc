#include "base/node_set.h"

#include <doctest/doctest.h>

using gnh::NodeSet;

TEST_CASE("node lists parse with set semantics") {
  auto a = NodeSet::parse("0,8,252-255");
  auto b = NodeSet::parse("0,8,252,253,254,255\n");
  REQUIRE(a);
  REQUIRE(b);
  CHECK(*a == *b);
  CHECK(a->size() == 6);
  CHECK(a->to_string() == "0,8,252-255");
  CHECK(NodeSet::parse(" 3 , 1-2 ")->to_string() == "1-3");
}

TEST_CASE("lists and ids at the edges of the node range: 0, 63/64 (a word boundary), 1023") {
  CHECK(NodeSet::parse("0-1023")->to_string() == "0-1023");
  CHECK(NodeSet::parse("1023")->to_string() == "1023");
  CHECK(NodeSet::parse("0,63-64,1022")->to_string() == "0,63-64,1022");
  CHECK(NodeSet::parse("62,64,1023")->ids() == std::vector<int>{62, 64, 1023});
  CHECK(NodeSet::parse("0-2")->ids() == std::vector<int>{0, 1, 2});
  CHECK(NodeSet().ids().empty());
}

TEST_CASE("empty text is the empty set and displays as a dash") {
  auto e = NodeSet::parse("\n");
  REQUIRE(e);
  CHECK(e->empty());
  CHECK(e->to_string() == "");
  CHECK(e->to_display() == "-");
}

TEST_CASE("malformed and out-of-range lists are rejected with a reason") {
  std::string why;
  CHECK_FALSE(NodeSet::parse("4294967296", &why));
  CHECK(why.find("limit") != std::string::npos);
  CHECK_FALSE(NodeSet::parse("0-99999999", &why));
  CHECK_FALSE(NodeSet::parse("5-3", &why));
  CHECK(why.find("backwards") != std::string::npos);
  CHECK_FALSE(NodeSet::parse("1,,2"));
  CHECK_FALSE(NodeSet::parse("-1"));
  CHECK_FALSE(NodeSet::parse("a"));
  CHECK_FALSE(NodeSet::parse("1024"));
  CHECK(NodeSet::parse("1023"));
}

TEST_CASE("set algebra") {
  NodeSet a = NodeSet::of({0, 8});
  NodeSet b = NodeSet::of({8, 252});
  CHECK((a | b).to_string() == "0,8,252");
  CHECK((a & b).to_string() == "8");
  CHECK((b - a).to_string() == "252");
  CHECK(NodeSet::of({8}).is_subset_of(a));
  CHECK_FALSE(b.is_subset_of(a));
  CHECK(NodeSet().is_subset_of(a));
  CHECK_FALSE(a.add(-1));
  CHECK_FALSE(a.add(1024));
}
