#include "report/container_names.h"

#include <cstdio>
#include <initializer_list>

namespace gnh {

namespace {

bool name_byte(unsigned char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' || c == '_' ||
         c == '-';
}

std::string lookup(const std::map<std::string, std::string>& first, const std::map<std::string, std::string>& second,
                   std::initializer_list<const char*> keys) {
  for (const auto* m : {&first, &second})
    for (const char* k : keys)
      if (auto it = m->find(k); it != m->end() && !it->second.empty()) return printable_name(it->second);
  return "";
}

}  // namespace

std::string printable_name(const std::string& raw) {
  std::string out;
  size_t n = raw.size() < kMaxNameBytes ? raw.size() : kMaxNameBytes;
  for (size_t i = 0; i < n; ++i) {
    auto c = static_cast<unsigned char>(raw[i]);
    if (name_byte(c)) {
      out += static_cast<char>(c);
    } else {
      char esc[8];
      std::snprintf(esc, sizeof esc, "\\x%02x", c);
      out += esc;
    }
  }
  if (raw.size() > kMaxNameBytes) out += "...";
  return out;
}

std::string ContainerNames::pod() const {
  if (pod_namespace.empty() && pod_name.empty()) return "";
  return (pod_namespace.empty() ? "-" : pod_namespace) + "/" + (pod_name.empty() ? "-" : pod_name);
}

std::string ContainerNames::stderr_suffix() const {
  std::string parts;
  if (!pod().empty()) parts = "pod " + pod();
  if (!container_name.empty()) parts += (parts.empty() ? "" : ", ") + std::string("container ") + container_name;
  return parts.empty() ? "" : " (" + parts + ")";
}

ContainerNames container_names(const std::map<std::string, std::string>& first,
                               const std::map<std::string, std::string>& second) {
  // A map is empty for Docker and podman: no lookups at all on their starts.
  if (first.empty() && second.empty()) return {};
  ContainerNames n;
  n.pod_namespace = lookup(first, second, {"io.kubernetes.pod.namespace", "io.kubernetes.cri.sandbox-namespace"});
  n.pod_name = lookup(first, second, {"io.kubernetes.pod.name", "io.kubernetes.cri.sandbox-name"});
  n.container_name = lookup(first, second, {"io.kubernetes.container.name", "io.kubernetes.cri.container-name"});
  return n;
}

}  // namespace gnh
