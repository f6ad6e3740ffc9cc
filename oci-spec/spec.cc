#include "spec.h"

#include <algorithm>

#include "base/text.h"

#include "json_fields.h"
#include "json_scan.h"
#include "member_check.h"

namespace oci {

using namespace detail;

namespace {

// The members parse_spec reads, and the objects on the way to them (their type is checked).
const std::vector<MemberPath>& spec_members() {
  static const std::vector<MemberPath> paths = {
      {"process"}, {"process", "env"}, {"mounts"}, {"annotations"},
      {"linux"},   {"linux", "cgroupsPath"}, {"linux", "devices"},
      {"linux", "resources"}, {"linux", "resources", "cpu"}, {"linux", "resources", "cpu", "mems"},
      {"process", "capabilities"}, {"process", "capabilities", "bounding"},
      {"hooks"}, {"hooks", "prestart"}, {"hooks", "createRuntime"}, {"hooks", "createContainer"}};
  return paths;
}

// The same members as shapes, for member_check.h: what runtimes must read as we do.
const Shape& spec_shape() {
  static const Shape device{{{"path"}, {"type"}, {"major"}, {"minor"}}};
  static const Shape mount{{{"destination"}, {"source"}}};
  static const Shape cpu{{{"mems"}}};
  static const Shape resources{{{"cpu", &cpu}}};
  static const Shape linux{{{"cgroupsPath"}, {"devices", nullptr, &device}, {"resources", &resources}}};
  static const Shape capabilities{{{"bounding"}}};
  static const Shape process{{{"env"}, {"capabilities", &capabilities}}};
  static const Shape hook{{{"path"}, {"args"}}};
  static const Shape hooks{{{"prestart", nullptr, &hook}, {"createRuntime", nullptr, &hook}, {"createContainer", nullptr, &hook}}};
  static const Shape root{{{"process", &process},
                           {"mounts", nullptr, &mount},
                           {"annotations"},
                           {"linux", &linux},
                           {"hooks", &hooks}}};
  return root;
}

void refuse_misread(std::string_view text) {
  if (auto why = misread_member(text, spec_shape(), "config.json")) throw MisreadSpec(*why);
}

// Indexes in spec_members() of the arrays read from the text, without nlohmann.
constexpr size_t kEnvMember = 1;      // {"process", "env"}
constexpr size_t kMountsMember = 2;   // {"mounts"}
constexpr size_t kDevicesMember = 6;  // {"linux", "devices"}
constexpr size_t kBoundingMember = 11;  // {"process", "capabilities", "bounding"}
constexpr size_t kFirstHookStage = 13;  // {"hooks", "prestart"}, then createRuntime, createContainer
constexpr const char* kHookStages[] = {"prestart", "createRuntime", "createContainer"};

// A located string member as nlohmann would give it, where that needs no decoding: "" for an
// absent or null member (opt_string's value_or("")), the text between the quotes for a string
// without escapes (the scanner has checked its UTF-8). nullopt: anything else, left to nlohmann.
std::optional<std::string> plain_string(const std::optional<std::string_view>& v) {
  if (!v || *v == "null") return std::string();
  if (v->size() < 2 || v->front() != '"' || v->find('\\') != std::string_view::npos) return std::nullopt;
  return std::string(v->substr(1, v->size() - 2));
}

// An array of objects read from the text: each element's `members` located, then made into a T by
// `make`. nullopt where an element is not an object or `make` needs nlohmann's word for it.
template <typename T, typename Make>
std::optional<std::vector<T>> plain_objects(std::string_view array_text, const std::vector<MemberPath>& members,
                                            Make&& make) {
  std::optional<std::vector<std::string_view>> elements = object_elements(array_text);
  if (!elements) return std::nullopt;
  std::vector<T> out;
  out.reserve(elements->size());
  for (std::string_view e : *elements) {
    std::optional<LocatedMembers> m = locate_members(e, members);
    if (!m || m->ambiguous) return std::nullopt;  // member_check.h then names the member
    std::optional<T> item = make(*m);
    if (!item) return std::nullopt;
    out.push_back(std::move(*item));
  }
  return out;
}

// mounts[*].destination and .source read from the text. A config.json carries 10-30 mounts and
// building them as nlohmann values was half of parse_spec's time (docs/internals/benchmarks.md).
// nullopt where any element needs nlohmann's word (not an object, a member that is not a plain
// string): the array then goes into the document as before, with the same result or error.
std::optional<std::vector<Mount>> plain_mounts(std::string_view array_text) {
  static const std::vector<MemberPath> members = {{"destination"}, {"source"}};
  return plain_objects<Mount>(array_text, members, [](const LocatedMembers& m) -> std::optional<Mount> {
    std::optional<std::string> destination = plain_string(m.values[0]);
    std::optional<std::string> source = plain_string(m.values[1]);
    if (!destination || !source) return std::nullopt;
    return Mount{std::move(*destination), std::move(*source)};
  });
}

// A located integer member as nlohmann would give it, where that is certain: `absent` for an
// absent or null member (value_or), the value of a decimal integer of at most 18 digits. nullopt:
// anything else (a fraction, an exponent, a string), left to nlohmann's word or error.
std::optional<long long> plain_integer(const std::optional<std::string_view>& v, long long absent) {
  if (!v || *v == "null") return absent;
  std::string_view t = *v;
  const bool negative = !t.empty() && t.front() == '-';
  if (negative) t.remove_prefix(1);
  if (t.empty() || t.size() > 18) return std::nullopt;
  long long n = 0;
  for (char c : t) {
    if (c < '0' || c > '9') return std::nullopt;
    n = n * 10 + (c - '0');
  }
  return negative ? -n : n;
}

// linux.devices[*] read from the text, as plain_mounts: 8 GPUs' device nodes built as nlohmann
// values were most of a GPU start's config.json reading. nullopt: nlohmann's word is needed.
std::optional<std::vector<LinuxDevice>> plain_devices(std::string_view array_text) {
  static const std::vector<MemberPath> members = {{"path"}, {"type"}, {"major"}, {"minor"}};
  return plain_objects<LinuxDevice>(array_text, members, [](const LocatedMembers& m) -> std::optional<LinuxDevice> {
    std::optional<std::string> path = plain_string(m.values[0]);
    std::optional<std::string> type = plain_string(m.values[1]);
    std::optional<long long> major = plain_integer(m.values[2], -1);
    std::optional<long long> minor = plain_integer(m.values[3], -1);
    if (!path || !type || !major || !minor) return std::nullopt;
    return LinuxDevice{std::move(*path), std::move(*type), *major, *minor};
  });
}

// An array of strings read from the text (process.env, a hook's args, the bounding set): every
// element a string without escapes, else nullopt.
std::optional<std::vector<std::string>> plain_strings(std::string_view array_text) {
  std::optional<std::vector<std::string_view>> elements = string_elements(array_text);
  if (!elements) return std::nullopt;
  std::vector<std::string> env;
  env.reserve(elements->size());
  for (std::string_view e : *elements) {
    std::optional<std::string> s = plain_string(e);
    if (!s) return std::nullopt;
    env.push_back(std::move(*s));
  }
  return env;
}

// hooks.<stage>[*].path and .args read from the text, as plain_mounts: Docker's network hook is in
// every container's spec, and building it as nlohmann values cost the fast path 10% more
// instructions. nullopt: nlohmann's word is needed.
std::optional<std::vector<Hook>> plain_hooks(std::string_view array_text, const char* stage) {
  static const std::vector<MemberPath> members = {{"path"}, {"args"}};
  return plain_objects<Hook>(array_text, members, [&](const LocatedMembers& m) -> std::optional<Hook> {
    std::optional<std::string> path = plain_string(m.values[0]);
    if (!path) return std::nullopt;
    std::vector<std::string> args;
    if (m.values[1] && *m.values[1] != "null") {
      std::optional<std::vector<std::string>> a = plain_strings(*m.values[1]);
      if (!a) return std::nullopt;
      args = std::move(*a);
    }
    return Hook{stage, std::move(*path), std::move(args)};
  });
}

bool is_parent(const std::vector<MemberPath>& paths, size_t k) {
  for (const auto& p : paths)
    if (p.size() > paths[k].size() && std::equal(paths[k].begin(), paths[k].end(), p.begin())) return true;
  return false;
}

// The document parse_spec_whole would see, cut down to the members it reads: objects on the way
// stay objects (empty but for what we read), every other located value is parsed as it is.
json document_of(const LocatedMembers& found) {
  const auto& paths = spec_members();
  json doc = json::object();
  for (size_t k = 0; k < paths.size(); ++k) {  // parents come before their members
    if (!found.values[k]) continue;
    json* parent = &doc;
    for (size_t d = 0; d + 1 < paths[k].size(); ++d) parent = &(*parent)[std::string(paths[k][d])];
    const std::string_view text = *found.values[k];
    (*parent)[std::string(paths[k].back())] =
        is_parent(paths, k) && text.front() == '{' ? json::object() : json::parse(text.begin(), text.end());
  }
  return doc;
}

Spec spec_from(const json& j) {
  Spec s;
  if (const json* process = opt_object(j, "process", "")) {
    s.env = string_array(*process, "env", "process.");
    if (const json* caps = opt_object(*process, "capabilities", "process."))
      s.bounding_capabilities = string_array(*caps, "bounding", "process.capabilities.");
  }
  if (const json* hooks = opt_object(j, "hooks", "")) {
    for (const char* stage : kHookStages) {
      const json* list = opt_array(*hooks, stage, "hooks.");
      if (!list) continue;
      for (size_t i = 0; i < list->size(); ++i) {
        const json& h = (*list)[i];
        std::string p = std::string("hooks.") + stage + "[" + std::to_string(i) + "].";
        if (!h.is_object()) throw ParseError(p.substr(0, p.size() - 1) + " must be an object");
        s.hooks.push_back({stage, opt_string(h, "path", p).value_or(""), string_array(h, "args", p)});
      }
    }
  }
  if (const json* mounts = opt_array(j, "mounts", "")) {
    for (size_t i = 0; i < mounts->size(); ++i) {
      const json& m = (*mounts)[i];
      std::string p = "mounts[" + std::to_string(i) + "].";
      if (!m.is_object()) throw ParseError(p.substr(0, p.size() - 1) + " must be an object");
      s.mounts.push_back({opt_string(m, "destination", p).value_or(""), opt_string(m, "source", p).value_or("")});
    }
  }
  s.annotations = string_map(j, "annotations", "");
  if (const json* linux = opt_object(j, "linux", "")) {
    s.cgroups_path = opt_string(*linux, "cgroupsPath", "linux.").value_or("");
    if (const json* devices = opt_array(*linux, "devices", "linux.")) {
      for (size_t i = 0; i < devices->size(); ++i) {
        const json& d = (*devices)[i];
        std::string p = "linux.devices[" + std::to_string(i) + "].";
        if (!d.is_object()) throw ParseError(p.substr(0, p.size() - 1) + " must be an object");
        LinuxDevice dev;
        dev.path = opt_string(d, "path", p).value_or("");
        dev.type = opt_string(d, "type", p).value_or("");
        dev.major = opt_integer(d, "major", p).value_or(-1);
        dev.minor = opt_integer(d, "minor", p).value_or(-1);
        s.devices.push_back(std::move(dev));
      }
    }
    if (const json* res = opt_object(*linux, "resources", "linux."))
      if (const json* cpu = opt_object(*res, "cpu", "linux.resources."))
        if (auto mems = opt_string(*cpu, "mems", "linux.resources.cpu."); mems && !mems->empty())
          s.cpuset_mems = *mems;
  }
  return s;
}

// Devices the runtimes would make otherwise than we read them. A type other than the OCI spec's
// four: runc refuses it, crun makes a character device of it (any type but "b" and "p"). A
// number past Linux's (major 12 bits, minor 20): runc passes the low 32 bits of each to
// unix.Mkdev and the kernel's mknod keeps 12 and 20 of them (major 4291 or 195 + 2^32 makes
// 195), crun's makedev keeps 32 bits. Emulating each runtime's truncation would tie us to their
// code; no real device has such numbers, so they are refused. -1 is an absent number (runc and
// crun refuse it as a node's).
void check_devices(const Spec& s) {
  constexpr long long kMaxMajor = 4095, kMaxMinor = (1 << 20) - 1;
  for (size_t i = 0; i < s.devices.size(); ++i) {
    const LinuxDevice& d = s.devices[i];
    auto what = [&] {
      return "config.json linux.devices[" + std::to_string(i) + "] (" + gnh::one_line(d.path.substr(0, 100)) + ")";
    };
    if (d.type != "c" && d.type != "u" && d.type != "b" && d.type != "p")
      throw MisreadSpec(what() + " has type \"" + gnh::one_line(d.type.substr(0, 20)) +
                        "\": runc refuses it and crun makes a character device; use \"c\", \"u\", \"b\" or \"p\"");
    auto check = [&](long long n, long long max, const char* name) {
      if (n == -1 || (n >= 0 && n <= max)) return;
      throw MisreadSpec(what() + " has " + name + " " + std::to_string(n) + ", not a Linux device number (0-" +
                        std::to_string(max) + "): runtimes cut it to another device's; write the device's own numbers");
    };
    check(d.major, kMaxMajor, "major");
    check(d.minor, kMaxMinor, "minor");
  }
}

}  // namespace

std::optional<std::string> Spec::env_value(std::string_view key) const {
  std::optional<std::string> found;
  for (const auto& e : env) {
    if (e.size() > key.size() && e.compare(0, key.size(), key) == 0 && e[key.size()] == '=')
      found = e.substr(key.size() + 1);
  }
  return found;
}

Spec parse_spec_whole(std::string_view text) {
  json j = parse_json(text, "config.json");
  if (!j.is_object()) throw ParseError("config.json must be a JSON object, not " + type_name(j));
  refuse_misread(text);
  Spec s = spec_from(j);
  check_devices(s);
  return s;
}

Spec parse_spec(std::string_view text) {
  std::optional<LocatedMembers> found = locate_members(text, spec_members());
  if (!found) return parse_spec_whole(text);  // invalid, or a form left to nlohmann: its verdict
  // Arrays read from the text already are not built into the document. Their elements' members
  // are checked as they are read; where one is not read here, member_check.h looks at the text.
  bool check_members = found->ambiguous;
  std::optional<std::vector<Mount>> mounts;
  if (auto& m = found->values[kMountsMember]) {
    mounts = plain_mounts(*m);
    if (mounts) m.reset();
    else check_members = true;
  }
  std::optional<std::vector<LinuxDevice>> devices;
  if (auto& d = found->values[kDevicesMember]) {
    devices = plain_devices(*d);
    if (devices) d.reset();
    else check_members = true;
  }
  if (check_members) refuse_misread(text);
  std::optional<std::vector<std::string>> env, bounding;
  if (auto& e = found->values[kEnvMember]) {
    env = plain_strings(*e);
    if (env) e.reset();
  }
  if (auto& b = found->values[kBoundingMember]) {
    bounding = plain_strings(*b);
    if (bounding) b.reset();
  }
  // Each stage's hooks from the text, or every stage from the document (they keep their order).
  std::optional<std::vector<Hook>> hooks = std::vector<Hook>();
  for (size_t k = 0; k < 3 && hooks; ++k)
    if (const auto& h = found->values[kFirstHookStage + k]) {
      std::optional<std::vector<Hook>> stage = plain_hooks(*h, kHookStages[k]);
      if (stage) hooks->insert(hooks->end(), stage->begin(), stage->end());
      else hooks.reset();
    }
  if (hooks)
    for (size_t k = 0; k < 3; ++k) found->values[kFirstHookStage + k].reset();
  else if (!check_members) refuse_misread(text);
  Spec s = spec_from(document_of(*found));
  if (mounts) s.mounts = std::move(*mounts);
  if (devices) s.devices = std::move(*devices);
  if (env) s.env = std::move(*env);
  if (bounding) s.bounding_capabilities = std::move(*bounding);
  if (hooks) s.hooks = std::move(*hooks);
  check_devices(s);
  return s;
}

}  // namespace oci
