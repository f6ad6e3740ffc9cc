// Which GPUs a container asks for: NVIDIA_VISIBLE_DEVICES, linux.devices (any major/minor, also
// negative or huge), the volume-mount form and CDI annotations, all from fuzz bytes, resolved
// against a fixed four-GPU inventory. Every index returned must exist, sorted and unique.
#include <fuzzer/FuzzedDataProvider.h>

#include <cstddef>
#include <cstdint>

#include "gpu/gpu_request.h"

namespace {
gnh::Inventory make_inventory() {
  gnh::Inventory inv;
  const char* buses[] = {"0004:04:00.0", "0004:05:00.0", "0035:03:00.0", "0035:04:00.0"};
  for (unsigned i = 0; i < 4; ++i) {
    gnh::Gpu g;
    g.minor = i;
    g.bus_id = buses[i];
    g.uuid = "GPU-a0c0ffee-0000-4000-8000-00000000000" + std::to_string(i);
    inv.gpus.push_back(g);
  }
  return inv;
}
}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const gnh::Inventory inv = make_inventory();
  FuzzedDataProvider fdp(data, size);
  oci::Spec spec;
  int n_env = fdp.ConsumeIntegralInRange(0, 4);
  for (int i = 0; i < n_env; ++i) {
    switch (fdp.ConsumeIntegralInRange(0, 3)) {
      case 0: spec.env.push_back("NVIDIA_VISIBLE_DEVICES=" + fdp.ConsumeRandomLengthString(64)); break;
      case 1: spec.env.push_back("CUDA_VERSION=" + fdp.ConsumeRandomLengthString(8)); break;
      case 2: spec.env.push_back("NVIDIA_REQUIRE_CUDA=" + fdp.ConsumeRandomLengthString(8)); break;
      default: spec.env.push_back(fdp.ConsumeRandomLengthString(64)); break;
    }
  }
  int n_dev = fdp.ConsumeIntegralInRange(0, 4);
  for (int i = 0; i < n_dev; ++i) {
    oci::LinuxDevice d;
    d.path = fdp.ConsumeRandomLengthString(32);
    d.type = fdp.ConsumeBool() ? "c" : fdp.ConsumeRandomLengthString(2);
    d.major = fdp.ConsumeBool() ? 195 : fdp.ConsumeIntegral<int64_t>();
    d.minor = fdp.ConsumeBool() ? fdp.ConsumeIntegralInRange<int64_t>(-2, 300) : fdp.ConsumeIntegral<int64_t>();
    spec.devices.push_back(d);
  }
  int n_mount = fdp.ConsumeIntegralInRange(0, 3);
  for (int i = 0; i < n_mount; ++i)
    spec.mounts.push_back({std::string(gnh::kDeviceMountDir) + fdp.ConsumeRandomLengthString(48), "/dev/null"});
  int n_ann = fdp.ConsumeIntegralInRange(0, 3);
  for (int i = 0; i < n_ann; ++i)
    spec.annotations[std::string(gnh::kCdiAnnotationPrefix) + fdp.ConsumeRandomLengthString(16)] =
        fdp.ConsumeRandomLengthString(96);
  if (fdp.ConsumeBool()) spec.env.push_back("NVIDIA_VISIBLE_DEVICES=" + fdp.ConsumeRemainingBytesAsString());

  const gnh::DeviceForms forms = gnh::every_device_form();
  // A request the fast test turns down must name no GPU when resolved.
  const bool may = gnh::may_request_gpus(spec, forms);
  gnh::GpuRequest req = gnh::resolve_gpu_request(spec, inv, forms);
  if (!may && !req.gpus.empty()) __builtin_trap();
  for (size_t i = 0; i < req.gpus.size(); ++i) {
    if (req.gpus[i] >= inv.gpus.size()) __builtin_trap();
    if (i > 0 && req.gpus[i - 1] >= req.gpus[i]) __builtin_trap();
  }
  return 0;
}
