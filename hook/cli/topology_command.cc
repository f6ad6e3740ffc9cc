// `topology`: the GPUs the driver reports and their NUMA nodes. `topology --refresh`: the NVML
// cache for MIG (docs/platforms/mig.md), from gpu-numa-nvml-probe.
#include <cstdio>

#include "base/error.h"
#include "base/exit_code.h"
#include "cli/commands.h"
#include "cli/config_problems.h"
#include "cli/tool_error.h"
#include "cli/topology_refresh.h"
#include "host/config/config_loader.h"
#include "host/driver/cuda_requirement_reader.h"
#include "host/driver/driver_root_reader.h"
#include "host/driver/driver_reader.h"
#include "host/driver/identity_cache_reader.h"
#include "host/driver/nvml_cache_reader.h"
#include "host/driver/nvml_probe_runner.h"
#include "report/report.h"

namespace gnh {

int run_topology(const GlobalOptions& opts, bool json) {
  try {
    HostFs fs(opts.host_root.value_or("/"));
    Config config = load_config(fs, opts.config_path);
    warn_config_problems("gpu-numa-hook: topology: ", config);
    Inventory inv = read_inventory(fs, config.overrides);
    // GPUs in MIG mode: their instances and nodes from the NVML cache, as check and wait see them.
    std::string nvml_problem = add_cached_mig_instances(fs, config.nvml.cache_path(), inv);
    if (!nvml_problem.empty())
      std::fprintf(stderr, "gpu-numa-hook: topology: GPUs in MIG mode, their instances' memory nodes unknown: %s\n",
                   nvml_problem.c_str());
    NodeSet nodes = read_memory_nodes(fs);
    DriverMemoryMode mode = read_memory_mode(fs);
    std::string auto_online = any_self_onlining_offline(inv.gpus) ? read_auto_online_blocks(fs) : std::string();
    // The CUDA version the driver supports: NVML's (the cache, when current), else NVIDIA's table.
    NvmlCacheLoad cache = load_nvml_cache(fs, config.nvml.cache_path());
    HostFacts cuda = read_host_cuda_facts(fs, cache.cache ? &*cache.cache : nullptr);
    std::string out = json ? topology_json(inv, nodes, mode, auto_online, &cuda) + "\n"
                           : topology_text(inv, nodes, mode, auto_online, &cuda);
    std::fputs(out.c_str(), stdout);
    return as_int(ExitCode::ok);
  } catch (const std::exception& e) {
    return report_tool_error("gpu-numa-hook: ", e);
  }
}

void refresh_caches(const HostFs& fs, const Config& config, const std::optional<std::string>& nvml_library) {
  // The driver's own files first: the GPU identity cache needs no NVML, and spares every start
  // the information files whatever the probe says below.
  // Not fatal: without it a start reads the driver's files, as it always could.
  try {
    IdentitiesLeftOut left_out;
    IdentityCache identities = build_identity_cache(fs, &left_out);
    write_identity_cache(fs, identities);
    std::printf("wrote %s: %zu GPUs\n", fs.resolve(kIdentityCachePath).c_str(), identities.gpus.size());
    for (const auto& name : left_out.not_bound)
      std::printf("left out GPU %s: %s has no link to it, or a new one since the refresh began (the GPU is not "
                  "bound to the NVIDIA driver, or was bound again meanwhile); starts read it from the driver until "
                  "a refresh finds it bound\n",
                  name.c_str(), fs.resolve(kNvidiaDriverPath).c_str());
    for (const auto& name : left_out.no_uuid)
      std::printf("left out GPU %s: its information file names no GPU UUID yet (the GPU is not initialised); "
                  "starts read it from the driver until a refresh finds it\n",
                  name.c_str());
  } catch (const Error& e) {
    std::fprintf(stderr, "gpu-numa-hook: topology --refresh: %s; each start reads the GPUs' information files instead\n",
                 e.what());
  }
  const std::string probe = config.nvml.probe.empty() ? probe_beside_this_program() : config.nvml.probe;
  const std::string target = fs.resolve(config.nvml.cache_path());
  const std::string kept = "; " + target + " was left as it was";
  std::vector<std::string> args = {"--boot-id-file", fs.resolve(kBootIdPath)};
  // The command line's library, else the config's; neither: the probe searches the driver root's
  // library directories (the host's own, or the driver container's under the GPU operator).
  // The config's library is a path on the host (the DaemonSet reads the node's config under
  // --host-root); the command line's is the caller's own.
  const std::string library = nvml_library ? *nvml_library : config.nvml.library.empty() ? "" : fs.resolve(config.nvml.library);
  if (!library.empty()) {
    args.insert(args.end(), {"--nvml", library});
  } else if (DriverRoot root = find_driver_root(fs, config.nvml.driver_root); root.path != "/" || !fs.is_real_root()) {
    // Under --host-root (the DaemonSet) even "/" is the host's root, not this program's.
    args.insert(args.end(), {"--driver-root", fs.resolve(root.path)});
    if (root.path != "/") std::printf("NVML from the driver root %s (%s)\n", fs.resolve(root.path).c_str(), root.source.c_str());
  }
  std::fflush(stdout);  // what was said so far before the probe's own lines (stderr), in order
  ProbeRun run = run_nvml_probe(probe, args, config.nvml.probe_timeout_ms, kMaxNvmlCacheBytes);
  if (!run.error.empty()) fail("the NVML probe " + probe + ": " + run.error + kept);
  if (run.timed_out)
    fail("the NVML probe " + probe + " did not finish within " + std::to_string(config.nvml.probe_timeout_ms) +
         " ms (nvml.timeout-ms)" + kept);
  if (run.exit_code != 0)
    fail("the NVML probe " + probe + " failed (exit " + std::to_string(run.exit_code) + ", its message above)" + kept);
  std::string why;
  auto cache = parse_nvml_cache(run.out, &why);
  if (!cache) fail("the NVML probe " + probe + " printed no valid cache (" + why + ")" + kept);
  // A cache the hook would call stale at once is not written: NVML and the loaded kernel module
  // disagree (a driver update without a reboot or module reload).
  std::string stale = nvml_cache_staleness(*cache, read_boot_id(fs), read_driver_version(fs));
  if (!stale.empty()) fail("NVML's answer does not match the running host: " + stale + kept);
  write_nvml_cache(fs, config.nvml.cache_path(), *cache);
  size_t migs = 0;
  for (const auto& g : cache->gpus) migs += g.mig_devices.size();
  std::printf("wrote %s: driver %s, %zu GPUs, %zu MIG devices\n", target.c_str(), cache->driver_version.c_str(),
              cache->gpus.size(), migs);
}

int run_topology_refresh(const GlobalOptions& opts, const std::optional<std::string>& nvml_library) {
  try {
    HostFs fs(opts.host_root.value_or("/"));
    refresh_caches(fs, load_config(fs, opts.config_path), nvml_library);
    return as_int(ExitCode::ok);
  } catch (const std::exception& e) {
    return report_tool_error("gpu-numa-hook: topology --refresh: ", e);
  }
}

}  // namespace gnh
