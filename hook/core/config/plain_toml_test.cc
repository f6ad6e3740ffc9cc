#include "config/plain_toml.h"

#include <doctest/doctest.h>

#include <fstream>
#include <sstream>
#include <string>

#include "config/config.h"

namespace {

// Accepted, and the same table toml++ builds.
void check_same_as_tomlpp(const std::string& text) {
  INFO("text: " << text);
  auto plain = gnh::parse_plain_toml(text);
  REQUIRE(plain.has_value());
  CHECK(*plain == toml::parse(text));
}

}  // namespace

TEST_CASE("plain TOML: the shipped config is read without toml++, to the table toml++ reads") {
  std::ifstream file(std::string(GNH_SOURCE_DIR) + "/config/config.toml");
  std::stringstream shipped;
  shipped << file.rdbuf();
  REQUIRE(shipped.str().size() > 1000);
  check_same_as_tomlpp(shipped.str());
  // and the Config it gives is the one toml++'s table gives (no problem, so no second parse)
  gnh::Config c = gnh::parse_config(shipped.str(), "config.toml");
  CHECK(c.problems.empty());
  CHECK(c.runtime.next == std::vector<std::string>{"runc", "crun"});
  CHECK(c.log.file == "/var/log/gpu-numa-hook.log");
}

TEST_CASE("plain TOML: each plain form, as toml++ reads it") {
  for (const char* text : {
           "",
           "\n\n# only a comment\n",
           "a = 1",
           "a = 1\n",
           "a=1\nb=-5\nc=+7\nd=0\ne=-0\nf=999999999999999999\n",
           "[t]\nk = \"v\"\n",
           "  [ t ]  # comment\n\tk\t=\t'lit \"q\" \\ no escape'\t# c\n",
           "x = true\ny = false\n",
           "[a]\n[b]\nk = 1\n[c]\n",
           "n = []\nm = [ ]\no = [\"runc\", 'crun' , \"x\",]\n",
           "top = 1\n[t]\ntop = 2\n",
           "key-with_dash-09 = \"\"\n",
           "1234 = 5\n",
           "s = \"# not a comment\" # a comment with \"quotes\" and 'more' # and hashes\n",
           "# caf\xc3\xa9 \xe2\x80\x94 \xf0\x9f\x98\x80\ta = 1\nb = 2 # \xc2\xa0\n",
       })
    check_same_as_tomlpp(text);
}

TEST_CASE("plain TOML: anything else is left to toml++") {
  for (const char* text : {
           "a.b = 1\n",              // dotted key
           "\"a\" = 1\n",            // quoted key
           "a = \"x\\ty\"\n",        // an escape
           "a = 1.5\n",              // float
           "a = 1_000\n",            // underscore
           "a = 0x1F\n",             // hex
           "a = 012\n",              // leading zero (toml++'s error)
           "a = 1234567890123456789\n",  // 19 digits
           "a = 77777777777777777777777777777777777777\n",  // far past int64 (no overflow on the way)
           "a = 1979-05-27\n",       // a date
           "a = {b = 1}\n",          // inline table
           "[[t]]\nk = 1\n",         // array of tables
           "[t.u]\n",                // dotted table
           "a = [\n\"x\"\n]\n",      // multi-line array
           "a = [1, 2]\n",           // not strings
           "a = 1\r\n",              // CR
           "a = \"x\ty\"\n",         // a tab in a string
           "a = \"caf\xc3\xa9\"\n",  // non-ASCII
           "# caf\xc3\x28\n",        // bad UTF-8 in a comment
           "# \xc2\x85 C1\n",          // a C1 control in a comment
           "# \xed\xa0\x80\n",         // a surrogate in a comment
           "# \xc0\xaf\n",             // an overlong form in a comment
           "# \x01\n",                 // a control character in a comment
           "a = \"\"\"x\"\"\"\n",    // multi-line string
           "a = \"x\"#glued\n",      // a comment glued to a value
           "a = truex\n",            // not a bool
           "a = \n",                 // no value
           "a = 1\na = 2\n",         // a key twice (toml++'s error)
           "[t]\n[t]\n",             // a table twice (toml++'s error)
           "t = 1\n[t]\n",           // a key, then a table of its name
           "= 1\n",                  // no key
           "[]\n",                   // no table name
           "a = \"open\n",           // unterminated
           "a = 1 b = 2\n",          // two on a line
       }) {
    INFO("text: " << text);
    CHECK_FALSE(gnh::parse_plain_toml(text).has_value());
  }
}

TEST_CASE("plain TOML: a config problem still names its line (read again with toml++)") {
  gnh::Config c = gnh::parse_config("# one\n\n[policy]\nbogus = 1\non-error = \"refuse\"\n", "c.toml");
  REQUIRE(c.problems.size() == 1);
  CHECK(gnh::describe(c.problems[0]).find("config c.toml: line 4: policy.bogus: unknown key") == 0);
  CHECK(c.policy.on_error == gnh::OnErrorPolicy::refuse);
}
