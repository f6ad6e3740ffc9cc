#include "status/nri_fail_closed.h"

#include <cctype>
#include <sstream>

namespace gnh {

namespace {

// MAJOR.MINOR of the first word of `runtime` ("containerd v2.2.7", "containerd 1.7.24") that
// reads as one; false when none does.
bool release_of(const std::string& runtime, int* major, int* minor) {
  std::istringstream words(runtime);
  std::string w;
  while (words >> w) {
    if (!w.empty() && w[0] == 'v') w.erase(0, 1);
    size_t dot = w.find('.');
    if (dot == 0 || dot == std::string::npos || !std::isdigit(static_cast<unsigned char>(w[dot + 1]))) continue;
    bool digits = true;
    for (size_t i = 0; i < dot; ++i) digits = digits && std::isdigit(static_cast<unsigned char>(w[i]));
    if (!digits) continue;
    *major = std::stoi(w.substr(0, dot));
    *minor = std::stoi(w.substr(dot + 1));
    return true;
  }
  return false;
}

}  // namespace

std::string nri_fail_closed_note(const StatusFacts& f) {
  int major = 0, minor = 0;
  if (f.nri.empty() || f.nri_runtime.rfind("containerd", 0) != 0 || !release_of(f.nri_runtime, &major, &minor)) return "";
  const std::string which = "containerd " + std::to_string(major) + "." + std::to_string(minor);
  const std::string close = "gpu-numa-hook install --runtime nri --nri-require-for-gpu-pods and the require-plugin "
                            "component close the gap (docs/nri.md, \"Failing closed\")";
  if (major < 2 || (major == 2 && minor < 2))
    return which + " has no NRI validator: GPU pods fail open while gpu-numa-nri is not registered (they start without "
                   "the hook); upgrade containerd to 2.2 or later, then " + close;
  if (!f.nri_validator_enabled)
    return which + " runs without NRI's default validator: GPU pods fail open while gpu-numa-nri is not registered; " +
           close;
  return which + " runs NRI's default validator (" + f.nri_validator_file +
         "): GPU pods annotated required-plugins.noderesource.dev: [\"gpu-numa\"] (the require-plugin component) fail "
         "closed while gpu-numa-nri is not registered; pods without the annotation fail open";
}

}  // namespace gnh
