// Running GPU containers without our hook: what actually runs, judged apart from how the node is
// configured. The runtime keeps each running container's real spec (its bundle's config.json), and
// that spec shows both its GPUs and its hooks, whoever put them there (the engine's hooks.d, our
// shim, our NRI plugin, NVIDIA's runtime in legacy mode). A GPU container with no entry of ours is
// unprotected, whatever the cause: NVIDIA's NRI plugin gave it a GPU we never saw, NVIDIA's runtime
// in a mode that never runs our hook, a pod started while our plugin was down. Pure: spec texts in.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "report/container_names.h"

namespace gnh {

// A running container as the runtime recorded it.
struct ObservedContainer {
  std::string id;
  std::string runtime;  // "runc", "crun": whose record it was
  std::string root;     // the state root it was found in ("/run/containerd/runc/k8s.io")
  std::string spec;     // its bundle's config.json, as read
};

struct UnprotectedContainer {
  std::string id;  // printable (printable_name): ids come from directory names the engine chose
  std::string runtime;
  std::string root;
  ContainerNames names;              // pod and container, from the CRI annotations; empty for Docker, podman
  std::vector<std::string> sources;  // how it gets its GPU ("linux.devices", "NVIDIA_VISIBLE_DEVICES=all", "cdi:...")
};

struct UnprotectedScan {
  std::vector<UnprotectedContainer> containers;
  std::vector<std::string> unreadable;  // "<id>: <why>" for a spec that does not parse: not judged
};

// The containers of `running` that may get a GPU (may_request_gpus, the hook's own test) and whose
// spec has no gpu-numa-hook entry at any stage (prestart, createRuntime, createContainer,
// startContainer, poststart).
UnprotectedScan unprotected_gpu_containers(const std::vector<ObservedContainer>& running);

// Whether a config.json names our hook at any stage: an entry whose path's basename is
// "gpu-numa-hook" (the shim's, hooks.d's, the NRI plugin's, NVIDIA's legacy-mode hook path), or
// whose args[0] is (hooks.d files and NVIDIA's hook keep the program's name there). False for a
// text that is not JSON (then parse_spec has refused it already).
bool names_our_hook(std::string_view config_json);

// check's section: "running GPU containers without gpu-numa-hook: N", then one row each.
std::string unprotected_text(const UnprotectedScan& scan);

// The one line status prints for each: what, which container, what to do.
std::string unprotected_line(const UnprotectedContainer& c);

}  // namespace gnh
