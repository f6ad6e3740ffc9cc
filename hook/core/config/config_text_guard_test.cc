#include <doctest/doctest.h>

#include "config/config.h"
#include "config/config_text_guard.h"
#include "base/error.h"

using namespace gnh;

namespace {
std::string refusal(const std::string& text) {
  try {
    check_config_text(text, "c.toml");
  } catch (const Failure& f) {
    return f.what();
  }
  return "";
}
const std::string kOnlyComments = ": non-ASCII text is accepted only in comments (# at a line's start or after a blank)";
}  // namespace

TEST_CASE("config text guard: non-ASCII where toml++ 3.3 would reach unreachable code is refused") {
  CHECK(refusal("\xc3\xa9 = 1\n") == "config c.toml: line 1, column 1" + kOnlyComments);
  CHECK(refusal("[log]\na = \xc3\xa9\n") == "config c.toml: line 2, column 5" + kOnlyComments);
  CHECK(refusal("[log]\nfile = \"/x\"\xc3\xa9\n") == "config c.toml: line 2, column 12" + kOnlyComments);
  CHECK(refusal("s = \"\"\"\\\n\xc2\xa7\"\"\"\n") == "config c.toml: line 2, column 1" + kOnlyComments);
  // A quote glued to a number is no string to toml++: its number scanner reads on through it.
  CHECK(refusal("s = 1\"\xc3\xa9\"\n") == "config c.toml: line 1, column 7" + kOnlyComments);
  CHECK(refusal("s = 1'\xc3\xa9'\n") == "config c.toml: line 1, column 7" + kOnlyComments);
  // The fuzzer's finds (tests/fuzz/corpus/fuzz_config/regression-*).
  CHECK(refusal("[policy]\naffide = \xc8\xba" "8\n") == "config c.toml: line 2, column 10" + kOnlyComments);
  CHECK(refusal("q =2\\ll\\\"3\\ b=\\\"\\b=\"\xcd\xa5\"\n") != "");
  // Strings with non-ASCII are refused too: no value this config takes needs it.
  CHECK(refusal("[log]\nfile = \"/var/log/Jos\xc3\xa9.log\"\n") == "config c.toml: line 2, column 21" + kOnlyComments);
  CHECK(refusal("[log]\nfile = \"#\" # \xc3\xa9\n") != "");  // a quote before the '#': cannot tell
  CHECK(refusal("[log]# \xc3\xa9\n") != "");                 // '#' glued to a token
  CHECK(refusal("x = '''\n# \xc3\xa9\n'''\n") != "");          // a '#' line inside a multi-line string
}

TEST_CASE("config text guard: ASCII files and non-ASCII comments pass") {
  CHECK(refusal("[policy]\non-error = \"refuse\" # '#\" \n") == "");
  CHECK(refusal("# /etc/gpu-numa-hook/config.toml \xe2\x80\x94 Jos\xc3\xa9's hosts\n  # \xc3\xa9\n[log] # \xc3\xa9\n"
                "deadline-ms = 5000\t# millisek\xc3\xbcnden\n") == "");
  CHECK(refusal("a = [ # \xc3\xa9\n  1,\n]\n") == "");
  // And parse_config runs it first.
  CHECK_THROWS_WITH_AS(parse_config("[log]\nfile = \xc3\xa9\n", "c.toml"), ("config c.toml: line 2, column 8" + kOnlyComments).c_str(),
                       Failure);
}
