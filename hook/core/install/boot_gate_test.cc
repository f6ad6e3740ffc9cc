// The boot gate's drop-in: one text with the shipped example, the docker exception, the paths.
#include <doctest/doctest.h>

#include <fstream>
#include <sstream>

#include "install/boot_gate.h"

using namespace gnh;

TEST_CASE("boot gate: the shipped drop-in is what install writes for containerd") {
  std::ifstream in(std::string(GNH_SOURCE_DIR) + "/config/systemd/gpu-numa-hook-wait.conf");
  REQUIRE(in);
  std::stringstream shipped;
  shipped << in.rdbuf();
  CHECK(boot_gate_dropin("containerd.service", "/usr/bin/gpu-numa-hook") == shipped.str());
  CHECK(boot_gate_dropin("kubelet.service", "/usr/bin/gpu-numa-hook") == shipped.str());
}

TEST_CASE("boot gate: docker keeps its unlimited start timeout, the hook path is the one given") {
  std::string d = boot_gate_dropin("docker.service", "/opt/gnh/bin/gpu-numa-hook");
  CHECK(d.find("ExecStartPre=-/opt/gnh/bin/gpu-numa-hook wait --timeout 300\n") != std::string::npos);
  CHECK(d.find("TimeoutStartSec=") == std::string::npos);
  CHECK(boot_gate_dropin("crio.service", "/usr/bin/gpu-numa-hook").find("\nTimeoutStartSec=480\n") != std::string::npos);
}

TEST_CASE("boot gate: units by service name, the drop-in beneath the host root") {
  CHECK(boot_gate_unit("docker") == "docker.service");
  CHECK(boot_gate_unit("crio") == "crio.service");
  CHECK(boot_gate_unit("kubelet") == "kubelet.service");
  CHECK(boot_gate_unit("containerd") == "containerd.service");
  CHECK_FALSE(boot_gate_unit("podman"));
  CHECK_FALSE(boot_gate_unit("docker.service/../x"));
  CHECK(boot_gate_path("", "docker.service") == "/etc/systemd/system/docker.service.d/gpu-numa-hook-wait.conf");
  CHECK(boot_gate_path("/h/", "crio.service") == "/h/etc/systemd/system/crio.service.d/gpu-numa-hook-wait.conf");
}
