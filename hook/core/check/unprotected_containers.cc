#include "check/unprotected_containers.h"

#include <nlohmann/json.hpp>

#include "base/text.h"
#include "gpu/gpu_request.h"
#include "spec.h"

namespace gnh {

namespace {

constexpr const char* kOurProgram = "gpu-numa-hook";
constexpr const char* kStages[] = {"prestart", "createRuntime", "createContainer", "startContainer", "poststart"};

bool is_our_program(const nlohmann::json& v) {
  if (!v.is_string()) return false;
  return base_name(v.get_ref<const std::string&>()) == kOurProgram;
}

bool is_our_entry(const nlohmann::json& e) {
  if (!e.is_object()) return false;
  if (auto p = e.find("path"); p != e.end() && is_our_program(*p)) return true;
  auto a = e.find("args");
  return a != e.end() && a->is_array() && !a->empty() && is_our_program(a->front());
}

}  // namespace

bool names_our_hook(std::string_view config_json) {
  nlohmann::json j = nlohmann::json::parse(config_json, nullptr, false);
  if (!j.is_object()) return false;
  auto hooks = j.find("hooks");
  if (hooks == j.end() || !hooks->is_object()) return false;
  for (const char* stage : kStages) {
    auto s = hooks->find(stage);
    if (s == hooks->end() || !s->is_array()) continue;
    for (const auto& e : *s)
      if (is_our_entry(e)) return true;
  }
  return false;
}

UnprotectedScan unprotected_gpu_containers(const std::vector<ObservedContainer>& running) {
  UnprotectedScan out;
  for (const ObservedContainer& c : running) {
    oci::Spec spec;
    try {
      spec = oci::parse_spec(c.spec);
    } catch (const std::exception& e) {
      out.unreadable.push_back(printable_name(c.id) + ": " + e.what());
      continue;
    }
    // The fast test first: most containers have no GPU, and their spec is parsed once.
    // The forms as the hook counts them before reading NVIDIA's settings (gpu/device_forms.h): a
    // variable that no hook of the container reads gave it no GPU.
    const DeviceForms forms = device_forms(spec, visible_devices_reader(spec, ""), std::nullopt);
    if (!may_request_gpus(spec, forms) || names_our_hook(c.spec)) continue;
    UnprotectedContainer u;
    u.id = printable_name(c.id);
    u.runtime = c.runtime;
    u.root = c.root;
    u.names = container_names(spec.annotations, spec.annotations);
    // No inventory: where the request came from needs none, and this reads no driver file.
    u.sources = resolve_gpu_request(spec, Inventory{}, forms).sources;
    out.containers.push_back(std::move(u));
  }
  return out;
}

std::string unprotected_text(const UnprotectedScan& scan) {
  std::string s = "running GPU containers without gpu-numa-hook: " + std::to_string(scan.containers.size()) + "\n";
  for (const auto& c : scan.containers) {
    std::string how;
    for (const auto& src : c.sources) how += (how.empty() ? "" : ",") + src;
    s += "  " + c.id + "  " + c.runtime + " " + c.root;
    if (!c.names.pod().empty()) s += "  pod " + c.names.pod();
    if (!c.names.container_name.empty()) s += "  container " + c.names.container_name;
    s += "  gpu from " + (how.empty() ? std::string("-") : how) + "\n";
  }
  for (const auto& u : scan.unreadable) s += "  not judged (config.json does not parse): " + u + "\n";
  return s;
}

std::string unprotected_line(const UnprotectedContainer& c) {
  std::string who = "container " + c.id + c.names.stderr_suffix();
  std::string how;
  for (const auto& s : c.sources) how += (how.empty() ? "" : ", ") + s;
  return "GPU container running without gpu-numa-hook: " + who + ", " + c.runtime + " (" + c.root + "), GPU from " +
         (how.empty() ? std::string("-") : how) +
         "; its GPU memory node is not guaranteed: find what started it without the hook (docs/troubleshoot.md), "
         "then restart it";
}

}  // namespace gnh
