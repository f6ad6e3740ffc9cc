#include "gpu/mig_devices.h"

#include <doctest/doctest.h>

using namespace gnh;

namespace {

// Four GB200 GPUs in bus order; GPUs 1 and 3 in MIG mode, each instance its own node.
Inventory gb200() {
  Inventory inv;
  for (unsigned i = 0; i < 4; ++i) {
    Gpu g;
    g.minor = i;
    g.bus_id = "000" + std::to_string(8 + i) + ":01:00.0";
    g.uuid = "GPU-cccccccc-0000-4000-8000-00000000000" + std::to_string(i);
    inv.gpus.push_back(g);
  }
  return inv;
}

NvmlCache gb200_cache() {
  NvmlCache c{"boot", "570.124.06", {}};
  for (unsigned i = 0; i < 4; ++i) {
    CachedGpu g;
    g.index = i;
    g.minor = i;
    g.uuid = "GPU-cccccccc-0000-4000-8000-00000000000" + std::to_string(i);
    g.bus_id = "000" + std::to_string(8 + i) + ":01:00.0";
    g.mig_mode = i % 2 ? "enabled" : "disabled";
    if (i % 2 == 0) g.memory_node = 2 + 8 * static_cast<int>(i);
    for (unsigned m = 0; i % 2 && m < 2; ++m)
      g.mig_devices.push_back({m, "MIG-dddddddd-0000-4000-8000-0000000000" + std::to_string(i) + std::to_string(m),
                               m + 1, 0, 10 + 8 * static_cast<int>(i) + static_cast<int>(m)});
    c.gpus.push_back(g);
  }
  return c;
}

oci::Spec visible(const std::string& v) {
  oci::Spec s;
  s.env = {"NVIDIA_VISIBLE_DEVICES=" + v};
  return s;
}

}  // namespace

TEST_CASE("MIG references are recorded - <gpu>:<mig> keeps its parent without the cache, MIG-<uuid> stays unresolved") {
  auto req = resolve_gpu_request(visible("1:0, MIG-dddddddd-0000-4000-8000-000000000031,2"), gb200(), every_device_form());
  CHECK(req.gpus == std::vector<size_t>{1, 2});
  CHECK(req.mig_references == std::vector<std::string>{"1:0", "MIG-dddddddd-0000-4000-8000-000000000031"});
  CHECK(req.unresolved == std::vector<std::string>{"MIG-dddddddd-0000-4000-8000-000000000031"});
  CHECK(req.whole == std::vector<size_t>{2});
  CHECK(is_mig_reference("mig-abc"));
  CHECK(is_mig_reference("0:1"));
  CHECK_FALSE(is_mig_reference("0000:01:00.0"));
  CHECK_FALSE(is_mig_reference("GPU-x"));
}

TEST_CASE("the cache resolves MIG-<uuid> to its parent and <gpu>:<mig> to its instance") {
  Inventory inv = gb200();
  NvmlCache cache = gb200_cache();
  auto res = resolve_mig_references({"1:0", "mig-DDDDDDDD-0000-4000-8000-000000000031", "1:5", "MIG-nope", "0:0"}, inv,
                                    cache);
  REQUIRE(res.found.size() == 2);
  CHECK(res.found[0].gpu == 1);
  CHECK(res.found[0].instance.uuid == "MIG-dddddddd-0000-4000-8000-000000000010");
  CHECK(res.found[0].instance.index == "1:0");
  CHECK(res.found[0].instance.memory_node == 18);
  CHECK(res.found[1].gpu == 3);
  CHECK(res.found[1].instance.index == "3:1");
  CHECK(res.found[1].instance.gpu_instance_id == 2);
  CHECK(res.found[1].instance.memory_node == 35);
  CHECK(res.unresolved == std::vector<std::string>{"1:5", "MIG-nope", "0:0"});
}

TEST_CASE("a parent the driver does not show is no match (the cache is from another host or layout)") {
  Inventory inv = gb200();
  inv.gpus.erase(inv.gpus.begin() + 3);
  auto res = resolve_mig_references({"MIG-dddddddd-0000-4000-8000-000000000031"}, inv, gb200_cache());
  CHECK(res.found.empty());
  CHECK(res.unresolved.size() == 1);
}

TEST_CASE("which instances a container gets: those it names, or all when it gets the GPU whole") {
  Inventory inv = gb200();
  NvmlCache cache = gb200_cache();
  auto nodes = [](const std::vector<MigInstance>& v) {
    std::vector<int> n;
    for (const auto& m : v) n.push_back(m.memory_node.value_or(-1));
    return n;
  };
  auto only_one = resolve_gpu_request(visible("3:1"), inv, every_device_form());
  auto r1 = resolve_mig_references(only_one.mig_references, inv, cache);
  CHECK(nodes(mig_instances_for(3, inv, cache, only_one, r1)) == std::vector<int>{35});

  auto whole = resolve_gpu_request(visible("3,3:1"), inv, every_device_form());
  auto r2 = resolve_mig_references(whole.mig_references, inv, cache);
  CHECK(nodes(mig_instances_for(3, inv, cache, whole, r2)) == std::vector<int>{34, 35});

  oci::Spec device_only;
  device_only.devices.push_back({"/dev/nvidia1", "c", 195, 1});
  auto dev = resolve_gpu_request(device_only, inv, every_device_form());
  CHECK(nodes(mig_instances_for(1, inv, cache, dev, {})) == std::vector<int>{18, 19});
  // The device node and the GPU instances its capability nodes name (GPU 1's GIs are 1 and 2):
  // those only; a GI the cache does not list adds nothing, and then the GPU counts whole.
  CHECK(nodes(mig_instances_for(1, inv, cache, dev, {}, {2})) == std::vector<int>{19});
  CHECK(nodes(mig_instances_for(1, inv, cache, dev, {}, {1, 2})) == std::vector<int>{18, 19});
  CHECK(nodes(mig_instances_for(1, inv, cache, dev, {}, {7})) == std::vector<int>{18, 19});
  // Named whole as well (by index): every instance.
  auto whole_and_given = resolve_gpu_request(visible("1"), inv, every_device_form());
  CHECK(nodes(mig_instances_for(1, inv, cache, whole_and_given, {}, {2})) == std::vector<int>{18, 19});

  // The device node and the MIG device, as the toolkit gives a MIG container: that instance only.
  oci::Spec mig_container = visible("MIG-dddddddd-0000-4000-8000-000000000011");
  mig_container.devices.push_back({"/dev/nvidia1", "c", 195, 1});
  auto mc = resolve_gpu_request(mig_container, inv, every_device_form());
  auto r3 = resolve_mig_references(mc.mig_references, inv, cache);
  CHECK(nodes(mig_instances_for(1, inv, cache, mc, r3)) == std::vector<int>{19});

  // A GPU the cache does not list has no instances.
  NvmlCache empty{"boot", "570.124.06", {}};
  CHECK(mig_instances_for(1, inv, empty, dev, {}).empty());
}
