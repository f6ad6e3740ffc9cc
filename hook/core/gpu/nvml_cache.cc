#include "gpu/nvml_cache.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cctype>
#include <set>

#include "base/text.h"
#include "gpu/driver_files.h"

namespace gnh {

namespace {

using nlohmann::json;

// A problem found at a JSON path; the first one is reported.
struct Checker {
  std::string problem;
  bool bad(const std::string& where, const std::string& what) {
    if (problem.empty()) problem = where + ": " + what;
    return false;
  }
};

bool only_chars(std::string_view s, std::string_view extra) {
  return std::all_of(s.begin(), s.end(), [&](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || extra.find(c) != std::string_view::npos;
  });
}

// The JSON value nests no deeper than `limit` (a cache is 4 deep): checked before parsing, so no
// deeply nested text reaches the parser or the destructor.
bool nesting_within(std::string_view text, int limit) {
  int depth = 0;
  bool in_string = false, escaped = false;
  for (char c : text) {
    if (in_string) {
      if (escaped) escaped = false;
      else if (c == '\\') escaped = true;
      else if (c == '"') in_string = false;
      continue;
    }
    if (c == '"') in_string = true;
    else if (c == '[' || c == '{') { if (++depth > limit) return false; }
    else if (c == ']' || c == '}') --depth;
  }
  return true;
}

bool keys_known(const json& obj, std::initializer_list<const char*> keys, const std::string& where, Checker& c) {
  for (const auto& item : obj.items()) {
    const std::string& k = item.key();  // not a structured binding: clang 14 cannot capture one
    if (std::find_if(keys.begin(), keys.end(), [&](const char* want) { return k == want; }) == keys.end())
      return c.bad(where, "unknown key '" + one_line(k.substr(0, 40)) + "'");
  }
  return true;
}

bool get_string(const json& obj, const char* key, size_t max, std::string_view extra, const std::string& where,
                Checker& c, std::string* out) {
  std::string at = where + "." + key;
  if (!obj.contains(key) || !obj[key].is_string()) return c.bad(at, "missing or not a string");
  const auto& s = obj[key].get_ref<const std::string&>();
  if (s.empty() || s.size() > max || !only_chars(s, extra)) return c.bad(at, "not a valid value");
  *out = s;
  return true;
}

bool get_int(const json& obj, const char* key, long long lo, long long hi, const std::string& where, Checker& c,
             long long* out) {
  std::string at = where + "." + key;
  if (!obj.contains(key) || !obj[key].is_number_integer())
    return c.bad(at, "missing or not an integer");
  long long v = obj[key].get<long long>();
  if (v < lo || v > hi) return c.bad(at, "not an integer in " + std::to_string(lo) + ".." + std::to_string(hi));
  *out = v;
  return true;
}

bool get_node(const json& obj, const std::string& where, Checker& c, std::optional<int>* out) {
  long long n = 0;
  if (!get_int(obj, "memory_node", -1, 1023, where, c, &n)) return false;
  *out = n < 0 ? std::nullopt : std::optional<int>(static_cast<int>(n));
  return true;
}

bool has_prefix_ci(std::string_view s, std::string_view p) {
  if (s.size() < p.size()) return false;
  for (size_t i = 0; i < p.size(); ++i)
    if (std::toupper(static_cast<unsigned char>(s[i])) != p[i]) return false;
  return true;
}

// "GPU-<hex and dashes>" / "MIG-<...>" (older drivers named MIG devices "MIG-GPU-<uuid>/<gi>/<ci>").
bool get_uuid(const json& obj, const char* prefix, const std::string& where, Checker& c, std::string* out) {
  if (!get_string(obj, "uuid", 96, "-/", where, c, out)) return false;
  if (!has_prefix_ci(*out, prefix) || out->size() <= std::string_view(prefix).size())
    return c.bad(where + ".uuid", std::string("does not start with ") + prefix);
  return true;
}

bool parse_mig(const json& j, const std::string& where, Checker& c, CachedMigDevice* m) {
  if (!j.is_object()) return c.bad(where, "not an object");
  if (!keys_known(j, {"index", "uuid", "gpu_instance_id", "compute_instance_id", "memory_node"}, where, c)) return false;
  long long index = 0, gi = 0, ci = 0;
  if (!get_int(j, "index", 0, kMaxCachedMigDevices - 1, where, c, &index) || !get_uuid(j, "MIG-", where, c, &m->uuid) ||
      !get_int(j, "gpu_instance_id", 0, 1023, where, c, &gi) || !get_int(j, "compute_instance_id", 0, 1023, where, c, &ci) ||
      !get_node(j, where, c, &m->memory_node))
    return false;
  m->index = static_cast<unsigned>(index);
  m->gpu_instance_id = static_cast<unsigned>(gi);
  m->compute_instance_id = static_cast<unsigned>(ci);
  return true;
}

// An optional "<major>.<minor>" (a CUDA version, a compute capability): 1-3 digits each.
bool get_opt_major_minor(const json& obj, const char* key, const std::string& where, Checker& c,
                         std::optional<std::string>* out) {
  if (!obj.contains(key)) return true;
  std::string s;
  if (!get_string(obj, key, 7, ".", where, c, &s)) return false;
  size_t dot = s.find('.');
  bool ok = dot != std::string::npos && dot >= 1 && dot <= 3 && s.size() - dot - 1 >= 1 && s.size() - dot - 1 <= 3 &&
            std::all_of(s.begin(), s.end(), [](char ch) { return ch == '.' || std::isdigit(static_cast<unsigned char>(ch)); }) &&
            s.find('.', dot + 1) == std::string::npos;
  if (!ok) return c.bad(where + "." + key, "not a version as 13.0");
  *out = s;
  return true;
}

bool parse_gpu(const json& j, const std::string& where, Checker& c, std::set<std::string>* uuids, CachedGpu* g) {
  if (!j.is_object()) return c.bad(where, "not an object");
  if (!keys_known(j, {"index", "uuid", "minor", "bus_id", "memory_node", "mig_mode", "mig_devices", "brand",
                      "compute_capability"},
                  where, c))
    return false;
  if (j.contains("brand")) {
    std::string brand;
    if (!get_string(j, "brand", 32, "", where, c, &brand)) return false;
    if (!std::all_of(brand.begin(), brand.end(), [](char ch) { return std::islower(static_cast<unsigned char>(ch)); }))
      return c.bad(where + ".brand", "not a lower-case name");
    g->brand = brand;
  }
  if (!get_opt_major_minor(j, "compute_capability", where, c, &g->compute_capability)) return false;
  long long index = 0, minor = 0;
  if (!get_int(j, "index", 0, kMaxCachedGpus - 1, where, c, &index) || !get_uuid(j, "GPU-", where, c, &g->uuid) ||
      !get_int(j, "minor", 0, 254, where, c, &minor) || !get_string(j, "bus_id", 32, ":.", where, c, &g->bus_id) ||
      !get_node(j, where, c, &g->memory_node) || !get_string(j, "mig_mode", 16, "", where, c, &g->mig_mode))
    return false;
  g->index = static_cast<unsigned>(index);
  g->minor = static_cast<unsigned>(minor);
  auto canon = canonical_pci_address(g->bus_id);
  if (!canon || *canon != g->bus_id) return c.bad(where + ".bus_id", "not a PCI address as 0000:01:00.0");
  if (g->mig_mode != "enabled" && g->mig_mode != "disabled" && g->mig_mode != "unsupported")
    return c.bad(where + ".mig_mode", "not one of enabled, disabled, unsupported");
  if (!uuids->insert(g->uuid).second) return c.bad(where + ".uuid", "appears twice");
  if (!j.contains("mig_devices") || !j["mig_devices"].is_array()) return c.bad(where + ".mig_devices", "missing or not an array");
  const json& migs = j["mig_devices"];
  if (migs.size() > kMaxCachedMigDevices) return c.bad(where + ".mig_devices", "too many entries");
  if (!migs.empty() && g->mig_mode != "enabled") return c.bad(where + ".mig_devices", "MIG devices on a GPU whose MIG mode is not enabled");
  std::set<unsigned> indices;
  for (size_t i = 0; i < migs.size(); ++i) {
    CachedMigDevice m;
    std::string at = where + ".mig_devices[" + std::to_string(i) + "]";
    if (!parse_mig(migs[i], at, c, &m)) return false;
    if (!indices.insert(m.index).second) return c.bad(at + ".index", "appears twice");
    if (!uuids->insert(m.uuid).second) return c.bad(at + ".uuid", "appears twice");
    g->mig_devices.push_back(std::move(m));
  }
  return true;
}

json node_json(const std::optional<int>& n) { return n ? *n : -1; }

}  // namespace

std::optional<NvmlCache> parse_nvml_cache(std::string_view text, std::string* why) {
  Checker c;
  auto failed = [&](std::string what) -> std::optional<NvmlCache> {
    if (why) *why = std::move(what);
    return std::nullopt;
  };
  if (text.size() > kMaxNvmlCacheBytes) return failed("larger than " + std::to_string(kMaxNvmlCacheBytes) + " bytes");
  if (!nesting_within(text, 6)) return failed("nested too deeply");
  json j = json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded()) return failed("not JSON");
  if (!j.is_object()) return failed("not a JSON object");
  if (!keys_known(j, {"format", "boot_id", "driver_version", "cuda_version", "gpus"}, "cache", c)) return failed(c.problem);
  long long format = 0;
  if (!get_int(j, "format", kNvmlCacheFormat, kNvmlCacheFormat, "cache", c, &format)) return failed(c.problem);
  NvmlCache cache;
  if (!get_string(j, "boot_id", 64, "-", "cache", c, &cache.boot_id) ||
      !get_string(j, "driver_version", 64, ".-", "cache", c, &cache.driver_version))
    return failed(c.problem);
  if (!get_opt_major_minor(j, "cuda_version", "cache", c, &cache.cuda_version)) return failed(c.problem);
  if (!j.contains("gpus") || !j["gpus"].is_array()) return failed("cache.gpus: missing or not an array");
  const json& gpus = j["gpus"];
  if (gpus.size() > kMaxCachedGpus) return failed("cache.gpus: too many entries");
  std::set<std::string> uuids;
  std::set<unsigned> indices;
  for (size_t i = 0; i < gpus.size(); ++i) {
    CachedGpu g;
    std::string at = "cache.gpus[" + std::to_string(i) + "]";
    if (!parse_gpu(gpus[i], at, c, &uuids, &g)) return failed(c.problem);
    if (!indices.insert(g.index).second) return failed(at + ".index: appears twice");
    cache.gpus.push_back(std::move(g));
  }
  return cache;
}

