// A GPU's live MIG layout against the NVML cache's.
#include "gpu/mig_layout.h"

#include <doctest/doctest.h>

using namespace gnh;

TEST_CASE("MIG layout: instance names as the driver lists them, and the cache's layout against the live one") {
  CHECK(mig_instance_id("gi1", "gi") == 1u);
  CHECK(mig_instance_id("gi13", "gi") == 13u);
  CHECK(mig_instance_id("ci0", "ci") == 0u);
  for (const char* bad : {"gi", "gi01", "gi-1", "gi1x", "gix", "ci1", "gi12345", "access"})
    CHECK_FALSE(mig_instance_id(bad, "gi"));

  CachedGpu g;
  g.mig_devices = {{0, "MIG-a", 2, 0, 11}, {1, "MIG-b", 1, 0, 10}};
  const MigLayout cached = cached_mig_layout(g);
  CHECK(cached == MigLayout{{1, 0}, {2, 0}});
  CHECK(mig_layout_change(cached, {{1, 0}, {2, 0}}) == "");
  // re-partitioned: one larger instance where there were two
  CHECK(mig_layout_change(cached, {{3, 0}}) ==
        "the NVML cache lists GPU instances 1/0, 2/0 (GI/CI), the driver lists 3/0 now");
  // the same GPU instance with another compute instance split is another layout too
  CHECK(mig_layout_change(cached, {{1, 0}, {1, 1}, {2, 0}}) != "");
  CHECK(mig_layout_change(cached, {}) == "the NVML cache lists GPU instances 1/0, 2/0 (GI/CI), the driver lists none now");
}

TEST_CASE("MIG capabilities: the GPU instances a container's capability nodes name") {
  std::vector<MigCapability> driver = {{1, 49}, {1, 210}, {5, 53}, {5, 250}, {9, 57}, {9, 290}};
  CHECK(gpu_instances_given(driver, {53, 250}) == std::vector<unsigned>{5});
  CHECK(gpu_instances_given(driver, {49, 290}) == std::vector<unsigned>{1, 9});
  CHECK(gpu_instances_given(driver, {99}).empty());
  CHECK(gpu_instances_given(driver, {}).empty());
}
