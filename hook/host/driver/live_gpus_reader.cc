#include "host/driver/live_gpus_reader.h"

#include "host/driver/driver_reader.h"
#include "host/driver/mig_layout_reader.h"
#include "host/driver/nvml_cache_reader.h"

namespace gnh {

LiveGpus read_live_gpus(const HostFs& fs) {
  LiveGpus live;
  live.boot_id = read_boot_id(fs);
  live.driver_version = read_driver_version(fs);
  // The information files, not the identity cache: a refresh rewrites that cache from this.
  const GpuDirectory dir(fs);
  for (const Gpu& g : read_gpu_identities(dir).gpus) live.gpus.push_back({g.minor, g.bus_id, read_mig_layout(fs, g.minor)});
  return live;
}

}  // namespace gnh