std::string nvml_cache_json(const NvmlCache& cache) {
  json gpus = json::array();
  for (const auto& g : cache.gpus) {
    json migs = json::array();
    for (const auto& m : g.mig_devices)
      migs.push_back({{"index", m.index}, {"uuid", m.uuid}, {"gpu_instance_id", m.gpu_instance_id},
                      {"compute_instance_id", m.compute_instance_id}, {"memory_node", node_json(m.memory_node)}});
    json gj = {{"index", g.index}, {"uuid", g.uuid}, {"minor", g.minor}, {"bus_id", g.bus_id},
               {"memory_node", node_json(g.memory_node)}, {"mig_mode", g.mig_mode}, {"mig_devices", migs}};
    if (g.brand) gj["brand"] = *g.brand;
    if (g.compute_capability) gj["compute_capability"] = *g.compute_capability;
    gpus.push_back(gj);
  }
  json j = {{"format", kNvmlCacheFormat}, {"boot_id", cache.boot_id}, {"driver_version", cache.driver_version},
            {"gpus", gpus}};
  if (cache.cuda_version) j["cuda_version"] = *cache.cuda_version;
  return j.dump() + "\n";
}

std::string nvml_cache_staleness(const NvmlCache& cache, std::string_view boot_id, std::string_view driver_version) {
  if (cache.boot_id != trim(boot_id)) return "written before the last boot (boot_id " + cache.boot_id + ")";
  if (driver_version.empty()) return "the driver's version is unknown (no /proc/driver/nvidia/version)";
  if (cache.driver_version != driver_version)
    return "written for driver " + cache.driver_version + ", the driver loaded now is " + std::string(driver_version);
  return "";
}

