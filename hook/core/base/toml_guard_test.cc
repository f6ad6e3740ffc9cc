// The texts toml++ 3.3.0 would meet with an assumption (undefined behaviour) instead of an error.
#include "base/toml_guard.h"

#include <doctest/doctest.h>

using namespace gnh;

TEST_CASE("toml guard: a table header that does not start with a key is refused with its line and column") {
  for (const char* bad : {"[[[", "[=]", "[.a]", "[ .\"x\"]", "[#]", "[[#", "[\r\n", "[[\t=]]", "[,]", "[\n", "a = 1\n  [ =b]\n"}) {
    CAPTURE(bad);
    TextPosition p = first_toml_assumption(bad);
    CHECK(p.line >= 1);
    CHECK_THROWS_AS(parse_toml_text(bad, "f.toml"), toml::parse_error);
  }
  TextPosition p = first_toml_assumption("version = 2\n\n  [[ =x]]\n");
  CHECK(p.line == 3);
  CHECK(p.column == 6);
  try {
    (void)parse_toml_text("version = 2\n[.a]\n", "/etc/containerd/config.toml");
    FAIL("no error");
  } catch (const toml::parse_error& e) {
    CHECK(e.source().begin.line == 2);
    CHECK(e.source().begin.column == 2);
    CHECK(*e.source().path == "/etc/containerd/config.toml");
    CHECK(std::string(e.description()) == "Error while parsing table header: a table name must start with a key");
  }
}

TEST_CASE("toml guard: valid headers, toml++'s own errors, and text inside multi-line strings pass to toml++") {
  for (const char* fine : {"[a]", "[[a]]", "['a'.\"b\"]", "[1]", "[ a ]", "[]", "[[ ]]", "[", "[[", "[ ",
                           "a = \"\"\"\n[=]\n\"\"\"\n", "a = '''\n[.x\n'''\n[b]\n", "x = [1, 2]\n", "  # [=]\n",
                           "a = [\n  [\n    1\n  ],\n  [+1, {b = 2}],\n]\n[t]\n", "s = \"[=]\"\n[u]\n",
                           "a = { b = [\n [=\"x\"] ] }\n"}) {
    CAPTURE(fine);
    CHECK(first_toml_assumption(fine).line == 0);
  }
  CHECK(parse_toml_text("version = 2\n[plugins.\"io.containerd.nri.v1.nri\"]\n  disable = false\n", "f")["version"]
            .value<long long>() == 2);
  CHECK_THROWS_AS(parse_toml_text("[]", "f"), toml::parse_error);  // toml++'s own error, unchanged
}

TEST_CASE("toml guard: a '}' where an array's value belongs is refused with its line and column") {
  // found by fuzz_config: toml++ asserts (NDEBUG: assumes) that a value does not start with '}'
  for (const char* bad : {"a = [}", "a = [1,}", "a = [\n}", "a = [#x\n}", "a = [[1],}", "a = { b = [ } ]",
                          "a = [\n  [\n    1\n  ],\n}>>eeee>>>\n"}) {
    CAPTURE(bad);
    CHECK(first_toml_assumption(bad).line >= 1);
    CHECK_THROWS_AS(parse_toml_text(bad, "f.toml"), toml::parse_error);
  }
  TextPosition p = first_toml_assumption("x = 1\ny = [\n  2,\n  }\n");
  CHECK(p.line == 4);
  CHECK(p.column == 3);
  CHECK(std::string(p.what) == "Error while parsing array: expected a value or ']', saw '}'");
  // a '}' closing an inline table inside an array, and in strings and comments, is fine
  for (const char* fine : {"a = [{b = 1}, {c = [2]}]", "a = [\"}\", '}']", "a = [ # }\n 1]", "a = {]", "a = [1\n}"}) {
    CAPTURE(fine);
    CHECK(first_toml_assumption(fine).line == 0);
  }
}
