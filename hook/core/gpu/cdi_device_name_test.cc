#include "gpu/cdi_device_name.h"

#include <doctest/doctest.h>

using namespace gnh;

TEST_CASE("CDI names of NVIDIA GPUs: every GPU and MIG form, the coherence split, NVIDIA's subdomains") {
  for (const char* n : {"nvidia.com/gpu=0", "nvidia.com/gpu=all", "nvidia.com/gpu=0:1", "nvidia.com/gpu=mig0:1",
                        "nvidia.com/gpu=GPU-f0586c67-b718-ef40-6571-4caeff0ab99c",
                        "nvidia.com/gpu=MIG-8f8a0d6e-7e65-5c1b-9b2b-1c2d3e4f5a6b", "nvidia.com/gpu.coherent=0",
                        "management.nvidia.com/gpu=all", "k8s.device-plugin.nvidia.com/gpu=GPU-f0586c67",
                        " nvidia.com/gpu=1 "})
    CHECK_MESSAGE(is_nvidia_gpu_cdi_name(n), n);
}

TEST_CASE("CDI names that carry no NVIDIA GPU") {
  for (const char* n : {"", "nvidia.com/gpu", "nvidia.com/gpu=", "nvidia.com/imex-channel=0", "nvidia.com/gdrcopy=all",
                        "nvidia.com/gpus=0", "vendor.example/gpu=0", "notnvidia.com/gpu=0", "nvidia.com.evil/gpu=0",
                        "gpu=0", "nvidia.com/gpu0"})
    CHECK_FALSE_MESSAGE(is_nvidia_gpu_cdi_name(n), n);
}

TEST_CASE("a list names an NVIDIA GPU when any of its entries does") {
  CHECK(names_nvidia_gpu_cdi_device("vendor.example/fpga=0,nvidia.com/gpu=1"));
  CHECK(names_nvidia_gpu_cdi_device("nvidia.com/gpu=0"));
  CHECK_FALSE(names_nvidia_gpu_cdi_device(""));
  CHECK_FALSE(names_nvidia_gpu_cdi_device(","));
  CHECK_FALSE(names_nvidia_gpu_cdi_device("vendor.example/fpga=0,nvidia.com/imex-channel=0"));
}
