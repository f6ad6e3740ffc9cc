#include "base/duration.h"

#include <doctest/doctest.h>

using namespace gnh;

namespace {
std::string why_of(std::string_view text) {
  std::string why;
  CHECK(!parse_duration_seconds(text, &why));
  return why;
}
double seconds(std::string_view text) {
  std::string why;
  auto v = parse_duration_seconds(text, &why);
  REQUIRE_MESSAGE(v, why);
  return *v;
}
}  // namespace

TEST_CASE("durations: units, and a plain number is seconds") {
  CHECK(seconds("300") == 300);
  CHECK(seconds("0") == 0);
  CHECK(seconds("2.5") == 2.5);
  CHECK(seconds("30s") == 30);
  CHECK(seconds("5m") == 300);
  CHECK(seconds("1500ms") == doctest::Approx(1.5));
  CHECK(seconds("1h") == 3600);
  CHECK(seconds("168h") == 7 * 24 * 3600);
}

TEST_CASE("durations: one line saying what is wrong, never a range of hundreds of digits") {
  const std::string expected = "; expected a duration such as 90s, 5m, 1500ms, 1h or plain seconds";
  CHECK(why_of("-1") == "'-1' is negative" + expected);
  CHECK(why_of("") == "'' is not a number" + expected);
  CHECK(why_of("soon") == "'soon' is not a number" + expected);
  CHECK(why_of("5min") == "'5min' has an unknown unit 'min'" + expected);
  CHECK(why_of("1m30s") == "'1m30s' has an unknown unit 'm30s'" + expected);
  CHECK(why_of("1e3") == "'1e3' has an unknown unit 'e3'" + expected);
  CHECK(why_of("5 m") == "'5 m' has an unknown unit ' m'" + expected);
  CHECK(why_of("169h") == "'169h' is longer than a week (7d)");
  CHECK(why_of("99999999999999999999") == "'99999999999999999999' is longer than a week (7d)");
  CHECK(why_of(std::string(5000, '9')) == "'" + std::string(40, '9') + "...' is longer than a week (7d)");
  CHECK(why_of("1.2.3") == "'1.2.3' has an unknown unit '.3'" + expected);
}
