// `install --boot-gate UNIT`: the systemd drop-in that holds a container service's start until the
// GPU memory nodes are online (`gpu-numa-hook wait`), as config/systemd/gpu-numa-hook-wait.conf
// ships it. Pure: the unit's drop-in path and text; the host side writes it.
#pragma once

#include <optional>
#include <string>

namespace gnh {

// The services the gate is for, by the name operators give: docker, containerd, kubelet, crio.
// The systemd unit ("docker.service"), nullopt for any other name.
std::optional<std::string> boot_gate_unit(const std::string& service);

// <root>/etc/systemd/system/<unit>.d/gpu-numa-hook-wait.conf
std::string boot_gate_path(const std::string& root, const std::string& unit);

// The drop-in's text for `unit`, running `hook_path` (the shipped file's text for containerd.service
// with /usr/bin/gpu-numa-hook). docker.service ships TimeoutStartSec=0 (no limit): its drop-in
// leaves that alone instead of capping it.
std::string boot_gate_dropin(const std::string& unit, const std::string& hook_path);

}  // namespace gnh
