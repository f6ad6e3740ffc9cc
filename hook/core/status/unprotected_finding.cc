#include "status/unprotected_finding.h"

#include "status/node_status.h"

namespace gnh {

void judge_running_containers(const RunningContainersFact& f, StatusVerdict* v) {
  if (!f.read) {
    v->unknown.push_back("running containers: " + f.error);
    return;
  }
  for (const auto& c : f.scan.containers) v->not_protected.push_back(unprotected_line(c));
  for (const auto& u : f.scan.unreadable) v->notes.push_back("running container " + u + ": its config.json does not parse: not judged");
}

std::string running_containers_text(const RunningContainersFact& f) {
  if (!f.read) return "containers: cannot tell\n";
  std::string o = "containers: " + std::to_string(f.running) + " running, " +
                  (f.scan.containers.empty() ? std::string("every GPU container with the hook")
                                             : std::to_string(f.scan.containers.size()) + " GPU container(s) without the hook") +
                  "\n";
  for (const auto& c : f.scan.containers) {
    std::string how;
    for (const auto& s : c.sources) how += (how.empty() ? "" : ",") + s;
    o += "  unprotected: " + c.id + c.names.stderr_suffix() + " " + c.runtime + " " + c.root + " gpu from " + how + "\n";
  }
  return o;
}

nlohmann::json running_containers_json(const RunningContainersFact& f) {
  using json = nlohmann::json;
  json j = {{"read", f.read}, {"running", f.running}};
  if (!f.read) j["error"] = f.error;
  json a = json::array();
  for (const auto& c : f.scan.containers)
    a.push_back({{"container", c.id}, {"runtime", c.runtime}, {"root", c.root},
                 {"pod", c.names.pod().empty() ? json(nullptr) : json(c.names.pod())},
                 {"container_name", c.names.container_name.empty() ? json(nullptr) : json(c.names.container_name)},
                 {"sources", c.sources}});
  j["unprotected_gpu_containers"] = a;
  return j;
}

}  // namespace gnh
