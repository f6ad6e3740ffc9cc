#include "host/decide/pipeline.h"

#include <algorithm>
#include <cerrno>

#include "base/error.h"
#include "cgroup/cgroup_prediction.h"
#include "gpu/gpu_request.h"
#include "gpu/mig_devices.h"
#include "host/cgroup/cgroup_locator.h"
#include "host/cgroup/cpuset_tree.h"
#include "host/decide/device_forms_reader.h"
#include "host/driver/cuda_requirement_reader.h"
#include "host/driver/driver_reader.h"
#include "host/driver/identity_cache_reader.h"
#include "host/driver/mig_layout_reader.h"
#include "host/driver/nvml_cache_reader.h"
#include "host/driver/nvml_refresh_request.h"
#include "decide/requirement_fold.h"

namespace gnh {

namespace {

// The NVML cache, read at most once per evaluation and only by a stage that needs it. For a GPU
// in MIG state (`for_mig`), a cache that is missing, stale or of another layout is first asked of
// a running `topology --follow`, bounded by `refresh_wait_ms`: the first start after a
// re-partition then has the new instances' nodes (gpu/nvml_refresh_protocol.h).
struct NvmlOnce {
  const HostFs& fs;
  std::string path;
  int refresh_wait_ms = 0;
  std::optional<NvmlCacheLoad> load;
  std::string follower_note;  // what the follower answered, for the log line
  const NvmlCacheLoad& get(bool for_mig = false) {
    if (load) return *load;
    load = load_nvml_cache(fs, path);
    if (for_mig && refresh_wait_ms > 0 && (!load->cache || !any_mig_layout_staleness(fs, *load->cache).empty())) {
      NvmlRefreshRequest r = request_nvml_refresh(fs, refresh_wait_ms);
      if (r.answered) {
        load = load_nvml_cache(fs, path);
        follower_note = "asked topology --follow for a current NVML cache: " + r.answer;
      } else if (r.follower) {
        follower_note = "asked topology --follow for a current NVML cache: no answer within " +
                        std::to_string(refresh_wait_ms) + " ms (nvml.refresh-wait-ms)";
      }
    }
    return *load;
  }
};

CpusetLocation locate_from_spec(const oci::Spec& spec, const HostFs& fs) {
  auto path = cgroup_from_cgroups_path(spec.cgroups_path);
  if (!path) fail("config.json linux.cgroupsPath '" + spec.cgroups_path.substr(0, 200) +
                  "' is empty or unusable; pass --pid of the running container");
  return locate_cpuset_hierarchy(fs, *path);
}

Evaluation evaluate_numa(const HostFs& fs, const Config& config, const oci::Spec& spec, int pid, NvmlOnce& nvml_once,
                         EvaluationDetail detail) {
  Evaluation ev;
  const DeviceForms forms = read_device_forms(fs, spec, config.next_hook);
  if (!may_request_gpus(spec, forms)) {
    ev.decision.action = Action::allow;
    ev.decision.message = "no GPU requested (fast path)";
    // A variable that names GPUs nobody gives: say why it was not counted.
    if (may_request_gpus(spec, every_device_form())) ev.decision.message += " (" + forms.why + ")";
    return ev;
  }
  ev.gpu_requested = true;

  ev.memory_mode = read_memory_mode(fs);
  if (ev.memory_mode.mode == MemoryMode::driver) {
    ev.decision.action = Action::allow;
    ev.decision.message = "the driver manages coherent GPU memory itself (" + cdmm_switch(ev.memory_mode) +
                          ", CDMM): GPU memory is not a NUMA node, so there is no node to require";
    return ev;
  }

  // The information files map the request: for a start, only until the GPUs it names by minor or
  // UUID are found (a report shows every GPU). Only the container's GPUs are read further.
  // A start takes identities from the cache where a GPU's binding is unchanged (`topology
  // --refresh` writes it); a report reads every file from the driver.
  GpuDirectory gpus(fs);
  if (detail == EvaluationDetail::decision && gpus.dir) {
    gpus.identities = load_identity_cache(fs);
    if (gpus.identities && !gpus.identities->gpus.empty()) gpus.bindings = read_gpu_bindings(fs);
  }
  const std::optional<IdentitiesWanted> wanted =
      detail == EvaluationDetail::decision ? identities_wanted(spec, forms) : std::nullopt;
  Inventory inv = read_gpu_identities(gpus, wanted ? &*wanted : nullptr);
  GpuRequest req = resolve_gpu_request(spec, inv, forms);
  // The NVML cache, read at most once and only for MIG (docs/platforms/mig.md): MIG references to resolve,
  // or a GPU of the container in MIG state. Without a current cache, today's behaviour, noted.
  std::optional<NvmlCacheLoad>& nvml = nvml_once.load;
  auto nvml_cache = [&]() -> const NvmlCache* {
    const NvmlCacheLoad& l = nvml_once.get(true);
    return l.cache ? &*l.cache : nullptr;
  };
  // A cache written before the GPU was re-partitioned names instances, and nodes, that are gone:
  // a GPU's instances are taken from it only while the driver lists the same ones. Only a GPU in
  // MIG state, or named by a MIG reference, is looked at.
  std::string layout_problem;
  auto layout_current = [&](size_t i, const NvmlCache& cache) {
    std::string why = mig_layout_staleness(fs, cache, inv.gpus[i].minor, inv.gpus[i].uuid);
    if (why.empty()) return true;
    if (layout_problem.empty()) layout_problem = std::move(why);
    return false;
  };
  MigResolution mig;
  if (!req.mig_references.empty()) {
    if (const NvmlCache* cache = nvml_cache()) {
      mig = resolve_mig_references(req.mig_references, inv, *cache);
      mig.found.erase(std::remove_if(mig.found.begin(), mig.found.end(),
                                     [&](const MigDeviceMatch& f) { return !layout_current(f.gpu, *cache); }),
                      mig.found.end());
      for (const auto& f : mig.found) {
        req.gpus.push_back(f.gpu);
        req.unresolved.erase(std::remove(req.unresolved.begin(), req.unresolved.end(), f.reference), req.unresolved.end());
      }
      std::sort(req.gpus.begin(), req.gpus.end());
      req.gpus.erase(std::unique(req.gpus.begin(), req.gpus.end()), req.gpus.end());
    }
  }
  // The nearest node decides only under gpu-affinity include/refuse; a report shows it anyway.
  const NearestNode nearest = detail == EvaluationDetail::report || config.policy.gpu_affinity != AffinityPolicy::ignore
                                  ? NearestNode::read
                                  : NearestNode::skip;
  for (size_t i : req.gpus) {
    read_gpu_memory(gpus, inv.gpus[i], config.overrides, ReadErrors::fail, nearest);
    if (inv.gpus[i].memory_read_errno == EIO)
      if (const NvmlCache* cache = nvml_cache(); cache && layout_current(i, *cache)) {
        // The capability nodes a runtime's CDI edits gave the container name its instances.
        std::vector<unsigned> given;
        if (!req.mig_capability_minors.empty())
          given = gpu_instances_given(read_mig_capabilities(fs, inv.gpus[i].minor), req.mig_capability_minors);
        inv.gpus[i].mig_instances = mig_instances_for(i, inv, *cache, req, mig, given);
      }
  }
  // Moved once every GPU is read (mig_instances_for looks at the whole inventory): a start given
  // 64 GPUs copied each twice.
  ev.gpus.reserve(req.gpus.size());
  for (size_t i : req.gpus) ev.gpus.push_back(std::move(inv.gpus[i]));
  ev.unresolved = req.unresolved;
  ev.sources = req.sources;
  auto note_nvml = [&]() {
    if (nvml && !nvml->cache) ev.decision.message += " (" + nvml->problem + ")";
    if (!layout_problem.empty()) ev.decision.message += " (" + layout_problem + ")";
    if (!nvml_once.follower_note.empty()) ev.decision.message += " (" + nvml_once.follower_note + ")";
  };
  if (ev.gpus.empty()) {
    ev.decision.action = Action::allow;
    ev.decision.message = inv.gpus.empty() ? "GPUs requested but the NVIDIA driver shows none on this host"
                                           : "none of the requested GPUs is on this host";
    if (!req.unresolved.empty()) ev.decision.message += " (unresolved: " + req.unresolved.front() + ")";
    note_nvml();
    return ev;
  }

  std::optional<NodeSet> explicit_mems;
  if (spec.cpuset_mems) {
    std::string why;
    explicit_mems = NodeSet::parse(*spec.cpuset_mems, &why);
    if (!explicit_mems) fail("config.json linux.resources.cpu.mems '" + spec.cpuset_mems->substr(0, 100) + "': " + why);
  }

  CpusetLocation loc = pid > 0 ? locate_process_cpuset(fs, pid) : locate_from_spec(spec, fs);
  CpusetTree tree(fs, loc);
  std::string read_path = loc.path;
  if (pid <= 0) {
    while (read_path != "/" && !tree.exists(read_path)) {
      read_path = cgroup_parent(read_path);
      ev.cgroup_predicted = true;
    }
  }
  ev.location = loc;
  ev.mems = tree.read(read_path);
  ev.root_mems = tree.root_mems();
  ev.host_memory_nodes = read_memory_nodes(fs);

  DecisionInput in;
  in.gpus = std::move(ev.gpus);  // lent to the decision, returned below
  in.host_memory_nodes = ev.host_memory_nodes;
  in.possible_nodes = read_possible_nodes(fs);
  in.root_mems = ev.root_mems;
  in.cgroup = loc.path;
  in.effective = ev.mems.effective;
  in.explicit_mems = explicit_mems;
  in.policy = config.policy;
  in.cgroup_v2 = loc.version == CgroupVersion::v2;
  if (any_self_onlining_offline(in.gpus)) {
    // Grace before the GPU's first client: read only now, the usual path stays as it was.
    in.auto_online_blocks = read_auto_online_blocks(fs);
    if (in.cgroup_v2) {
      for (const auto& p : cgroup_chain(read_path))
        if (auto m = tree.read_configured(p); m && !m->empty()) in.chain_explicit_mems.push_back(*m);
      if (explicit_mems && !explicit_mems->empty()) in.chain_explicit_mems.push_back(*explicit_mems);
    }
  }
  ev.decision = decide(in);
  ev.gpus = std::move(in.gpus);
  if (!ev.unresolved.empty()) ev.decision.message += " (unresolved GPU references ignored: " + ev.unresolved.front() + ")";
  note_nvml();
  return ev;
}

// The image's NVIDIA_REQUIRE_*, for a container that gets GPUs only: the fast path and a GPU
// request that finds no GPU read nothing more.
void check_requirement(const HostFs& fs, const Config& config, const oci::Spec& spec, NvmlOnce& nvml, Evaluation& ev) {
  if (!ev.gpu_requested || config.policy.cuda_requirement == CudaRequirementPolicy::off) return;
  ImageRequirements image = read_image_requirements(spec.env);
  if (image.empty() && !image.disabled) return;
  std::vector<Gpu> gpus = ev.gpus;
  if (gpus.empty() && ev.memory_mode.mode == MemoryMode::driver) {
    // CDMM stops before the GPUs are mapped; the requirement still concerns the container's GPUs.
    Inventory inv = read_gpu_identities(GpuDirectory(fs));
    for (size_t i : resolve_gpu_request(spec, inv, read_device_forms(fs, spec, config.next_hook)).gpus)
      gpus.push_back(inv.gpus[i]);
  }
  if (gpus.empty()) return;
  ev.requirement = check_cuda_requirement(fs, image, gpus, [&]() -> const NvmlCacheLoad& { return nvml.get(); });
  fold_requirement(ev.decision, ev.requirement, config.policy.cuda_requirement);
}

}  // namespace

Evaluation evaluate(const HostFs& fs, const Config& config, const oci::Spec& spec, int pid, EvaluationDetail detail) {
  // Half the deadline at most: what the start does after the wait must still fit.
  NvmlOnce nvml{fs, config.nvml.cache_path(), std::min(config.nvml.refresh_wait_ms, config.deadline_ms / 2), std::nullopt, {}};
  Evaluation ev = evaluate_numa(fs, config, spec, pid, nvml, detail);
  check_requirement(fs, config, spec, nvml, ev);
  return ev;
}

}  // namespace gnh
