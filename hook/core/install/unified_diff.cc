#include <algorithm>
#include <vector>

#include "install/config_edit.h"

namespace gnh {

namespace {

std::vector<std::string> lines_of(std::string_view s) {
  std::vector<std::string> out;
  size_t pos = 0;
  while (pos < s.size()) {
    size_t nl = s.find('\n', pos);
    if (nl == std::string_view::npos) nl = s.size();
    out.emplace_back(s.substr(pos, nl - pos));
    pos = nl + 1;
  }
  return out;
}

}  // namespace

// Longest common subsequence by dynamic programming: configuration files are small (the
// quadratic table of a 2,000-line file is 4 M cells).
std::string unified_diff(std::string_view before, std::string_view after, const std::string& from_name,
                         const std::string& to_name) {
  if (before == after) return "";
  auto a = lines_of(before), b = lines_of(after);
  const size_t n = a.size(), m = b.size();
  std::vector<std::vector<int>> lcs(n + 1, std::vector<int>(m + 1, 0));
  for (size_t i = n; i-- > 0;)
    for (size_t j = m; j-- > 0;)
      lcs[i][j] = a[i] == b[j] ? lcs[i + 1][j + 1] + 1 : std::max(lcs[i + 1][j], lcs[i][j + 1]);
  // The edit script: ' ' kept, '-' removed, '+' added, with each line's position in a and b.
  struct Op { char kind; size_t ai, bi; };
  std::vector<Op> ops;
  size_t i = 0, j = 0;
  while (i < n || j < m) {
    if (i < n && j < m && a[i] == b[j]) ops.push_back({' ', i++, j++});
    else if (i < n && (j == m || lcs[i + 1][j] >= lcs[i][j + 1])) ops.push_back({'-', i++, j});  // removals first, as diff -u
    else ops.push_back({'+', i, j++});
  }
  std::string out = "--- " + from_name + "\n+++ " + to_name + "\n";
  const size_t ctx = 3;
  size_t k = 0;
  while (k < ops.size()) {
    if (ops[k].kind == ' ') { ++k; continue; }
    size_t start = k >= ctx ? k - ctx : 0;
    size_t end = k;  // extend while changes are within 2*ctx of each other
    size_t last_change = k;
    while (end < ops.size()) {
      if (ops[end].kind != ' ') last_change = end;
      else if (end - last_change > 2 * ctx) break;
      ++end;
    }
    end = std::min(ops.size(), last_change + ctx + 1);
    size_t a_start = ops[start].ai, b_start = ops[start].bi, a_len = 0, b_len = 0;
    std::string body;
    for (size_t x = start; x < end; ++x) {
      const Op& op = ops[x];
      const std::string& text = op.kind == '+' ? b[op.bi] : a[op.ai];
      body += op.kind + text + "\n";
      if (op.kind != '+') ++a_len;
      if (op.kind != '-') ++b_len;
    }
    out += "@@ -" + std::to_string(a_len ? a_start + 1 : a_start) + "," + std::to_string(a_len) + " +" +
           std::to_string(b_len ? b_start + 1 : b_start) + "," + std::to_string(b_len) + " @@\n" + body;
    k = end;
  }
  return out;
}

}  // namespace gnh
