#include "config/config.h"

#include <cstdint>
#include <cstring>

#include <set>
#include <toml++/toml.h>

#include "config/config_text_guard.h"
#include "base/error.h"

namespace gnh {

namespace {

class Reader {
 public:
  explicit Reader(std::string file) : file_(std::move(file)) {}

  [[noreturn]] void error(const std::string& key, const std::string& what) const {
    fail("config " + file_ + ": " + key + ": " + what);
  }

  void only_keys(const toml::table& t, const std::string& prefix, std::set<std::string> allowed) const {
    for (auto&& [k, v] : t) {
      std::string key(k.str());
      if (!allowed.count(key)) {
        std::string list;
        for (auto& a : allowed) list += (list.empty() ? "" : ", ") + a;
        error(prefix + key, "unknown key (allowed here: " + list + ")");
      }
    }
  }

  const toml::table* table(const toml::table& t, const char* key, const std::string& prefix) const {
    const toml::node* n = t.get(key);
    if (!n) return nullptr;
    if (!n->is_table()) error(prefix + key, "must be a table");
    return n->as_table();
  }

  std::optional<std::string> str(const toml::table& t, const char* key, const std::string& prefix) const {
    const toml::node* n = t.get(key);
    if (!n) return std::nullopt;
    if (!n->is_string()) error(prefix + key, "must be a string");
    return n->as_string()->get();
  }

  std::optional<bool> boolean(const toml::table& t, const char* key, const std::string& prefix) const {
    const toml::node* n = t.get(key);
    if (!n) return std::nullopt;
    if (!n->is_boolean()) error(prefix + key, "must be true or false");
    return n->as_boolean()->get();
  }

  std::optional<long long> integer(const toml::table& t, const char* key, const std::string& prefix,
                                   long long lo, long long hi) const {
    const toml::node* n = t.get(key);
    if (!n) return std::nullopt;
    if (!n->is_integer()) error(prefix + key, "must be an integer");
    long long v = n->as_integer()->get();
    if (v < lo || v > hi) error(prefix + key, std::to_string(v) + " is out of range " + std::to_string(lo) + "-" + std::to_string(hi));
    return v;
  }

  template <typename E>
  void choice(const toml::table& t, const char* key, const std::string& prefix, E* out,
              std::optional<E> (*from)(std::string_view), const char* allowed) const {
    auto s = str(t, key, prefix);
    if (!s) return;
    auto v = from(*s);
    if (!v) error(prefix + key, "'" + *s + "' is not one of " + allowed);
    *out = *v;
  }

