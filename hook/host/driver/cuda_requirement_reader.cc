#include "host/driver/cuda_requirement_reader.h"

#include "require/cuda_driver_table.h"

namespace gnh {

namespace {

void add_nvml_facts(HostFacts& facts, const NvmlCache& cache, const std::vector<Gpu>& gpus) {
  if (cache.cuda_version)
    if (auto v = parse_version(*cache.cuda_version)) {
      facts.cuda = CudaRange{*v, std::nullopt, true, "NVML, nvmlSystemGetCudaDriverVersion"};
    }
  facts.gpu_facts_missing = "not in the NVML cache (written by an older probe? run 'gpu-numa-hook topology --refresh')";
  for (const auto& g : gpus) {
    GpuFacts f;
    f.label = g.device_path();
    if (const CachedGpu* c = find_cached_gpu(cache, g.uuid)) {
      f.brand = c->brand;
      if (c->compute_capability) f.arch = parse_version(*c->compute_capability);
    }
    facts.gpus.push_back(std::move(f));
  }
}

}  // namespace

HostFacts read_host_cuda_facts(const HostFs& fs, const NvmlCache* nvml) {
  HostFacts facts;
  facts.driver = parse_version(read_driver_version(fs));
  if (facts.driver) facts.cuda = cuda_range_from_table(*facts.driver);
  if (nvml) add_nvml_facts(facts, *nvml, {});
  return facts;
}

RequirementCheck check_cuda_requirement(const HostFs& fs, const ImageRequirements& image, const std::vector<Gpu>& gpus,
                                        const std::function<const NvmlCacheLoad&()>& nvml) {
  if (image.disabled || image.empty()) {
    RequirementCheck c = check_requirements(image, HostFacts{});
    c.host.clear();  // nothing was read
    return c;
  }
  // The driver's version and the table settle most images without opening the cache: what they
  // say is certain (a driver meets a release's minimum, or is of an older branch than it), and
  // brand or arch left unknown never makes a requirement fail.
  HostFacts facts = read_host_cuda_facts(fs, nullptr);
  facts.gpu_facts_missing = "not read yet";
  RequirementCheck first = check_requirements(image, facts);
  if (first.state == RequirementState::satisfied || first.state == RequirementState::unsatisfied) return first;
  const NvmlCacheLoad& load = nvml();
  if (load.cache) {
    add_nvml_facts(facts, *load.cache, gpus);
  } else {
    facts.gpu_facts_missing = "unknown without the NVML cache (" + load.problem + ")";
  }
  return check_requirements(image, facts);
}

}  // namespace gnh
