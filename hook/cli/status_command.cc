// `status [--json]`: "is this node protected?" in one command: the engines registered and how,
// the binaries they name, the config, the GPUs' memory nodes, stale cgroups, the last refusals and
// the check timer. Reads only (host/status/node_status_reader.h); judged in status/node_status.h.
// Exit 0 protected, 1 not protected (a line per reason), 2 cannot tell.
#include <cstdio>
#include <exception>

#include "cli/commands.h"
#include "cli/tool_error.h"
#include "host/status/node_status_reader.h"
#include "status/node_status.h"

namespace gnh {

int run_status(const GlobalOptions& opts, const StatusOptions& so) {
  try {
    HostFs fs(opts.host_root.value_or("/"));
    StatusFacts facts = read_node_status(fs, opts.config_path, so.refusals);
    StatusVerdict verdict = judge_status(facts);
    std::string out = so.json ? status_json(facts, verdict) + "\n" : status_text(facts, verdict);
    std::fputs(out.c_str(), stdout);
    return verdict.exit_code();
  } catch (const std::exception& e) {
    return report_tool_error("gpu-numa-hook: status: ", e);  // 2: cannot tell
  }
}

}  // namespace gnh
