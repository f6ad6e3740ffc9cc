#include "require/cuda_requirement.h"

#include <algorithm>
#include <map>

#include "base/text.h"

namespace gnh {

namespace {

constexpr std::string_view kRequirePrefix = "NVIDIA_REQUIRE_";
constexpr std::string_view kJetpackPrefix = "NVIDIA_REQUIRE_JETPACK";
constexpr std::string_view kRequireCuda = "NVIDIA_REQUIRE_CUDA";
constexpr std::string_view kDisableRequire = "NVIDIA_DISABLE_REQUIRE";
constexpr std::string_view kCudaVersion = "CUDA_VERSION";
constexpr std::string_view kOperatorChars = "<>=!";

std::string lower(std::string_view s) {
  std::string out(s);
  for (char& c : out)
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  return out;
}

bool is_word_char(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '-';
}

bool all_word_chars(std::string_view s) { return std::all_of(s.begin(), s.end(), is_word_char); }

std::string shown(std::string_view s) {
  std::string out = one_line(s.substr(0, kShownRequirementChars));
  if (s.size() > kShownRequirementChars) out += "...";
  return out;
}

std::optional<CompareOp> op_from(std::string_view s) {
  if (s == "=") return CompareOp::eq;
  if (s == "!=") return CompareOp::ne;
  if (s == "<") return CompareOp::lt;
  if (s == "<=") return CompareOp::le;
  if (s == ">") return CompareOp::gt;
  if (s == ">=") return CompareOp::ge;
  return std::nullopt;
}

// One "<key><op><value>"; "" on success, else why it does not parse.
std::string parse_condition(std::string_view text, Condition* c) {
  size_t key_end = text.find_first_of(kOperatorChars);
  if (key_end == std::string_view::npos) return "'" + shown(text) + "' has no operator (= != < <= > >=)";
  if (key_end == 0) return "'" + shown(text) + "' has no key before its operator";
  std::string_view key = text.substr(0, key_end);
  if (!all_word_chars(key)) return "'" + shown(text) + "': the key is not a word";
  size_t op_end = text.find_first_not_of(kOperatorChars, key_end);
  std::string_view op = text.substr(key_end, op_end == std::string_view::npos ? std::string_view::npos : op_end - key_end);
  auto parsed_op = op_from(op);
  if (!parsed_op) return "'" + shown(text) + "': '" + shown(op) + "' is not one of = != < <= > >=";
  if (op_end == std::string_view::npos) return "'" + shown(text) + "' has no value after its operator";
  std::string_view value = text.substr(op_end);
  c->key = lower(key);
  c->op = *parsed_op;
  c->value = std::string(value);
  if (c->key == "cuda" || c->key == "driver" || c->key == "arch") {
    c->version = parse_version(value);
    if (!c->version) return "'" + shown(text) + "': '" + shown(value) + "' is not a version";
  } else if (c->key == "brand") {
    if (c->op != CompareOp::eq && c->op != CompareOp::ne) return "'" + shown(text) + "': a brand compares with = or != only";
    if (!all_word_chars(value)) return "'" + shown(text) + "': '" + shown(value) + "' is not a brand name";
    c->value = lower(value);
  } else if (value.find_first_of(kOperatorChars) != std::string_view::npos) {
    return "'" + shown(text) + "' has more than one operator";
  }
  return "";
}

Requirement parse_requirement(std::string name, std::string_view value) {
  Requirement r;
  r.name = std::move(name);
  r.text = shown(value);
  auto bad = [&](std::string why) {
    r.any_of.clear();
    r.error = std::move(why);
    return r;
  };
  if (value.size() > kMaxRequirementChars)
    return bad("longer than " + std::to_string(kMaxRequirementChars) + " characters");
  for (char ch : value)
    if (static_cast<unsigned char>(ch) < 0x20 || static_cast<unsigned char>(ch) > 0x7e)
      return bad("has a control character or a non-ASCII byte");
  size_t pos = 0;
  while (pos < value.size()) {
    size_t end = value.find(' ', pos);
    std::string_view alt = value.substr(pos, end == std::string_view::npos ? std::string_view::npos : end - pos);
    pos = end == std::string_view::npos ? value.size() : end + 1;
    if (alt.empty()) continue;
    if (r.any_of.size() == kMaxAlternatives)
      return bad("has more than " + std::to_string(kMaxAlternatives) + " alternatives");
    std::vector<Condition> all;
    size_t cpos = 0;
    while (cpos < alt.size()) {
      size_t cend = alt.find(',', cpos);
      std::string_view cond = alt.substr(cpos, cend == std::string_view::npos ? std::string_view::npos : cend - cpos);
      cpos = cend == std::string_view::npos ? alt.size() : cend + 1;
      if (cond.empty()) continue;
      if (all.size() == kMaxConditions)
        return bad("has an alternative of more than " + std::to_string(kMaxConditions) + " conditions");
      Condition c;
      std::string why = parse_condition(cond, &c);
      if (!why.empty()) return bad(why);
      all.push_back(std::move(c));
    }
    if (!all.empty()) r.any_of.push_back(std::move(all));
  }
  return r;
}

// CUDA_VERSION of old images: "10.2", "11.0.3", "v9.0"; "cuda>=major.minor".
Requirement legacy_requirement(std::string_view cuda_version) {
  std::string_view v = cuda_version;
  if (!v.empty() && v.front() == 'v') v.remove_prefix(1);
  auto parsed = v.size() <= 32 ? parse_version(v) : std::nullopt;
  if (!parsed || parsed->parts.size() > 3) {
    Requirement r;
    r.name = std::string(kCudaVersion);
    r.text = shown(cuda_version);
    r.error = "'" + shown(cuda_version) + "' is not a CUDA version";
    return r;
  }
  uint32_t minor = parsed->parts.size() > 1 ? parsed->parts[1] : 0;
  return parse_requirement(std::string(kCudaVersion),
                           "cuda>=" + std::to_string(parsed->parts[0]) + "." + std::to_string(minor));
}

// Go's strconv.ParseBool true values, as NVIDIA's toolkit reads NVIDIA_DISABLE_REQUIRE.
bool go_true(std::string_view s) { return s == "1" || s == "t" || s == "T" || s == "TRUE" || s == "true" || s == "True"; }

// A condition against every value in [low, high) (or exactly low): yes when all satisfy it, no
// when none does, unknown otherwise.
Truth compare_range(const CudaRange& r, CompareOp op, const Version& v) {
  if (r.exact) {
    int c = compare(r.low, v);
    bool t = op == CompareOp::eq ? c == 0 : op == CompareOp::ne ? c != 0 : op == CompareOp::lt ? c < 0
             : op == CompareOp::le ? c <= 0 : op == CompareOp::gt ? c > 0 : c >= 0;
    return t ? Truth::yes : Truth::no;
  }
  const int lo = compare(r.low, v);                      // low vs v
  const std::optional<int> hi = r.high ? std::optional<int>(compare(*r.high, v)) : std::nullopt;  // high vs v
  const bool below_v = hi && *hi <= 0;                   // every value < high <= v
  switch (op) {
    case CompareOp::ge: return lo >= 0 ? Truth::yes : below_v ? Truth::no : Truth::unknown;
    case CompareOp::gt: return lo > 0 ? Truth::yes : below_v ? Truth::no : Truth::unknown;
    case CompareOp::le: return below_v ? Truth::yes : lo > 0 ? Truth::no : Truth::unknown;
    case CompareOp::lt: return below_v ? Truth::yes : lo >= 0 ? Truth::no : Truth::unknown;
    case CompareOp::eq: return lo > 0 || below_v ? Truth::no : Truth::unknown;
    case CompareOp::ne: return lo > 0 || below_v ? Truth::yes : Truth::unknown;
  }
  return Truth::unknown;
}

Truth compare_exact(const Version& have, CompareOp op, const Version& want) {
  CudaRange r;
  r.low = have;
  r.exact = true;
  return compare_range(r, op, want);
}

Truth evaluate_condition(const Condition& c, const HostFacts& host, const GpuFacts* gpu, std::string* why) {
  auto unknown = [&](std::string w) {
    if (why && why->empty()) *why = c.text() + ": " + w;
    return Truth::unknown;
  };
  const std::string gpu_why = host.gpu_facts_missing.empty() ? "not in the NVML cache" : host.gpu_facts_missing;
  if (c.key == "cuda") {
    if (!host.cuda) return unknown("the driver's CUDA version is unknown");
    Truth t = compare_range(*host.cuda, c.op, *c.version);
    return t == Truth::unknown ? unknown("the driver table cannot tell (" + host.cuda->to_display() + ")") : t;
  }
  if (c.key == "driver") {
    if (!host.driver) return unknown("the driver's version is unknown (no /proc/driver/nvidia/version)");
    return compare_exact(*host.driver, c.op, *c.version);
  }
  if (c.key == "arch") {
    if (!gpu || !gpu->arch) return unknown("the GPU's compute capability is " + gpu_why);
    return compare_exact(*gpu->arch, c.op, *c.version);
  }
  if (c.key == "brand") {
    if (!gpu || !gpu->brand) return unknown("the GPU's brand is " + gpu_why);
    bool same = *gpu->brand == c.value;
    return (c.op == CompareOp::eq) == same ? Truth::yes : Truth::no;
  }
  return unknown("'" + c.key + "' is not a key NVIDIA's check knows (cuda, driver, arch, brand)");
}

Truth all_of(const std::vector<Condition>& conds, const HostFacts& host, const GpuFacts* gpu, std::string* why) {
  Truth t = Truth::yes;
  for (const auto& c : conds) {
    Truth u = evaluate_condition(c, host, gpu, why);
    if (u == Truth::no) return Truth::no;
    if (u == Truth::unknown) t = Truth::unknown;
  }
  return t;
}

// The first condition of the requirement's first alternative that fails (legacy names the first
// alternative), for the refusal line.
std::string failing_condition(const Requirement& r, const HostFacts& host, const GpuFacts* gpu) {
  if (r.any_of.empty()) return "";
  for (const auto& c : r.any_of.front())
    if (evaluate_condition(c, host, gpu, nullptr) == Truth::no) return c.text();
  return "";
}

}  // namespace

const char* to_string(CompareOp op) {
  switch (op) {
    case CompareOp::eq: return "=";
    case CompareOp::ne: return "!=";
    case CompareOp::lt: return "<";
    case CompareOp::le: return "<=";
    case CompareOp::gt: return ">";
    case CompareOp::ge: return ">=";
  }
  return "?";
}

std::string Condition::text() const { return key + to_string(op) + one_line(value.substr(0, 64)); }

const char* to_string(RequirementState s) {
  switch (s) {
    case RequirementState::none: return "none";
    case RequirementState::disabled: return "disabled";
    case RequirementState::satisfied: return "satisfied";
    case RequirementState::unknown: return "unknown";
    case RequirementState::unsatisfied: return "unsatisfied";
    case RequirementState::unparseable: return "unparseable";
  }
  return "?";
}

std::string CudaRange::to_display() const {
  if (exact) return low.to_string();
  if (!high) return "at least " + low.to_string();
  // [12.9, 13.0) or [13.0, 13.1): nothing lies between, the version is low.
  const auto& l = low.parts;
  const auto& h = high->parts;
  uint32_t lmaj = l.empty() ? 0 : l[0], lmin = l.size() > 1 ? l[1] : 0;
  uint32_t hmaj = h.empty() ? 0 : h[0], hmin = h.size() > 1 ? h[1] : 0;
  if (hmaj == lmaj && hmin == lmin + 1) return low.to_string();
  return "at least " + low.to_string() + ", below " + high->to_string();
}

ImageRequirements read_image_requirements(const std::vector<std::string>& env) {
  // The last entry of a key is the one the process sees; only the few keys we read are kept.
  std::map<std::string, std::string, std::less<>> vars;
  std::vector<std::string> order;
  for (const auto& e : env) {
    std::string_view kv = e;
    size_t eq = kv.find('=');
    if (eq == std::string_view::npos) continue;
    std::string_view key = kv.substr(0, eq);
    bool wanted = (key.substr(0, kRequirePrefix.size()) == kRequirePrefix &&
                   key.substr(0, kJetpackPrefix.size()) != kJetpackPrefix) ||
                  key == kDisableRequire || key == kCudaVersion;
    if (!wanted) continue;
    auto [it, inserted] = vars.insert_or_assign(std::string(key), std::string(kv.substr(eq + 1)));
    if (inserted) order.push_back(it->first);
  }
  ImageRequirements out;
  if (auto it = vars.find(kDisableRequire); it != vars.end() && go_true(it->second)) {
    out.disabled = true;
    return out;
  }
  size_t checked = 0;
  std::vector<std::string> skipped;
  for (const auto& name : order) {
    if (name.substr(0, kRequirePrefix.size()) != kRequirePrefix) continue;
    if (checked == kMaxRequirementVars) {
      skipped.push_back(name);
      continue;
    }
    ++checked;
    out.requirements.push_back(parse_requirement(one_line(name.substr(0, 64)), vars[name]));
  }
  if (!skipped.empty()) {
    Requirement r;
    r.name = one_line(skipped.front().substr(0, 64));
    r.error = "more than " + std::to_string(kMaxRequirementVars) + " NVIDIA_REQUIRE_* variables; " +
              std::to_string(skipped.size()) + " not checked";
    out.requirements.push_back(std::move(r));
  }
  auto cuda = vars.find(kRequireCuda);
  auto legacy = vars.find(kCudaVersion);
  if ((cuda == vars.end() || cuda->second.empty()) && legacy != vars.end() && !legacy->second.empty())
    out.requirements.push_back(legacy_requirement(legacy->second));
  return out;
}

Truth evaluate(const Requirement& r, const HostFacts& host, const GpuFacts* gpu, std::string* why) {
  if (!r.error.empty()) return Truth::unknown;
  if (r.any_of.empty()) return Truth::yes;
  Truth t = Truth::no;
  for (const auto& alt : r.any_of) {
    Truth u = all_of(alt, host, gpu, why);
    if (u == Truth::yes) return Truth::yes;
    if (u == Truth::unknown) t = Truth::unknown;
  }
  return t;
}

std::string describe_host(const HostFacts& host) {
  std::string s = "driver " + (host.driver ? host.driver->to_string() : std::string("unknown"));
  if (host.cuda) s += ", CUDA " + host.cuda->to_display() + " (from " + host.cuda->source + ")";
  else s += ", CUDA unknown";
  return s;
}

RequirementCheck check_requirements(const ImageRequirements& image, const HostFacts& host) {
  RequirementCheck out;
  out.host = describe_host(host);
  if (image.disabled) {
    out.state = RequirementState::disabled;
    out.message = "NVIDIA_DISABLE_REQUIRE is set: the image's CUDA requirement is not checked";
    return out;
  }
  if (image.empty()) return out;
  const Requirement* unparseable = nullptr;
  const Requirement* unknown = nullptr;
  std::string unknown_why;
  std::vector<const GpuFacts*> gpus;
  for (const auto& g : host.gpus) gpus.push_back(&g);
  if (gpus.empty()) gpus.push_back(nullptr);
  for (const auto& r : image.requirements) {
    if (!r.error.empty()) {
      if (!unparseable) unparseable = &r;
      continue;
    }
    for (const GpuFacts* g : gpus) {
      std::string why;
      Truth t = evaluate(r, host, g, &why);
      if (t == Truth::no) {
        out.state = RequirementState::unsatisfied;
        out.requirement = r.name + "=" + r.text;
        std::string cond = failing_condition(r, host, g);
        std::string on_gpu = g && (cond.rfind("arch", 0) == 0 || cond.rfind("brand", 0) == 0) ? " on " + g->label : "";
        const std::string max = host.cuda ? host.cuda->certain_max() : std::string("?");
        out.message = "the image requires " + (cond.empty() ? r.name : cond) + on_gpu + " (" + r.name + "=\"" + r.text +
                      "\") but " + describe_host(host) + ": upgrade the driver, use an image built for CUDA <= " + max +
                      ", or set NVIDIA_DISABLE_REQUIRE=true if the image carries its own CUDA compatibility libraries";
        return out;
      }
      if (t == Truth::unknown && !unknown) {
        unknown = &r;
        unknown_why = why;
      }
    }
  }
  if (unparseable) {
    out.state = RequirementState::unparseable;
    out.requirement = unparseable->name + "=" + unparseable->text;
    out.message = "the image's " + unparseable->name + " cannot be read (" + unparseable->error +
                  "), so it was not checked; NVIDIA's legacy hook would refuse this container";
    return out;
  }
  if (unknown) {
    out.state = RequirementState::unknown;
    out.requirement = unknown->name + "=" + unknown->text;
    std::string first = failing_condition(*unknown, host, gpus.front());
    out.message = "the image's " + unknown->name + " could not be judged on this host (" +
                  (first.empty() ? "" : "the driver does not meet " + first + " (" + describe_host(host) +
                                            ") but another alternative may hold: ") +
                  unknown_why + "), so it was not enforced";
    return out;
  }
  out.state = RequirementState::satisfied;
  out.requirement = image.requirements.front().name + "=" + image.requirements.front().text;
  out.message = "the image's CUDA requirement is met (" + describe_host(host) + ")";
  return out;
}

}  // namespace gnh
