#include "config/config.h"
#include "base/text.h"
#include "base/toml_guard.h"

#include <algorithm>
#include <cstdint>
#include <cstring>

#include <initializer_list>
#include <toml++/toml.h>

#include "config/config_text_guard.h"
#include "config/plain_toml.h"
#include "base/error.h"

namespace gnh {

const char* to_string(LogFormat f) { return f == LogFormat::json ? "json" : "text"; }

namespace {

// Reads one table's keys into a Config. A key of the wrong type or value is recorded as a problem
// and reads as absent, so the caller leaves that key at its default; nothing is built on the path
// where every key is right (this runs on every container start).
class Reader {
 public:
  Reader(const std::string& file, std::vector<ConfigProblem>* problems) : file_(file), problems_(problems) {}

  void problem(const toml::source_region& where, std::string key, std::string what) const {
    problems_->push_back({file_, static_cast<int>(where.begin.line), std::move(key), std::move(what)});
  }
  void problem(const toml::node& n, std::string_view prefix, std::string_view key, const std::string& what) const {
    problem(n.source(), std::string(prefix) + std::string(key), what);
  }

  void only_keys(const toml::table& t, std::string_view prefix, std::initializer_list<std::string_view> allowed) const {
    for (auto&& [k, v] : t) {
      bool known = false;
      for (std::string_view a : allowed) known = known || k.str() == a;
      if (known) continue;
      std::string list;
      for (std::string_view a : allowed) (list += list.empty() ? "" : ", ") += a;
      problem(k.source(), std::string(prefix) + std::string(k.str()), "unknown key, ignored (allowed here: " + list + ")");
    }
  }

  const toml::table* table(const toml::table& t, const char* key, std::string_view prefix) const {
    const toml::node* n = t.get(key);
    if (!n) return nullptr;
    if (!n->is_table()) problem(*n, prefix, key, "must be a table ([" + std::string(prefix) + key + "]), ignored");
    return n->as_table();
  }

  std::optional<std::string> str(const toml::table& t, const char* key, std::string_view prefix) const {
    const toml::node* n = t.get(key);
    if (!n) return std::nullopt;
    if (!n->is_string()) {
      problem(*n, prefix, key, "must be a string: the default is used");
      return std::nullopt;
    }
    return n->as_string()->get();
  }

  // An absolute path; "" too when allow_empty.
  std::optional<std::string> path(const toml::table& t, const char* key, std::string_view prefix, bool allow_empty) const {
    auto v = str(t, key, prefix);
    if (!v || (v->empty() ? allow_empty : v->front() == '/')) return v;
    problem(*t.get(key), prefix, key,
            "'" + *v + (allow_empty ? "' must be an absolute path or \"\"" : "' must be an absolute path") +
                ": the default is used");
    return std::nullopt;
  }

  std::optional<bool> boolean(const toml::table& t, const char* key, std::string_view prefix) const {
    const toml::node* n = t.get(key);
    if (!n) return std::nullopt;
    if (!n->is_boolean()) {
      problem(*n, prefix, key, "must be true or false: the default is used");
      return std::nullopt;
    }
    return n->as_boolean()->get();
  }

  std::optional<long long> integer(const toml::table& t, const char* key, std::string_view prefix, long long lo,
                                   long long hi) const {
    const toml::node* n = t.get(key);
    if (!n) return std::nullopt;
    if (!n->is_integer()) {
      problem(*n, prefix, key, "must be an integer: the default is used");
      return std::nullopt;
    }
    long long v = n->as_integer()->get();
    if (v >= lo && v <= hi) return v;
    problem(*n, prefix, key,
            std::to_string(v) + " is out of range " + std::to_string(lo) + "-" + std::to_string(hi) + ": the default is used");
    return std::nullopt;
  }

  // One of a fixed set of words; a bad one names the default it leaves in place.
  template <typename E>
  void choice(const toml::table& t, const char* key, std::string_view prefix, E* out,
              std::optional<E> (*from)(std::string_view), const char* allowed) const {
    auto s = str(t, key, prefix);
    if (!s) return;
    if (auto v = from(*s)) {
      *out = *v;
      return;
    }
    problem(*t.get(key), prefix, key,
            "'" + *s + "' is not one of " + allowed + ": the default (" + to_string(*out) + ") is used");
  }

