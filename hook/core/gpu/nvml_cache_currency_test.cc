// The NVML cache against the GPUs the driver shows now: what `topology --follow` refreshes on.
#include "gpu/nvml_cache_currency.h"

#include <doctest/doctest.h>

using namespace gnh;

namespace {
NvmlCache gb200_cache() {
  NvmlCache c;
  c.boot_id = "b1";
  c.driver_version = "570.124.06";
  CachedGpu g0;
  g0.minor = 0, g0.bus_id = "0008:01:00.0", g0.uuid = "GPU-a", g0.mig_mode = "disabled";
  CachedGpu g1;
  g1.minor = 1, g1.bus_id = "0009:01:00.0", g1.uuid = "GPU-b", g1.mig_mode = "enabled";
  g1.mig_devices = {{0, "MIG-1", 1, 0, 10}, {1, "MIG-2", 2, 0, 11}};
  c.gpus = {g0, g1};
  return c;
}
LiveGpus gb200_live() {
  return {"b1", "570.124.06", {{0, "0008:01:00.0", std::nullopt}, {1, "0009:01:00.0", MigLayout{{1, 0}, {2, 0}}}}};
}
}  // namespace

TEST_CASE("NVML cache currency: current while boot, driver, GPUs and every MIG layout match") {
  const NvmlCache cache = gb200_cache();
  LiveGpus live = gb200_live();
  CHECK(nvml_cache_refresh_reason(cache, live) == "");
  // a GPU without MIG capability folders has nothing to compare
  live.gpus[0].mig = MigLayout{};
  CHECK(nvml_cache_refresh_reason(cache, live) == "");

  SUBCASE("re-partitioned") {
    live.gpus[1].mig = MigLayout{{3, 0}};
    CHECK(nvml_cache_refresh_reason(cache, live) ==
          "GPU /dev/nvidia1 (0009:01:00.0) was re-partitioned: the NVML cache lists GPU instances 1/0, 2/0 (GI/CI), "
          "the driver lists 3/0 now");
  }
  SUBCASE("MIG mode turned on with instances on a GPU the cache has none for") {
    live.gpus[0].mig = MigLayout{{1, 0}};
    CHECK(nvml_cache_refresh_reason(cache, live).find("GPU /dev/nvidia0 (0008:01:00.0) was re-partitioned") == 0);
  }
  SUBCASE("a GPU the cache lacks, one it has that is gone, one renumbered") {
    live.gpus.push_back({2, "000a:01:00.0", std::nullopt});
    CHECK(nvml_cache_refresh_reason(cache, live) == "GPU /dev/nvidia2 (000a:01:00.0) is not in the NVML cache");
    live.gpus.erase(live.gpus.begin() + 1, live.gpus.end());
    CHECK(nvml_cache_refresh_reason(cache, live) ==
          "GPU /dev/nvidia1 (0009:01:00.0) in the NVML cache is gone from the driver");
    live = gb200_live();
    live.gpus[1].minor = 4;
    CHECK(nvml_cache_refresh_reason(cache, live) == "GPU /dev/nvidia4 (0009:01:00.0) is /dev/nvidia1 in the NVML cache");
  }
  SUBCASE("another boot or driver: the cache's own staleness") {
    live.boot_id = "b2";
    CHECK(nvml_cache_refresh_reason(cache, live) == nvml_cache_staleness(cache, "b2", "570.124.06"));
    CHECK(nvml_cache_refresh_reason(cache, live) != "");
    live.boot_id = "b1", live.driver_version = "";
    CHECK(nvml_cache_refresh_reason(cache, live) != "");
  }
}

TEST_CASE("NVML cache currency: the fingerprint changes with every fact a refresh depends on") {
  const LiveGpus base = gb200_live();
  const std::string f = live_gpus_fingerprint(base);
  CHECK(f == "b1 570.124.06; 0@0008:01:00.0; 1@0009:01:00.0 mig 1/0 2/0");
  LiveGpus l = base;
  l.gpus[1].mig = MigLayout{{1, 0}};
  CHECK(live_gpus_fingerprint(l) != f);
  l = base, l.driver_version = "";
  CHECK(live_gpus_fingerprint(l) != f);
  l = base, l.gpus.pop_back();
  CHECK(live_gpus_fingerprint(l) != f);
  CHECK(live_gpus_fingerprint(base) == f);
}
