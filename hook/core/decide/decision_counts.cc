#include "decide/decision_counts.h"

#include <cstdio>
#include <limits>

namespace gnh {

namespace {

constexpr std::string_view kHeader = "# gpu-numa-hook decisions since boot (check --prometheus exports them)";
constexpr size_t kDigits = 20;

std::optional<size_t> index_of(std::string_view action) {
  for (size_t i = 0; i < kCountedDecisions.size(); ++i)
    if (action == kCountedDecisions[i]) return i;
  return std::nullopt;
}

}  // namespace

bool DecisionCounts::add(std::string_view action) {
  auto i = index_of(action);
  if (!i) return false;
  ++n[*i];
  return true;
}

uint64_t DecisionCounts::of(std::string_view action) const {
  auto i = index_of(action);
  return i ? n[*i] : 0;
}

std::optional<std::string> counted_decision(const Verdict& v) {
  if (v.action != "allow") return index_of(v.action) ? std::optional<std::string>(v.action) : std::nullopt;
  if (v.level == "error") return std::string("error");  // verdict_for_error under on-error=allow
  return std::nullopt;
}

std::string format_decision_counts(const DecisionCounts& c) {
  std::string s(kHeader);
  s += "\n";
  for (size_t i = 0; i < kCountedDecisions.size(); ++i) {
    char digits[kDigits + 1];
    std::snprintf(digits, sizeof digits, "%020llu", static_cast<unsigned long long>(c.n[i]));
    s += std::string(kCountedDecisions[i]) + " " + digits + "\n";
  }
  return s;
}

std::optional<DecisionCounts> parse_decision_counts(std::string_view text) {
  DecisionCounts c;
  bool header = false;
  while (!text.empty()) {
    size_t nl = text.find('\n');
    std::string_view line = text.substr(0, nl);
    text = nl == std::string_view::npos ? std::string_view() : text.substr(nl + 1);
    if (line.empty()) continue;
    if (!header) {
      if (line != kHeader) return std::nullopt;
      header = true;
      continue;
    }
    size_t sp = line.find(' ');
    if (sp == std::string_view::npos) return std::nullopt;
    std::string_view digits = line.substr(sp + 1);
    if (digits.empty() || digits.size() > kDigits || digits.find_first_not_of("0123456789") != std::string_view::npos)
      return std::nullopt;
    uint64_t v = 0;
    for (char d : digits) {
      const uint64_t digit = uint64_t(d - '0');
      if (v > (std::numeric_limits<uint64_t>::max() - digit) / 10) return std::nullopt;  // past uint64
      v = v * 10 + digit;
    }
    if (auto i = index_of(line.substr(0, sp))) c.n[*i] = v;
  }
  if (!header) return std::nullopt;
  return c;
}

std::string counted_once_more(std::string_view old_text, std::string_view action) {
  DecisionCounts c = parse_decision_counts(old_text).value_or(DecisionCounts{});
  c.add(action);
  return format_decision_counts(c);
}

}  // namespace gnh