 private:
  const std::string& file_;
  std::vector<ConfigProblem>* problems_;
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

std::string describe(const ConfigProblem& p) {
  return "config " + p.file + ": " + (p.line > 0 ? "line " + std::to_string(p.line) + ": " : std::string()) + p.key +
         ": " + p.what;
}

std::string describe_all(const std::vector<ConfigProblem>& problems) {
  std::string out;
  for (const auto& p : problems) {
    if (out.empty()) out = "config " + p.file + ": ";
    else out += "; ";
    if (p.line > 0) out += "line " + std::to_string(p.line) + ": ";
    out += p.key + ": " + p.what;
  }
  return out;
}

namespace {

void read_runtime_next(const Reader& r, const toml::node& n, Config& c) {
  const toml::array* arr = n.as_array();
  auto bad = [&](const std::string& what) {
    r.problem(n, "runtime.", "next", what + ": the default (runc, crun) is used");
  };
  if (!arr || arr->empty()) return bad("must be a non-empty array of runtime names or absolute paths");
  std::vector<std::string> next;
  for (const auto& item : *arr) {
    const auto* s = item.as_string();
    if (!s || s->get().empty()) return bad("every entry must be a non-empty string");
    const std::string& v = s->get();
    // A name is looked up in a fixed PATH; a relative path would depend on the runtime's cwd.
    if (v.front() != '/' && v.find('/') != std::string::npos) return bad("'" + v + "' must be a plain name or an absolute path");
    next.push_back(v);
  }
  c.runtime.next = std::move(next);
}

// [[topology.gpu]]: an entry with a problem is left out whole (half an override would match the
// wrong GPU or set the wrong node).
void read_topology(const Reader& r, const toml::table& topo, Config& c) {
  r.only_keys(topo, "topology.", {"gpu"});
  const toml::node* n = topo.get("gpu");
  if (!n) return;
  const toml::array* arr = n->as_array();
  if (!arr) return r.problem(*n, "topology.", "gpu", "must be an array of tables ([[topology.gpu]]), ignored");
  for (size_t i = 0; i < arr->size(); ++i) {
    std::string prefix = "topology.gpu[" + std::to_string(i) + "].";
    std::string entry = prefix.substr(0, prefix.size() - 1);
    const toml::node& item = *arr->get(i);
    const toml::table* g = item.as_table();
    if (!g) {
      r.problem(item.source(), entry, "must be a table, ignored");
      continue;
    }
    // An unknown key is ignored, as anywhere; the entry stands if the rest of it is right.
    r.only_keys(*g, prefix, {"minor", "uuid", "bus-id", "memory-node", "affinity-node"});
    const size_t problems_before = c.problems.size();
    TopologyOverride o;
    int matchers = 0;
    bool bad_value = false;
    auto count = [&](const char* key, bool got) {
      matchers += got;
      bad_value = bad_value || (!got && g->get(key));
    };
    auto minor = r.integer(*g, "minor", prefix, 0, 254);
    if (minor) o.minor = static_cast<unsigned>(*minor);
    count("minor", minor.has_value());
    auto uuid = r.str(*g, "uuid", prefix);
    if (uuid) o.uuid = *uuid;
    count("uuid", uuid.has_value());
    auto bus = r.str(*g, "bus-id", prefix);
    if (bus) o.bus_id = *bus;
    count("bus-id", bus.has_value());
    if (auto v = r.integer(*g, "memory-node", prefix, 0, 1023)) o.memory_node = static_cast<int>(*v);
    if (auto v = r.integer(*g, "affinity-node", prefix, 0, 1023)) o.affinity_node = static_cast<int>(*v);
    if (!bad_value && matchers != 1) r.problem(item.source(), entry, "needs exactly one of minor, uuid, bus-id");
    else if (c.problems.size() == problems_before && !o.memory_node && !o.affinity_node)
      r.problem(item.source(), entry, "sets neither memory-node nor affinity-node");
    if (c.problems.size() != problems_before) {
      const std::string_view used = ": the default is used";
      for (size_t k = problems_before; k < c.problems.size(); ++k) {
        std::string& what = c.problems[k].what;
        if (what.size() >= used.size() && what.compare(what.size() - used.size(), used.size(), used) == 0)
          what.resize(what.size() - used.size());
        what += ": this [[topology.gpu]] entry is ignored";
      }
      continue;
    }
    c.overrides.push_back(std::move(o));
  }
}

}  // namespace

namespace {

Config read_config(const toml::table& root, const std::string& file_name);

}  // namespace

Config parse_config(std::string_view text, const std::string& file_name) {
  // Plain TOML (every config we ship or document) is read without toml++, a tenth of the cost on
  // every container start. A problem to report needs its line, which only toml++'s nodes carry.
  bool plain = false;
  if (auto table = parse_plain_toml(text)) {
    Config c = read_config(*table, file_name);
    if (c.problems.empty()) return c;
    plain = true;
  }
  toml::table root;
  // Before toml++ sees it: config_text_guard.h says why. Text the plain reader took needs no guard:
  // it found every comment itself (after a blank that ends a plain value) and no multi-line string,
  // and toml++ reads such text safely (tests/fuzz/fuzz_config.cc). The guard's coarser rule would
  // refuse some of it (a non-ASCII comment after a quoted value), dropping the whole file only
  // when a mistyped key sent it here for its line number.
  if (!plain) check_config_text(text, file_name);
  // The shipped config is mostly comments, which toml++ reads a character at a time: most of what
  // parsing it cost each container start (docs/internals/benchmarks.md). Same lines, same line numbers.
  std::optional<std::string> lean = blank_comment_lines(text);
  try {
    root = parse_toml_text(lean ? std::string_view(*lean) : text, file_name);
  } catch (const toml::parse_error& e) {
    // Never for plain text (the fuzzer checks); were it so, its settings stand, their problems
    // without a line.
    if (plain) return read_config(*parse_plain_toml(text), file_name);
    const auto& where = e.source().begin;
    fail("config " + file_name + ": line " + std::to_string(where.line) + ", column " +
         std::to_string(where.column) + ": " + std::string(e.description()));
  }
  return read_config(root, file_name);
}

namespace {

Config read_config(const toml::table& root, const std::string& file_name) {
  Config c;
  c.source = file_name;
  Reader r(file_name, &c.problems);
  r.only_keys(root, "", {"policy", "log", "lock", "chain", "topology", "check", "runtime", "nvml", "systemd"});

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
    if (auto v = r.path(*l, "file", "log.", true)) c.log.file = *v;
    if (auto v = r.str(*l, "level", "log.")) {
      if (auto lv = log_level_from(*v)) c.log.level = *lv;
      else
        r.problem(*l->get("level"), "log.", "level",
                  "'" + *v + "' is not one of trace, debug, info, warn, error, off: the default (" + c.log.level + ") is used");
    }
    r.choice(*l, "format", "log.", &c.log.format, log_format_from, "text, json");
    if (auto v = r.boolean(*l, "syslog", "log.")) c.log.syslog = *v;
  }
  if (auto* l = r.table(root, "lock", "")) {
    r.only_keys(*l, "lock.", {"path"});
    if (auto v = r.path(*l, "path", "lock.", false)) c.lock_path = *v;
  }
  if (auto* nv = r.table(root, "nvml", "")) {
    r.only_keys(*nv, "nvml.", {"cache", "probe", "library", "driver-root", "timeout-ms", "refresh-wait-ms"});
    if (auto v = r.path(*nv, "cache", "nvml.", false)) c.nvml.cache = *v;
    if (auto v = r.path(*nv, "probe", "nvml.", true)) c.nvml.probe = *v;
    if (auto v = r.path(*nv, "library", "nvml.", true)) c.nvml.library = *v;
    if (auto v = r.path(*nv, "driver-root", "nvml.", true)) c.nvml.driver_root = *v;
    if (auto v = r.integer(*nv, "timeout-ms", "nvml.", 100, 600000)) c.nvml.probe_timeout_ms = static_cast<int>(*v);
    if (auto v = r.integer(*nv, "refresh-wait-ms", "nvml.", 0, 60000)) c.nvml.refresh_wait_ms = static_cast<int>(*v);
  }
  if (auto* ch = r.table(root, "chain", "")) {
    r.only_keys(*ch, "chain.", {"next-hook", "timeout-ms"});
    if (auto v = r.path(*ch, "next-hook", "chain.", true)) c.next_hook = *v;
    if (auto v = r.integer(*ch, "timeout-ms", "chain.", 100, 600000)) c.chain_timeout_ms = static_cast<int>(*v);
  }
  if (auto* ck = r.table(root, "check", "")) {
    r.only_keys(*ck, "check.", {"fix"});
    if (auto v = r.boolean(*ck, "fix", "check.")) c.check_fix = *v;
  }
  if (auto* sd = r.table(root, "systemd", "")) {
    r.only_keys(*sd, "systemd.", {"allowed-memory-nodes"});
    if (auto v = r.boolean(*sd, "allowed-memory-nodes", "systemd.")) c.systemd_allowed_memory_nodes = *v;
  }
  if (auto* rt = r.table(root, "runtime", "")) {
    r.only_keys(*rt, "runtime.", {"next", "hook"});
    if (const toml::node* n = rt->get("next")) read_runtime_next(r, *n, c);
    if (auto v = r.path(*rt, "hook", "runtime.", false)) c.runtime.hook = *v;
  }
  if (auto* topo = r.table(root, "topology", "")) read_topology(r, *topo, c);
  // Tables are read in a fixed order and toml++ keeps their keys sorted: the operator reads the
  // file top to bottom.
  std::stable_sort(c.problems.begin(), c.problems.end(),
                   [](const ConfigProblem& a, const ConfigProblem& b) { return a.line < b.line; });
  return c;
}

}  // namespace

}  // namespace gnh
