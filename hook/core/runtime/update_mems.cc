#include "runtime/update_mems.h"

#include <nlohmann/json.hpp>

#include "base/error.h"
#include "runtime/json_object.h"

namespace gnh {

NodeSet keep_gpu_nodes(const NodeSet& requested, const NodeSet& current, const NodeSet& gpu_nodes) {
  return requested | (current & gpu_nodes);
}

MemsUpdate widen_mems_value(std::string_view requested, const NodeSet& current, const NodeSet& gpu_nodes) {
  MemsUpdate u;
  u.requested = std::string(requested);
  u.widened = u.requested;
  std::string why;
  auto req = NodeSet::parse(requested, &why);
  if (!req) fail("update: cpuset mems '" + std::string(requested) + "' is not a node list: " + why);
  if (req->empty()) return u;  // runc leaves mems as they are
  NodeSet merged = keep_gpu_nodes(*req, current, gpu_nodes);
  u.kept = merged - *req;
  if (!u.kept.empty()) u.widened = merged.to_string();
  return u;
}

ResourcesUpdate widen_resources_json(std::string_view json, const NodeSet& current, const NodeSet& gpu_nodes) {
  ResourcesUpdate r;
  r.text = std::string(json);
  auto res = parse_json_object<nlohmann::ordered_json>(json, "update: --resources");
  auto cpu = res.find("cpu");
  if (cpu == res.end() || !cpu->is_object()) return r;
  auto mems = cpu->find("mems");
  if (mems == cpu->end() || mems->is_null()) return r;
  if (!mems->is_string()) fail("update: --resources cpu.mems is not a string");
  r.update = widen_mems_value(mems->get<std::string>(), current, gpu_nodes);
  if (r.update->kept.empty()) return r;
  *mems = r.update->widened;
  r.text = res.dump();
  return r;
}

}  // namespace gnh
