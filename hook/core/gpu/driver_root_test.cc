// [nvidia-container-cli] root: where NVIDIA's parts find the driver's files.
#include "gpu/driver_root.h"

#include <doctest/doctest.h>

using namespace gnh;

TEST_CASE("driver root: NVIDIA's [nvidia-container-cli] root, as the operator's toolkit writes it, and what is not one") {
  // the real nvidia-ctk-installer 1.20.0's file (tests/fixtures/nvidia-ctk-installer-1.20.0/config.toml)
  CHECK(nvidia_driver_root("accept-nvidia-visible-devices-as-volume-mounts = true\n\n[nvidia-container-cli]\n"
                           "  ldconfig = \"@/run/nvidia/driver/sbin/ldconfig\"\n  root = \"/run/nvidia/driver\"\n") ==
        std::optional<std::string>("/run/nvidia/driver"));
  CHECK(nvidia_driver_root("[nvidia-container-cli]\nroot = \"/run/nvidia/driver/\"\n") ==
        std::optional<std::string>("/run/nvidia/driver"));
  CHECK(nvidia_driver_root("[nvidia-container-cli]\nroot = \"/\"\n") == std::optional<std::string>("/"));
  // NVIDIA's packaged file leaves it commented: the host's own root
  CHECK_FALSE(nvidia_driver_root("[nvidia-container-cli]\n#root = \"/run/nvidia/driver\"\nload-kmods = true\n"));
  CHECK_FALSE(nvidia_driver_root("root = \"/run/nvidia/driver\"\n"));  // not under [nvidia-container-cli]
  CHECK_FALSE(nvidia_driver_root("[nvidia-container-cli]\nroot = \"run/nvidia/driver\"\n"));
  CHECK_FALSE(nvidia_driver_root("[nvidia-container-cli]\nroot = \"/run/nvidia/../../etc\"\n"));
  CHECK_FALSE(nvidia_driver_root("[nvidia-container-cli]\nroot = 1\n"));
  CHECK_FALSE(nvidia_driver_root("[nvidia-container-cli\nroot = \"/x\"\n"));
  CHECK_FALSE(nvidia_driver_root(""));
}
