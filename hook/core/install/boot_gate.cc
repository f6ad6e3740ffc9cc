#include "install/boot_gate.h"

namespace gnh {

namespace {

// config/systemd/gpu-numa-hook-wait.conf, byte for byte (boot_gate_test.cc compares them), split
// where the hook path and docker's timeout differ.
constexpr const char* kHead =
    "# Drop-in: hold a container service's start until the GPU memory NUMA nodes are online and in the\n"
    "# root cpuset, so the slices it creates at start are not born stale (docs/operate.md).\n"
    "# Installed as /etc/systemd/system/<unit>.d/gpu-numa-hook-wait.conf for docker, containerd, crio\n"
    "# or kubelet by: gpu-numa-hook install --boot-gate <service>; then: systemctl daemon-reload\n"
    "[Unit]\n"
    "# nvidia-persistenced onlines the GPU memory on IBM AC922; Grace Hopper needs no such step and a\n"
    "# Wants= on a unit that does not exist is harmless.\n"
    "Wants=nvidia-persistenced.service\n"
    "After=nvidia-persistenced.service\n"
    "\n"
    "[Service]\n"
    "# \"-\": after a timeout (exit 1) the service starts anyway; the hook still heals each GPU\n"
    "# container's cpuset as it starts. Drop the \"-\" to keep the service down instead.\n"
    "ExecStartPre=-";
constexpr const char* kWait = " wait --timeout 300\n";
constexpr const char* kTimeout =
    "# Room for the 300 s wait plus the service's own start (containerd, crio and kubelet ship the\n"
    "# 90 s default; docker.service ships 0 = no limit: remove this line there to keep that).\n"
    "TimeoutStartSec=480\n";
constexpr const char* kDockerTimeout =
    "# No start timeout here: docker.service ships none (0 = no limit), which leaves room for the wait.\n";

}  // namespace

std::optional<std::string> boot_gate_unit(const std::string& service) {
  if (service == "docker" || service == "containerd" || service == "kubelet" || service == "crio")
    return service + ".service";
  return std::nullopt;
}

std::string boot_gate_path(const std::string& root, const std::string& unit) {
  std::string r = root;
  while (!r.empty() && r.back() == '/') r.pop_back();
  return r + "/etc/systemd/system/" + unit + ".d/gpu-numa-hook-wait.conf";
}

std::string boot_gate_dropin(const std::string& unit, const std::string& hook_path) {
  return std::string(kHead) + hook_path + kWait + (unit == "docker.service" ? kDockerTimeout : kTimeout);
}

}  // namespace gnh
