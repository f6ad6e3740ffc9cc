// The NRI side of the GPU forms table (tests/k8s/admission/pods.yaml, as JSON on stdin): for each
// view of each case that has one, the containers gpu-numa-nri's own CreateContainer decision
// (plugin/decisions.h, hook_adjustment) adds the hook to, one line each:
//   CASE VIEW CONTAINER,CONTAINER|-
// The pod's annotations are the case's pod's (NVIDIA's NRI plugin reads its own there); each
// container is built as the runtime shows it to NRI from the view's env, annotations, mounts,
// devices and CDI devices. Exit 1 on a table that does not read.
#include <iostream>
#include <string>

#include <nlohmann/json.hpp>

#include "plugin/decisions.h"

namespace api = ::nri::pkg::api::v1alpha1;
using nlohmann::json;

namespace {

api::Container container_of(const json& view) {
  api::Container c;
  c.set_name(view.at("name").get<std::string>());
  for (const auto& e : view.value("env", json::array())) c.add_env(e.get<std::string>());
  const json annotations = view.value("annotations", json::object());  // items() of a temporary would dangle
  for (const auto& [k, v] : annotations.items()) (*c.mutable_annotations())[k] = v.get<std::string>();
  for (const auto& m : view.value("mounts", json::array())) {
    api::Mount* mount = c.add_mounts();
    mount->set_destination(m.at("destination").get<std::string>());
    mount->set_source(m.value("source", ""));
  }
  for (const auto& d : view.value("cdiDevices", json::array())) c.add_cdi_devices()->set_name(d.get<std::string>());
  for (const auto& d : view.value("devices", json::array())) {
    api::LinuxDevice* dev = c.mutable_linux()->add_devices();
    dev->set_path(d.at("path").get<std::string>());
    dev->set_type(d.at("type").get<std::string>());
    dev->set_major(d.at("major").get<int64_t>());
    dev->set_minor(d.at("minor").get<int64_t>());
  }
  return c;
}

}  // namespace

int main() {
  try {
    const json table = json::parse(std::cin);
    const gnh::nri::HookSettings hook;
    for (const json& row : table) {
      if (!row.contains("nri")) continue;
      api::PodSandbox pod;
      const json& meta = row.at("pod").at("metadata");
      const json annotations = meta.value("annotations", json::object());
      for (const auto& [k, v] : annotations.items()) (*pod.mutable_annotations())[k] = v.get<std::string>();
      for (size_t i = 0; i < row.at("nri").size(); ++i) {
        std::string hooked;
        for (const json& view : row["nri"][i].at("containers")) {
          const api::Container c = container_of(view);
          if (gnh::nri::hook_adjustment(c, pod, hook)) hooked += (hooked.empty() ? "" : ",") + c.name();
        }
        std::cout << row.at("case").get<std::string>() << ' ' << i << ' ' << (hooked.empty() ? "-" : hooked) << '\n';
      }
    }
  } catch (const std::exception& e) {
    std::cerr << "nri_view: " << e.what() << '\n';
    return 1;
  }
  return 0;
}
