// Who a container is for an operator: the Kubernetes pod (namespace/name) and the container's name
// in it, from the annotations the engines put in config.json (and so in the OCI state). Docker and
// podman pass no name there: those containers are named by their id alone.
#pragma once

#include <map>
#include <string>

namespace gnh {

// Each value is safe to print as one token: at most kMaxNameBytes of the annotation, every byte
// outside [A-Za-z0-9._-] written as \xNN (so no space, quote, '=', '/' or control byte can forge
// a field or split a line), and "..." after a cut. "" when the engine set no such annotation.
struct ContainerNames {
  std::string pod_namespace;
  std::string pod_name;
  std::string container_name;  // the container's name in its pod
  bool empty() const { return pod_namespace.empty() && pod_name.empty() && container_name.empty(); }
  // "ns/name", "-/name" or "ns/-"; "" when neither is known.
  std::string pod() const;
  // " (pod ns/name, container c)" for the end of a stderr line; "" when nothing is known.
  std::string stderr_suffix() const;
};

// Kubernetes names are at most 253 bytes (a DNS subdomain); anything longer is not one.
constexpr size_t kMaxNameBytes = 253;

// CRI-O (and kubelet's labels): io.kubernetes.pod.name, io.kubernetes.pod.namespace,
// io.kubernetes.container.name. containerd's CRI: io.kubernetes.cri.sandbox-name,
// io.kubernetes.cri.sandbox-namespace, io.kubernetes.cri.container-name. The first map wins
// (the OCI state's), then the second (config.json's); pass the same map twice when there is one.
ContainerNames container_names(const std::map<std::string, std::string>& first,
                               const std::map<std::string, std::string>& second);

// One annotation value made printable as described above (exposed for tests).
std::string printable_name(const std::string& raw);

}  // namespace gnh
