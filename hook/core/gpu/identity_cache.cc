#include "gpu/identity_cache.h"

#include <algorithm>
#include <cctype>

#include "gpu/driver_files.h"

namespace gnh {

namespace {

constexpr std::string_view kHeader = "gpu-numa-hook gpu-identities 1\n";

bool all_of(std::string_view s, bool (*ok)(char)) {
  for (char c : s)
    if (!ok(c)) return false;
  return true;
}
bool bus_char(char c) { return std::isxdigit(static_cast<unsigned char>(c)) || c == ':' || c == '.'; }
bool boot_id_char(char c) { return std::isxdigit(static_cast<unsigned char>(c)) || c == '-'; }
bool digit(char c) { return c >= '0' && c <= '9'; }

// A decimal without sign, leading zeros or overflow.
std::optional<uint64_t> decimal(std::string_view s) {
  if (s.empty() || s.size() > 20 || !all_of(s, digit) || (s.size() > 1 && s[0] == '0')) return std::nullopt;
  uint64_t v = 0;
  for (char c : s) {
    const uint64_t d = static_cast<uint64_t>(c - '0');
    if (v > (UINT64_MAX - d) / 10) return std::nullopt;
    v = v * 10 + d;
  }
  return v;
}

// The next line without its '\n'; nullopt when no '\n' ends it.
std::optional<std::string_view> line(std::string_view text, size_t& at) {
  const size_t end = text.find('\n', at);
  if (end == std::string_view::npos) return std::nullopt;
  std::string_view l = text.substr(at, end - at);
  at = end + 1;
  return l;
}

// Splits "a b c d" on single blanks into exactly n words.
bool words(std::string_view l, std::string_view* out, size_t n) {
  for (size_t k = 0; k < n; ++k) {
    const size_t blank = l.find(' ');
    if (k + 1 < n) {
      if (blank == std::string_view::npos) return false;
      out[k] = l.substr(0, blank);
      l.remove_prefix(blank + 1);
    } else {
      if (blank != std::string_view::npos) return false;
      out[k] = l;
    }
    if (out[k].empty()) return false;
  }
  return true;
}

}  // namespace

bool is_gpu_uuid(std::string_view text) {
  constexpr std::string_view kForm = "GPU-xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx";
  if (text.size() != kForm.size() || text.substr(0, 4) != kForm.substr(0, 4)) return false;
  for (size_t i = 4; i < kForm.size(); ++i)
    if (kForm[i] == '-' ? text[i] != '-' : !std::isxdigit(static_cast<unsigned char>(text[i]))) return false;
  return true;
}

bool cacheable_information(std::string_view information) {
  auto info = parse_gpu_information(information);
  return info && is_gpu_uuid(info->uuid);
}

const CachedInformation* IdentityCache::find(std::string_view dir) const {
  auto it = std::lower_bound(gpus.begin(), gpus.end(), dir,
                             [](const CachedInformation& g, std::string_view d) { return g.dir < d; });
  return it != gpus.end() && it->dir == dir ? &*it : nullptr;
}

std::string identity_cache_text(const IdentityCache& cache) {
  std::string out(kHeader);
  out += "boot-id " + cache.boot_id + "\n";
  for (const auto& g : cache.gpus) {
    out += "gpu " + g.dir + " " + std::to_string(g.binding) + " " + std::to_string(g.information.size()) + "\n";
    out += g.information;
    out += "\n";
  }
  return out;
}

std::optional<IdentityCache> parse_identity_cache(std::string_view text, std::string* why) {
  auto bad = [&](const std::string& w) -> std::optional<IdentityCache> {
    if (why) *why = w;
    return std::nullopt;
  };
  if (text.size() > kMaxIdentityCacheBytes)
    return bad("larger than " + std::to_string(kMaxIdentityCacheBytes) + " bytes");
  if (text.substr(0, kHeader.size()) != kHeader) return bad("not a gpu-identities file of format 1");
  size_t at = kHeader.size();
  IdentityCache cache;
  auto boot = line(text, at);
  if (!boot || boot->substr(0, 8) != "boot-id " || boot->size() < 9 || boot->size() > 8 + 64 ||
      !all_of(boot->substr(8), boot_id_char))
    return bad("line 2: not \"boot-id <id>\"");
  cache.boot_id = std::string(boot->substr(8));
  while (at < text.size()) {
    const std::string where = "GPU record " + std::to_string(cache.gpus.size() + 1);
    if (cache.gpus.size() == kMaxCachedIdentities) return bad("more than " + std::to_string(kMaxCachedIdentities) + " GPUs");
    auto l = line(text, at);
    std::string_view w[4];
    if (!l || !words(*l, w, 4) || w[0] != "gpu") return bad(where + ": not \"gpu <dir> <binding> <bytes>\"");
    if (w[1].size() > 32 || !all_of(w[1], bus_char)) return bad(where + ": directory '" + std::string(w[1].substr(0, 32)) + "' is not a PCI address");
    auto binding = decimal(w[2]);
    auto size = decimal(w[3]);
    if (!binding || *binding == 0) return bad(where + ": binding is not a positive decimal");
    if (!size || *size > kMaxCachedInformationBytes) return bad(where + ": byte count is not a decimal up to " + std::to_string(kMaxCachedInformationBytes));
    if (text.size() - at < *size + 1 || text[at + *size] != '\n') return bad(where + ": the text is cut short");
    cache.gpus.push_back({std::string(w[1]), *binding, std::string(text.substr(at, *size))});
    at += *size + 1;
  }
  // Sorted by directory for find's binary search: a 64-GPU node looked each GPU up in a list.
  std::vector<size_t> order(cache.gpus.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) { return cache.gpus[a].dir < cache.gpus[b].dir; });
  for (size_t i = 1; i < order.size(); ++i)
    if (cache.gpus[order[i]].dir == cache.gpus[order[i - 1]].dir)
      return bad("GPU record " + std::to_string(std::max(order[i], order[i - 1]) + 1) + ": directory " +
                 cache.gpus[order[i]].dir + " twice");
  std::vector<CachedInformation> sorted;
  sorted.reserve(order.size());
  for (size_t i : order) sorted.push_back(std::move(cache.gpus[i]));
  cache.gpus = std::move(sorted);
  return cache;
}

}  // namespace gnh
