#include "status/nri_fail_closed.h"

#include <doctest/doctest.h>

using namespace gnh;

namespace {
StatusFacts plugin_on(const std::string& runtime) {
  StatusFacts f;
  f.nri = "connected to " + runtime;
  f.nri_connected = true;
  f.nri_runtime = runtime;
  return f;
}
}  // namespace

TEST_CASE("status: containerd before 2.2 fails open for GPU pods, and says what closes the gap") {
  CHECK(nri_fail_closed_note(plugin_on("containerd v2.1.9")) ==
        "containerd 2.1 has no NRI validator: GPU pods fail open while gpu-numa-nri is not registered (they start "
        "without the hook); upgrade containerd to 2.2 or later, then gpu-numa-hook install --runtime nri "
        "--nri-require-for-gpu-pods and the require-plugin component close the gap (docs/nri.md, \"Failing closed\")");
  CHECK(nri_fail_closed_note(plugin_on("containerd 1.7.24")).starts_with("containerd 1.7 has no NRI validator: "));
}

TEST_CASE("status: containerd 2.2+ fails closed for annotated GPU pods only with the validator on") {
  StatusFacts f = plugin_on("containerd v2.2.7");
  CHECK(nri_fail_closed_note(f) ==
        "containerd 2.2 runs without NRI's default validator: GPU pods fail open while gpu-numa-nri is not registered; "
        "gpu-numa-hook install --runtime nri --nri-require-for-gpu-pods and the require-plugin component close the gap "
        "(docs/nri.md, \"Failing closed\")");
  f.nri_validator_enabled = true;
  f.nri_validator_file = "/etc/containerd/conf.d/99-zz-gpu-numa-nri-validator.toml";
  f.nri_runtime = "containerd v2.3.4";
  CHECK(nri_fail_closed_note(f) ==
        "containerd 2.3 runs NRI's default validator (/etc/containerd/conf.d/99-zz-gpu-numa-nri-validator.toml): GPU "
        "pods annotated required-plugins.noderesource.dev: [\"gpu-numa\"] (the require-plugin component) fail closed "
        "while gpu-numa-nri is not registered; pods without the annotation fail open");
}

TEST_CASE("status: no note without the plugin, for CRI-O, or when the release is unknown") {
  CHECK(nri_fail_closed_note(StatusFacts{}) == "");
  CHECK(nri_fail_closed_note(plugin_on("cri-o 1.31.0")) == "");
  CHECK(nri_fail_closed_note(plugin_on("containerd")) == "");
}
