#include "decide/decision_counts.h"

#include <doctest/doctest.h>

using namespace gnh;

namespace {
Verdict verdict(std::string action, std::string level) {
  Verdict v;
  v.action = std::move(action);
  v.level = std::move(level);
  return v;
}
}  // namespace

TEST_CASE("decision counts: a plain allow is not counted - patch, refuse, warn and a hook error let through are") {
  CHECK(counted_decision(verdict("allow", "info")) == std::nullopt);
  CHECK(counted_decision(verdict("allow", "warn")) == std::nullopt);  // config problems raise the level later
  CHECK(counted_decision(verdict("patch", "info")) == "patch");
  CHECK(counted_decision(verdict("patch", "warn")) == "patch");       // systemd not told
  CHECK(counted_decision(verdict("refuse", "error")) == "refuse");
  CHECK(counted_decision(verdict("warn", "warn")) == "warn");
  CHECK(counted_decision(verdict("allow", "error")) == "error");      // on-error=allow
  CHECK(counted_decision(verdict_for_error("c1", "stdin closed", OnErrorPolicy::allow)) == "error");
  CHECK(counted_decision(verdict_for_error("c1", "stdin closed", OnErrorPolicy::refuse)) == "refuse");
  CHECK(counted_decision(verdict("something-new", "info")) == std::nullopt);
}

TEST_CASE("decision counts: fixed-width text, the same length whatever the counts") {
  DecisionCounts c;
  std::string zero = format_decision_counts(c);
  CHECK(zero ==
        "# gpu-numa-hook decisions since boot (check --prometheus exports them)\n"
        "patch 00000000000000000000\n"
        "refuse 00000000000000000000\n"
        "warn 00000000000000000000\n"
        "error 00000000000000000000\n");
  c.n = {3, 18446744073709551615ULL, 0, 7};
  std::string full = format_decision_counts(c);
  CHECK(full.size() == zero.size());
  CHECK(full.find("refuse 18446744073709551615\n") != std::string::npos);
  auto back = parse_decision_counts(full);
  REQUIRE(back);
  CHECK(back->n == c.n);
  CHECK(back->of("patch") == 3);
  CHECK(back->of("error") == 7);
  CHECK(back->of("allow") == 0);
}

TEST_CASE("decision counts: parsing skips blank padding, ignores unknown names, rejects what is not the file") {
  const std::string head = "# gpu-numa-hook decisions since boot (check --prometheus exports them)\n";
  auto padded = parse_decision_counts(head + "patch 00000000000000000002\n\n\n\nrefuse 1\nfuture 5\n\n");
  REQUIRE(padded);
  CHECK(padded->of("patch") == 2);
  CHECK(padded->of("refuse") == 1);
  CHECK(padded->of("warn") == 0);
  CHECK(parse_decision_counts(head) != std::nullopt);                       // nothing counted yet
  CHECK(parse_decision_counts("") == std::nullopt);
  CHECK(parse_decision_counts("patch 1\n") == std::nullopt);                 // no header
  CHECK(parse_decision_counts(head + "patch -1\n") == std::nullopt);
  CHECK(parse_decision_counts(head + "patch 1x\n") == std::nullopt);
  CHECK(parse_decision_counts(head + "patch\n") == std::nullopt);
  CHECK(parse_decision_counts(head + "patch \n") == std::nullopt);
  CHECK(parse_decision_counts(head + "patch 18446744073709551616\n") == std::nullopt);  // past uint64
  CHECK(parse_decision_counts(head + "patch 000000000000000000001\n") == std::nullopt);  // 21 digits
}

TEST_CASE("decision counts: one more, from nothing, from a count, and from a damaged file (from zero)") {
  std::string t = counted_once_more("", "refuse");
  CHECK(parse_decision_counts(t)->of("refuse") == 1);
  t = counted_once_more(t, "refuse");
  t = counted_once_more(t, "patch");
  auto c = parse_decision_counts(t);
  CHECK(c->of("refuse") == 2);
  CHECK(c->of("patch") == 1);
  CHECK(t.size() == format_decision_counts({}).size());
  CHECK(parse_decision_counts(counted_once_more("garbage\n", "warn"))->n == DecisionCounts{{0, 0, 1, 0}}.n);
}
