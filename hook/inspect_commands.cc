// explain and topology: the hook's view of a bundle or of the host, writing nothing.
#include <cstdio>

#include "commands.h"
#include "config.h"
#include "evaluation.h"
#include "failure.h"
#include "parse_error.h"
#include "report.h"
#include "spec.h"
#include "topology.h"

namespace gnh {

namespace {
int print_failure(const std::string& what) {
  std::fprintf(stderr, "gpu-numa-hook: %s\n", what.c_str());
  return 2;
}
}  // namespace

int run_explain(const GlobalOptions& opts, const std::string& bundle, int pid, bool json) {
  try {
    HostFs fs(opts.host_root.value_or("/"));
    Config config = load_config(fs, opts.config_path);
    // --bundle is a path on this machine, taken as given like --config.
    auto text = HostFs("/").read(bundle + "/config.json", 16 * 1024 * 1024);
    if (!text) fail("no config.json in " + bundle);
    oci::Spec spec = oci::parse_spec(*text);
    Evaluation ev = evaluate(fs, config, spec, pid);
    std::string out = json ? explain_json(ev) + "\n" : explain_text(ev);
    std::fputs(out.c_str(), stdout);
    return ev.decision.action == Action::refuse ? 1 : 0;
  } catch (const Failure& f) {
    return print_failure(f.what());
  } catch (const oci::ParseError& e) {
    return print_failure(e.what());
  }
}

int run_topology(const GlobalOptions& opts, bool json) {
  try {
    HostFs fs(opts.host_root.value_or("/"));
    Config config = load_config(fs, opts.config_path);
    Inventory inv = read_inventory(fs, config.overrides);
    NodeSet nodes = read_memory_nodes(fs);
    std::string out = json ? topology_json(inv, nodes) + "\n" : topology_text(inv, nodes);
    std::fputs(out.c_str(), stdout);
    return 0;
  } catch (const Failure& f) {
    return print_failure(f.what());
  }
}

}  // namespace gnh
