// `topology`: the GPUs the driver reports and their NUMA nodes.
#include <cstdio>

#include "base/exit_code.h"
#include "cli/commands.h"
#include "cli/tool_error.h"
#include "host/config_loader.h"
#include "host/driver_reader.h"
#include "report/report.h"

namespace gnh {

int run_topology(const GlobalOptions& opts, bool json) {
  try {
    HostFs fs(opts.host_root.value_or("/"));
    Config config = load_config(fs, opts.config_path);
    Inventory inv = read_inventory(fs, config.overrides);
    NodeSet nodes = read_memory_nodes(fs);
    DriverMemoryMode mode = read_memory_mode(fs);
    std::string auto_online = any_self_onlining_offline(inv.gpus) ? read_auto_online_blocks(fs) : std::string();
    std::string out = json ? topology_json(inv, nodes, mode, auto_online) + "\n" : topology_text(inv, nodes, mode, auto_online);
    std::fputs(out.c_str(), stdout);
    return as_int(ExitCode::ok);
  } catch (const std::exception& e) {
    return report_tool_error("gpu-numa-hook: ", e);
  }
}

}  // namespace gnh
