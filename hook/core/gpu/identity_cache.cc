#include "gpu/identity_cache.h"

#include <algorithm>

#include "gpu/driver_files.h"

namespace gnh {

namespace {

constexpr std::string_view kHeader = "gpu-numa-hook gpu-identities 2\n";

// Plain tests, not <cctype>'s: a start parses up to 64 records, and the locale's table lookup
// through a call per character was a tenth of it.
template <class Ok>
bool all_of(std::string_view s, Ok ok) {
  for (char c : s)
    if (!ok(c)) return false;
  return true;
}
bool digit(char c) { return c >= '0' && c <= '9'; }
bool hex_digit(char c) { return digit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F'); }
bool bus_char(char c) { return hex_digit(c) || c == ':' || c == '.'; }
bool boot_id_char(char c) { return hex_digit(c) || c == '-'; }
bool printable(char c) { return c >= 0x20 && c <= 0x7e; }

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

// Splits l on single blanks into n non-empty words, the last being the rest of the line (which may
// hold blanks, or be empty).
bool words(std::string_view l, std::string_view* out, size_t n) {
  for (size_t k = 0; k + 1 < n; ++k) {
    const size_t blank = l.find(' ');
    if (blank == std::string_view::npos || blank == 0) return false;
    out[k] = l.substr(0, blank);
    l.remove_prefix(blank + 1);
  }
  out[n - 1] = l;
  return true;
}

}  // namespace

bool is_gpu_uuid(std::string_view text) {
  constexpr std::string_view kForm = "GPU-xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx";
  if (text.size() != kForm.size() || text.substr(0, 4) != kForm.substr(0, 4)) return false;
  for (size_t i = 4; i < kForm.size(); ++i)
    if (kForm[i] == '-' ? text[i] != '-' : !hex_digit(text[i])) return false;
  return true;
}

std::optional<GpuIdentity> gpu_identity(std::string_view dir, std::string_view information, std::string* why) {
  auto info = parse_gpu_information(information, why);
  if (!info) return std::nullopt;
  GpuIdentity id;
  id.dir = std::string(dir);
  id.minor = *info->minor;
  id.uuid = std::move(info->uuid);
  auto canon = canonical_pci_address(info->bus_location.empty() ? dir : std::string_view(info->bus_location));
  id.bus_id = canon ? *canon : std::string(dir);
  id.model = info->model.substr(0, kMaxModelBytes);
  for (char& c : id.model)
    if (!printable(c)) c = '?';
  return id;
}

const CachedIdentity* IdentityCache::find(std::string_view dir) const {
  auto it = std::lower_bound(gpus.begin(), gpus.end(), dir,
                             [](const CachedIdentity& g, std::string_view d) { return g.identity.dir < d; });
  return it != gpus.end() && it->identity.dir == dir ? &*it : nullptr;
}

std::string identity_cache_text(const IdentityCache& cache) {
  std::vector<const CachedIdentity*> sorted;
  for (const auto& g : cache.gpus) sorted.push_back(&g);
  std::sort(sorted.begin(), sorted.end(),
            [](const CachedIdentity* a, const CachedIdentity* b) { return a->identity.dir < b->identity.dir; });
  std::string out(kHeader);
  out += "boot-id " + cache.boot_id + "\n";
  for (const CachedIdentity* g : sorted) {
    const GpuIdentity& id = g->identity;
    out += "gpu " + id.dir + " " + std::to_string(g->binding) + " " + std::to_string(id.minor) + " " + id.uuid + " " +
           id.bus_id + " " + id.model + "\n";
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
  if (text.substr(0, kHeader.size()) != kHeader) return bad("not a gpu-identities file of format 2");
  size_t at = kHeader.size();
  IdentityCache cache;
  auto boot = line(text, at);
  if (!boot || boot->substr(0, 8) != "boot-id " || boot->size() < 9 || boot->size() > 8 + 64 ||
      !all_of(boot->substr(8), boot_id_char))
    return bad("line 2: not \"boot-id <id>\"");
  cache.boot_id = std::string(boot->substr(8));
  cache.gpus.reserve(std::min<size_t>(kMaxCachedIdentities, size_t(std::count(text.begin() + at, text.end(), '\n'))));
  while (at < text.size()) {
    auto where = [&] { return "GPU record " + std::to_string(cache.gpus.size() + 1); };
    if (cache.gpus.size() == kMaxCachedIdentities) return bad("more than " + std::to_string(kMaxCachedIdentities) + " GPUs");
    auto l = line(text, at);
    std::string_view w[7];
    if (!l || !words(*l, w, 7) || w[0] != "gpu")
      return bad(where() + ": not \"gpu <dir> <binding> <minor> <uuid> <bus-id> <model>\"");
    for (size_t k : {1, 5})
      if (w[k].size() > 32 || !all_of(w[k], bus_char))
        return bad(where() + ": " + (k == 1 ? "directory" : "bus id") + " '" + std::string(w[k].substr(0, 32)) +
                   "' is not a PCI address");
    // In directory order, each once, as written: find's binary search needs no sort at each start.
    if (!cache.gpus.empty() && !(cache.gpus.back().identity.dir < w[1]))
      return bad(where() + ": directory " + std::string(w[1]) + " is not after " + cache.gpus.back().identity.dir +
                 " (the records are in directory order, each GPU once)");
    auto binding = decimal(w[2]);
    auto minor = decimal(w[3]);
    if (!binding || *binding == 0) return bad(where() + ": binding is not a positive decimal");
    if (!minor || *minor > 254) return bad(where() + ": minor is not a decimal from 0 to 254");
    if (!is_gpu_uuid(w[4])) return bad(where() + ": '" + std::string(w[4].substr(0, 48)) + "' is not a GPU UUID");
    if (w[6].size() > kMaxModelBytes || !all_of(w[6], printable))
      return bad(where() + ": the model is not printable ASCII of at most " + std::to_string(kMaxModelBytes) + " bytes");
    CachedIdentity& g = cache.gpus.emplace_back();
    g.identity.dir = w[1];
    g.identity.minor = static_cast<unsigned>(*minor);
    g.identity.uuid = w[4];
    g.identity.bus_id = w[5];
    g.identity.model = w[6];
    g.binding = *binding;
  }
  return cache;
}

}  // namespace gnh
