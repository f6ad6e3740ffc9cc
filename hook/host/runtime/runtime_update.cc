#include "host/runtime/runtime_update.h"

#include "host/decide/device_forms_reader.h"

#include <sys/stat.h>

#include <cerrno>

#include "base/error.h"
#include "gpu/gpu_request.h"
#include "host/driver/driver_reader.h"
#include "host/fs/host_fs.h"
#include "host/oci/spec_reader.h"
#include "runtime/runc_state.h"

namespace gnh {

bool runc_knows_container(const std::string& runc_root, const std::string& id) {
  if (id.empty() || id.find('/') != std::string::npos || id == "." || id == "..") return true;  // refused below
  struct stat st {};
  return ::stat((runc_root + "/" + id + "/state.json").c_str(), &st) == 0 || errno != ENOENT;
}

RunningContainer read_running_container(const std::string& runc_root, const std::string& id, const Config& cfg) {
  return read_running_container(HostFs("/"), runc_root, id, cfg);
}

RunningContainer read_running_container(const HostFs& fs, const std::string& runc_root, const std::string& id,
                                        const Config& cfg) {
  // A container id is a single path component in runc; refuse anything else before building paths.
  if (id.empty() || id.find('/') != std::string::npos || id == "." || id == "..")
    fail("update: '" + id + "' is not a container id", EINVAL);
  const std::string state_file = runc_root + "/" + id + "/state.json";
  auto state_text = fs.read(state_file, 4 * 1024 * 1024);
  if (!state_text) fail("update: " + state_file + ": no such file (is --root right?)", ENOENT);
  RuncState state = parse_runc_state(*state_text);
  if (!state.cpuset_dir) fail("update: " + state_file + " names no cpuset cgroup", ENOENT);
  if (!state.bundle) fail("update: " + state_file + " names no bundle", ENOENT);
  return read_container_at(fs, *state.cpuset_dir, *state.bundle, cfg, "update");
}

RunningContainer read_container_at(const HostFs& fs, const std::string& cpuset_dir, const std::string& bundle,
                                   const Config& cfg, const std::string& what) {
  RunningContainer c;
  c.cpuset_dir = cpuset_dir;
  auto mems_text = fs.read(c.cpuset_dir + "/cpuset.mems");
  if (mems_text && mems_text->find_first_not_of(" \n") == std::string::npos)  // v2: empty = inherit
    mems_text = fs.read(c.cpuset_dir + "/cpuset.mems.effective");
  if (!mems_text) fail(what + ": " + c.cpuset_dir + "/cpuset.mems: no such file", ENOENT);
  auto mems = NodeSet::parse(*mems_text);
  if (!mems) fail(what + ": " + c.cpuset_dir + "/cpuset.mems: not a node list");
  c.current_mems = *mems;

  oci::Spec spec = read_bundle_spec(fs, bundle);
  c.gpus = "-";
  const DeviceForms forms = read_device_forms(fs, spec, cfg.next_hook);
  if (!may_request_gpus(spec, forms)) return c;
  Inventory inv = read_inventory(fs, cfg.overrides);
  GpuRequest req = resolve_gpu_request(spec, inv, forms);
  std::string label;
  for (size_t i : req.gpus) {
    const Gpu& g = inv.gpus[i];
    if (g.memory_node) c.gpu_nodes.add(*g.memory_node);
    label += (label.empty() ? "" : ",") + g.device_path() + "(" + g.bus_id + ")";
  }
  if (!label.empty()) c.gpus = label;
  return c;
}

}  // namespace gnh
