#include "install/nri_validator_config.h"

#include <doctest/doctest.h>

#include "install/nri_config.h"

using namespace gnh;

TEST_CASE("nri validator install: only containerd 2.2 and later have the default validator") {
  CHECK(nri_validator_unsupported(2, 2, "containerd 2.2") == "");
  CHECK(nri_validator_unsupported(2, 3, "containerd 2.3") == "");
  CHECK(nri_validator_unsupported(3, 0, "containerd 3.0") == "");
  CHECK(nri_validator_unsupported(2, 1, "containerd 2.1 (containerd --version)") ==
        "--nri-require-for-gpu-pods needs containerd 2.2 or later (NRI's default validator, NRI 0.10); containerd "
        "2.1 (containerd --version) has none, so GPU pods fail open there while the plugin is not registered: "
        "upgrade containerd to 2.2 or later to fail closed (docs/nri.md, \"Failing closed\")");
  CHECK(nri_validator_unsupported(1, 7, "containerd 1.7") != "");
  CHECK(nri_validator_unsupported(0, 0, "containerd of unknown release") != "");
}

TEST_CASE("nri validator install: the drop-in enables the validator, requires nothing node-wide") {
  const std::string d = containerd_nri_validator_dropin("version = 3\n[plugins.'io.containerd.nri.v1.nri']\nsocket_path = '/x'\n", "f");
  NriValidatorSettings v;
  read_containerd_nri_validator(d, "dropin", &v);
  CHECK(v.enable);
  CHECK_FALSE(v.reject_oci_hook_adjustment);
  CHECK(v.required_plugins.empty());
  CHECK(v.file == "dropin");
  CHECK(d.find("version = 3\n") != std::string::npos);
  CHECK(d.find("required_plugins") == std::string::npos);
  CHECK(d.find("socket_path") == std::string::npos);  // the main file's keys stay the main file's
  CHECK(containerd_nri_validator_dropin("", "f").find("version = 2\n") != std::string::npos);
}
