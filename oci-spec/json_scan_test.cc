#include "json_scan.h"

#include <doctest/doctest.h>
#include <nlohmann/json.hpp>

#include <string>

using namespace oci;

namespace {

std::optional<std::string_view> only(std::string_view text, MemberPath path) {
  auto found = locate_members(text, {path});
  REQUIRE(found);
  return found->values.at(0);
}

}  // namespace

TEST_CASE("json scan: finds the wanted members' text, nothing else is parsed") {
  const std::string text = R"({"ociVersion":"1.0.2","process":{"args":["sh"],"env":["A=1","B=2"]},
    "linux":{"seccomp":{"syscalls":[{"names":["read"],"action":"SCMP_ACT_ALLOW"}]},
             "devices":[{"path":"/dev/nvidia0","major":195}],"cgroupsPath":"/docker/x"}} )";
  auto found = locate_members(text, {{"process", "env"}, {"linux", "devices"}, {"linux", "cgroupsPath"}, {"mounts"}, {"linux"}});
  REQUIRE(found);
  CHECK(*found->values[0] == R"(["A=1","B=2"])");
  CHECK(*found->values[1] == R"([{"path":"/dev/nvidia0","major":195}])");
  CHECK(*found->values[2] == R"("/docker/x")");
  CHECK_FALSE(found->values[3]);
  CHECK(found->values[4]->front() == '{');
  CHECK(found->values[4]->back() == '}');
  CHECK(text[found->root_close] == '}');
  CHECK(found->root_close == text.size() - 2);
  CHECK_FALSE(found->root_empty);
  CHECK(locate_members(" { } ", {{"hooks"}})->root_empty);
}

TEST_CASE("json scan: the last of duplicate keys wins, and a repeated parent drops what the first held") {
  CHECK(*only(R"({"hooks":{"a":1},"hooks":{"b":2}})", {"hooks"}) == R"({"b":2})");
  // nlohmann keeps the second "linux", which has no devices
  CHECK_FALSE(only(R"({"linux":{"devices":[1]},"linux":{"x":1}})", {"linux", "devices"}));
  CHECK(*only(R"({"linux":{"devices":[1]},"linux":{"devices":[2]}})", {"linux", "devices"}) == "[2]");
  // a parent that is not an object holds nothing
  CHECK_FALSE(only(R"({"linux":[{"devices":[1]}]})", {"linux", "devices"}));
  CHECK_FALSE(only(R"({"linux":null})", {"linux", "devices"}));
  // keys inside arrays or other members are not on the path
  CHECK_FALSE(only(R"({"x":{"linux":{"devices":[1]}},"y":[{"linux":1}]})", {"linux"}));
}

TEST_CASE("json scan: declines what it leaves to nlohmann, and every invalid document") {
  // an escaped key on a followed path: nlohmann compares keys unescaped
  CHECK_FALSE(locate_members(R"({"pro\u0063ess":{"env":[]}})", {{"process", "env"}}));
  // ... but one elsewhere costs nothing
  CHECK(locate_members(R"({"x":{"a\u0062":1},"process":{"env":[]}})", {{"process", "env"}}));
  // valid JSON but not an object: the caller's whole parse says so in its words
  for (const char* other : {"[]", "\"x\"", "1", "null"}) CHECK_FALSE(locate_members(other, {{"a"}}));
  for (const char* bad : {"", " ", "{", "}", "{\"a\"}", "{\"a\":}", "{\"a\":1,}", "{,}",
                          "{\"a\":[1,]}", "{\"a\":01}", "{\"a\":1.}", "{\"a\":.5}", "{\"a\":+1}", "{\"a\":1e}",
                          "{\"a\":-}", "{\"a\":tru}", "{\"a\":nul}", "{\"a\":1e999}", "{\"a\":-1e400}",
                          "{\"a\":\"\\x\"}", "{\"a\":\"\\u12\"}", "{\"a\":\"\\ud800\"}", "{\"a\":\"\\udc00\"}",
                          "{\"a\":\"\\ud800\\u0041\"}", "{\"a\":\"\x01\"}", "{\"a\":\"\xc0\x80\"}",
                          "{\"a\":\"\xed\xa0\x80\"}", "{\"a\":\"\xf4\x90\x80\x80\"}", "{\"a\":\"\xe2\x82\"}",
                          "{} {}", "{}x", "\xef\xbb{}", "{\"a\":1 \"b\":2}", "{\"a\" 1}", "/*c*/{}"}) {
    CAPTURE(std::string(bad));
    CHECK_FALSE(locate_members(bad, {{"a"}}));
    CHECK_FALSE(nlohmann::json::accept(bad));  // the table is of texts nlohmann refuses too
  }
  const std::string nul_inside("{\"a\":\"x\0y\"}", 11);
  CHECK_FALSE(locate_members(nul_inside, {{"a"}}));
}

