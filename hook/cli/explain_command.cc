// `explain`: the hook's decision for a bundle, writing nothing.
#include <cstdio>

#include "base/exit_code.h"
#include "cli/commands.h"
#include "cli/config_problems.h"
#include "cli/tool_error.h"
#include "host/config/config_loader.h"
#include "host/driver/cuda_requirement_reader.h"
#include "host/decide/pipeline.h"
#include "host/oci/spec_reader.h"
#include "report/report.h"

namespace gnh {

int run_explain(const GlobalOptions& opts, const std::string& bundle, int pid, bool json) {
  try {
    HostFs fs(opts.host_root.value_or("/"));
    Config config = load_config(fs, opts.config_path);
    warn_config_problems("gpu-numa-hook: explain: ", config);
    // --bundle is a path on this machine, taken as given like --config.
    oci::Spec spec = read_bundle_spec(HostFs("/"), bundle);
    ContainerNames names = container_names(spec.annotations, {});
    Evaluation ev = evaluate(fs, config, spec, pid);
    // The hook reads the driver only for a requirement; explain shows the driver's CUDA anyway.
    if (ev.gpu_requested && ev.requirement.host.empty()) {
      NvmlCacheLoad cache = load_nvml_cache(fs, config.nvml.cache_path());
      ev.requirement.host = describe_host(read_host_cuda_facts(fs, cache.cache ? &*cache.cache : nullptr));
    }
    std::string out = json ? explain_json(ev, names) + "\n" : explain_text(ev, names);
    std::fputs(out.c_str(), stdout);
    return as_int(ev.decision.action == Action::refuse ? ExitCode::problems : ExitCode::ok);
  } catch (const std::exception& e) {
    return report_tool_error("gpu-numa-hook: ", e);
  }
}

}  // namespace gnh