std::optional<std::string> parse_driver_version(std::string_view text) {
  std::string_view line = text.substr(0, text.find('\n'));
  while (!line.empty()) {
    size_t start = line.find_first_not_of(" \t");
    if (start == std::string_view::npos) break;
    line.remove_prefix(start);
    size_t end = line.find_first_of(" \t");
    std::string_view word = line.substr(0, end);
    bool digits_and_dots = !word.empty() && word.size() <= 32 && std::isdigit(static_cast<unsigned char>(word.front())) &&
                           std::isdigit(static_cast<unsigned char>(word.back())) &&
                           word.find('.') != std::string_view::npos &&
                           std::all_of(word.begin(), word.end(), [](char ch) {
                             return std::isdigit(static_cast<unsigned char>(ch)) || ch == '.';
                           });
    if (digits_and_dots) return std::string(word);
    if (end == std::string_view::npos) break;
    line.remove_prefix(end);
  }
  return std::nullopt;
}

const CachedGpu* find_cached_gpu(const NvmlCache& cache, std::string_view uuid) {
  for (const auto& g : cache.gpus)
    if (g.uuid.size() == uuid.size() &&
        std::equal(g.uuid.begin(), g.uuid.end(), uuid.begin(), [](char a, char b) {
          return std::tolower(static_cast<unsigned char>(a)) == std::tolower(static_cast<unsigned char>(b));
        }))
      return &g;
  return nullptr;
}

}  // namespace gnh