TEST_CASE("json scan: accepts what nlohmann accepts, in the forms config.json uses") {
  for (const char* good : {"{}", "\xef\xbb\xbf{}", " \t\r\n{ } \n", R"({"a":-0})", R"({"a":1.5e-3})", R"({"a":1E+2})",
                           R"({"a":1e-400})", R"({"a":123456789012345678901234567890})", R"({"a":"\u00e9\ud83d\ude00\u0000"})",
                           "{\"a\":\"\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80\"}", R"({"a":[true,false,null,{},[]]})",
                           R"({"a":"\"\\\/\b\f\n\r\t"})"}) {
    CAPTURE(std::string(good));
    REQUIRE(nlohmann::json::accept(good));
    CHECK(locate_members(good, {{"a"}}));
  }
  CHECK(*only(R"({"a":[[[[{"b":{"c":[1]}}]]]],"z":1})", {"z"}) == "1");
}

TEST_CASE("json scan: an array's object elements, each as its text") {
  auto e = object_elements(R"( [ {"a":"}"} , {"b":[1,{"c":2}]},{} ] )");
  REQUIRE(e);
  REQUIRE(e->size() == 3);
  CHECK((*e)[0] == R"({"a":"}"})");
  CHECK((*e)[1] == R"({"b":[1,{"c":2}]})");
  CHECK((*e)[2] == "{}");
  CHECK(object_elements("[]")->empty());
  CHECK_FALSE(object_elements(R"([{"a":1}, 2])"));   // an element that is not an object
  CHECK_FALSE(object_elements(R"({"a":1})"));        // not an array
  CHECK_FALSE(object_elements(R"([{"a":1} {"b":2}])"));  // no comma
  CHECK_FALSE(object_elements(R"([{"a":1}] x)"));    // text after it
  CHECK_FALSE(object_elements(R"([{"a":"1])"));      // a string that never ends
}

TEST_CASE("json scan: a special byte at every place of a long string, as nlohmann sees it") {
  // Strings are scanned eight bytes at a time: a quote, a backslash, a control character or a byte
  // above ASCII must be found wherever it falls in a word, and so must the string's end.
  const std::string specials[] = {"\x01", "\x1f", "\x7f", "\\\"", "\\\\", "\\n", "\\u00e9", "\xc3\xa9", "\x80",
                                  "\xff", "\xe2\x82", " ", "~", "!", "#", "[", "]", "]\"", std::string(1, '\0')};
  for (size_t len = 0; len <= 24; ++len) {
    for (size_t at = 0; at <= len; ++at) {
      for (const std::string& special : specials) {
        const std::string value = std::string(at, 'a') + special + std::string(len - at, 'b');
        const std::string text = "{\"a\":\"" + value + "\",\"z\":1}";
        CAPTURE(text);
        const bool valid = nlohmann::json::accept(text);
        auto found = locate_members(text, {{"a"}, {"z"}});
        REQUIRE(found.has_value() == valid);
        if (valid) {
          CHECK(*found->values[0] == "\"" + value + "\"");
          CHECK(*found->values[1] == "1");
        }
      }
    }
  }
}

// A wanted key twice in one object, or in another case, is flagged for member_check.h to name;
// keys off the wanted paths, and the same key in two different objects, are not.
TEST_CASE("json scan: a wanted key twice or in another case makes the text ambiguous") {
  auto ambiguous = [](std::string_view text) {
    auto found = locate_members(text, {{"linux", "devices"}, {"process"}});
    REQUIRE(found);
    return found->ambiguous;
  };
  CHECK(ambiguous(R"({"linux":{"devices":[]},"linux":{}})"));
  CHECK(ambiguous(R"({"linux":{"devices":[],"devices":[]}})"));
  CHECK(ambiguous(R"({"LINUX":{"devices":[]}})"));
  CHECK(ambiguous(R"({"linux":{"Devices":[]}})"));
  CHECK(ambiguous(R"({"process":1,"Process":2})"));
  CHECK(ambiguous("{\"proce\xC5\xBFs\":1}"));  // U+017F, which Go folds to s
  CHECK_FALSE(ambiguous(R"({"linux":{"devices":[{"devices":1,"devices":2}]},"process":{"linux":1,"LINUX":2}})"));
  CHECK_FALSE(ambiguous(R"({"root":1,"root":2,"linux":{"sysctl":1,"Sysctl":2},"processes":1,"linu":1})"));
}