 private:
  std::string file_;
};

std::optional<LogFormat> log_format_from(std::string_view s) {
  if (s == "text") return LogFormat::text;
  if (s == "json") return LogFormat::json;
  return std::nullopt;
}

std::optional<std::string> log_level_from(std::string_view s) {
  for (const char* l : {"trace", "debug", "info", "warn", "error", "off"})
    if (s == l) return std::string(l);
  return std::nullopt;
}

}  // namespace

namespace {
// Every byte 0x20-0x7e or a tab. Eight bytes at a time where none is below 0x20 or above 0x7e
// (the usual comment), byte by byte in a word that has one: this runs over most of the config.
bool printable_ascii_or_tab(std::string_view s) {
  constexpr uint64_t ones = 0x0101010101010101ULL, highs = 0x8080808080808080ULL;
  size_t i = 0;
  for (; i + 8 <= s.size(); i += 8) {
    uint64_t w;
    std::memcpy(&w, s.data() + i, 8);
    uint64_t below_space = (w - ones * 0x20) & ~w & highs;  // some byte < 0x20
    uint64_t above_tilde = ((w + ones * 0x01) | w) & highs;  // some byte >= 0x7f
    if ((below_space | above_tilde) == 0) continue;
    for (size_t k = i; k < i + 8; ++k) {
      unsigned char c = static_cast<unsigned char>(s[k]);
      if (!(c == '\t' || (c >= 0x20 && c < 0x7f))) return false;
    }
  }
  for (; i < s.size(); ++i) {
    unsigned char c = static_cast<unsigned char>(s[i]);
    if (!(c == '\t' || (c >= 0x20 && c < 0x7f))) return false;
  }
  return true;
}
}  // namespace

std::optional<std::string> blank_comment_lines(std::string_view text) {
  // A multi-line string could hold a line that starts with '#': leave such files alone.
  if (text.find("\"\"\"") != std::string_view::npos || text.find("'''") != std::string_view::npos)
    return std::nullopt;
  std::string out;
  out.reserve(text.size());
  bool blanked = false;
  size_t pos = 0;
  while (pos < text.size()) {
    size_t eol = text.find('\n', pos);
    size_t end = eol == std::string_view::npos ? text.size() : eol;
    std::string_view line = text.substr(pos, end - pos);
    size_t first = line.find_first_not_of(" \t");
    bool comment = first != std::string_view::npos && line[first] == '#';
    // Only comments toml++ would accept as they are: printable ASCII and tabs, a CR before the LF.
    std::string_view body = line;
    if (!body.empty() && body.back() == '\r' && eol != std::string_view::npos) body.remove_suffix(1);
    if (comment) comment = printable_ascii_or_tab(body);
    if (comment) blanked = true;
    else out.append(line);
    if (eol != std::string_view::npos) out.push_back('\n');
    pos = end + 1;
  }
  if (!blanked) return std::nullopt;
  return out;
}

Config parse_config(std::string_view text, const std::string& file_name) {
  Reader r(file_name);
  toml::table root;
  check_config_text(text, file_name);  // before toml++ sees it: config_text_guard.h says why
  // The shipped config is mostly comments, which toml++ reads a character at a time: most of what
  // parsing it cost each container start (docs/BENCHMARKS.md). Same lines, same line numbers.
  std::optional<std::string> lean = blank_comment_lines(text);
  try {
    root = toml::parse(lean ? std::string_view(*lean) : text, file_name);
  } catch (const toml::parse_error& e) {
    const auto& where = e.source().begin;
    fail("config " + file_name + ": line " + std::to_string(where.line) + ", column " +
         std::to_string(where.column) + ": " + std::string(e.description()));
  }
  Config c;
  c.source = file_name;
  r.only_keys(root, "", {"policy", "log", "lock", "chain", "topology", "check", "runtime", "nvml"});

  if (auto* p = r.table(root, "policy", "")) {
    r.only_keys(*p, "policy.", {"missing-node", "gpu-affinity", "explicit-mems", "on-error", "deadline-ms", "cuda-requirement"});
    r.choice(*p, "missing-node", "policy.", &c.policy.missing_node, missing_node_policy_from, "patch, refuse, warn");
    r.choice(*p, "gpu-affinity", "policy.", &c.policy.gpu_affinity, affinity_policy_from, "ignore, warn, patch, refuse");
    r.choice(*p, "explicit-mems", "policy.", &c.policy.explicit_mems, explicit_mems_policy_from, "respect, widen");
    r.choice(*p, "on-error", "policy.", &c.policy.on_error, on_error_policy_from, "allow, refuse");
    r.choice(*p, "cuda-requirement", "policy.", &c.policy.cuda_requirement, cuda_requirement_policy_from, "refuse, warn, off");
    if (auto v = r.integer(*p, "deadline-ms", "policy.", 100, 600000)) c.deadline_ms = static_cast<int>(*v);
  }
  if (auto* l = r.table(root, "log", "")) {
    r.only_keys(*l, "log.", {"file", "level", "format", "syslog"});
    if (auto v = r.str(*l, "file", "log.")) {
      if (!v->empty() && v->front() != '/') r.error("log.file", "'" + *v + "' must be an absolute path or \"\"");
      c.log.file = *v;
    }
    if (auto v = r.str(*l, "level", "log.")) {
      auto lv = log_level_from(*v);
      if (!lv) r.error("log.level", "'" + *v + "' is not one of trace, debug, info, warn, error, off");
      c.log.level = *lv;
    }
    r.choice(*l, "format", "log.", &c.log.format, log_format_from, "text, json");
    if (auto v = r.boolean(*l, "syslog", "log.")) c.log.syslog = *v;
  }
  if (auto* l = r.table(root, "lock", "")) {
    r.only_keys(*l, "lock.", {"path"});
    if (auto v = r.str(*l, "path", "lock.")) {
      if (v->empty() || v->front() != '/') r.error("lock.path", "'" + *v + "' must be an absolute path");
      c.lock_path = *v;
    }
  }
  if (auto* nv = r.table(root, "nvml", "")) {
    r.only_keys(*nv, "nvml.", {"cache", "probe", "library", "timeout-ms"});
    if (auto v = r.str(*nv, "cache", "nvml.")) {
      if (v->empty() || v->front() != '/') r.error("nvml.cache", "'" + *v + "' must be an absolute path");
      c.nvml.cache = *v;
    }
    if (auto v = r.str(*nv, "probe", "nvml.")) {
      if (!v->empty() && v->front() != '/') r.error("nvml.probe", "'" + *v + "' must be an absolute path or \"\"");
      c.nvml.probe = *v;
    }
    if (auto v = r.str(*nv, "library", "nvml.")) {
      if (!v->empty() && v->front() != '/') r.error("nvml.library", "'" + *v + "' must be an absolute path or \"\"");
      c.nvml.library = *v;
    }
    if (auto v = r.integer(*nv, "timeout-ms", "nvml.", 100, 600000)) c.nvml.probe_timeout_ms = static_cast<int>(*v);
  }
  if (auto* ch = r.table(root, "chain", "")) {
    r.only_keys(*ch, "chain.", {"next-hook", "timeout-ms"});
    if (auto v = r.str(*ch, "next-hook", "chain.")) {
      if (!v->empty() && v->front() != '/') r.error("chain.next-hook", "'" + *v + "' must be an absolute path or \"\"");
      c.next_hook = *v;
    }
    if (auto v = r.integer(*ch, "timeout-ms", "chain.", 100, 600000)) c.chain_timeout_ms = static_cast<int>(*v);
  }
  if (auto* ck = r.table(root, "check", "")) {
    r.only_keys(*ck, "check.", {"fix"});
    if (auto v = r.boolean(*ck, "fix", "check.")) c.check_fix = *v;
  }
  if (auto* rt = r.table(root, "runtime", "")) {
    r.only_keys(*rt, "runtime.", {"next", "hook"});
    if (const toml::node* n = rt->get("next")) {
      const toml::array* arr = n->as_array();
      if (!arr || arr->empty()) r.error("runtime.next", "must be a non-empty array of runtime names or absolute paths");
      c.runtime.next.clear();
      for (const auto& item : *arr) {
        const auto* s = item.as_string();
        if (!s || s->get().empty()) r.error("runtime.next", "every entry must be a non-empty string");
        const std::string& v = s->get();
        // A name is looked up in a fixed PATH; a relative path would depend on the runtime's cwd.
        if (v.front() != '/' && v.find('/') != std::string::npos)
          r.error("runtime.next", "'" + v + "' must be a plain name or an absolute path");
        c.runtime.next.push_back(v);
      }
    }
    if (auto v = r.str(*rt, "hook", "runtime.")) {
      if (v->empty() || v->front() != '/') r.error("runtime.hook", "'" + *v + "' must be an absolute path");
      c.runtime.hook = *v;
    }
  }
  if (auto* topo = r.table(root, "topology", "")) {
    r.only_keys(*topo, "topology.", {"gpu"});
    if (const toml::node* n = topo->get("gpu")) {
      const toml::array* arr = n->as_array();
      if (!arr) r.error("topology.gpu", "must be an array of tables ([[topology.gpu]])");
      for (size_t i = 0; i < arr->size(); ++i) {
        std::string prefix = "topology.gpu[" + std::to_string(i) + "].";
        const toml::table* g = arr->get(i)->as_table();
        if (!g) r.error(prefix.substr(0, prefix.size() - 1), "must be a table");
        r.only_keys(*g, prefix, {"minor", "uuid", "bus-id", "memory-node", "affinity-node"});
        TopologyOverride o;
        int matchers = 0;
        if (auto v = r.integer(*g, "minor", prefix, 0, 254)) { o.minor = static_cast<unsigned>(*v); ++matchers; }
        if (auto v = r.str(*g, "uuid", prefix)) { o.uuid = *v; ++matchers; }
        if (auto v = r.str(*g, "bus-id", prefix)) { o.bus_id = *v; ++matchers; }
        if (matchers != 1) r.error(prefix.substr(0, prefix.size() - 1), "needs exactly one of minor, uuid, bus-id");
        if (auto v = r.integer(*g, "memory-node", prefix, 0, 1023)) o.memory_node = static_cast<int>(*v);
        if (auto v = r.integer(*g, "affinity-node", prefix, 0, 1023)) o.affinity_node = static_cast<int>(*v);
        if (!o.memory_node && !o.affinity_node)
          r.error(prefix.substr(0, prefix.size() - 1), "sets neither memory-node nor affinity-node");
        c.overrides.push_back(std::move(o));
      }
    }
  }
  return c;
}

}  // namespace gnh
