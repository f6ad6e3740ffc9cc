// `gpu-numa-hook status`: "is this node protected?" Everything the host side read about the node
// (StatusFacts), judged here (pure) into one verdict with a line per reason, and worded as text or
// JSON (schema_version 1). The judgement: any reason the node is not protected -> exit 1; else
// anything that could not be read -> exit 2 (cannot tell); else 0.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "gpu/memory_state.h"
#include "status/unprotected_finding.h"

namespace gnh {

// A program an engine runs for us (the shim, the hook, the runtime the shim runs next).
struct BinaryFact {
  std::string role;   // "shim", "hook", "next runtime", ...
  std::string path;   // as the file names it (resolved through the fixed PATH when a bare name)
  bool exists = false;
  bool executable = false;
};

// One way an engine reaches us.
struct EngineFact {
  std::string engine;   // "docker", "containerd", "crio-runtime", "podman/crio (hooks.d)", "nvidia-legacy"
  std::string how;      // "runtime gpu-numa", "hooks.d", "NVIDIA runtime hook (legacy mode)"
  std::string file;     // where it is said
  bool registered = false;
  bool is_default = false;  // runtimes: the engine's default runtime (else containers ask for it)
  std::string error;        // the file could not be read or parsed ("" = read)
  std::vector<BinaryFact> binaries;
  // Registered, but the engine never runs it, and why (nvidia-legacy outside NVIDIA's legacy mode,
  // install/nvidia_mode.h); "" = it runs.
  std::string never_runs = {};
  // Runtimes: install made gpu-numa the default (install-state.json's set_default), and the default
  // the engine's file names now ("" = the engine's own, runc). A default changed behind install's
  // back (nvidia-ctk runtime configure --set-as-default) sends every container past the shim.
  bool installed_as_default = false;
  std::string default_name = {};
  std::string default_file = {};  // where default_name is set, when not `file` (a later containerd import)
  // Runtimes: NVIDIA's runtime the engine has (its toolkit container or nvidia-ctk added it) when
  // our [runtime] next does not name it, and the file that adds it; "" = none, or chained.
  std::string nvidia_unchained = {};
  std::string nvidia_file = {};
};

struct GpuFact {
  std::string device;   // "/dev/nvidia3"
  std::string bus_id;
  std::optional<int> node;
  GpuMemoryState state = GpuMemoryState::none;
};

struct StatusFacts {
  std::vector<EngineFact> engines;   // only files that exist (registered or not)
  // The NRI plugin, from the state file it keeps (check/nri_plugin_state.h): "" = not installed
  // (it never ran on this node); else what it is connected to, or why not (nri_problem).
  std::string nri;
  bool nri_connected = false;
  std::string nri_runtime;  // NRI's name and version of the runtime it is connected to ("cri-o 1.31.0"), "" = unknown
  std::string nri_problem;
  std::string nri_hook_problem;      // the hook the plugin injects is missing ("" = there, or no plugin)
  std::string nri_calls_stuck;       // container calls stuck in host reads ("" = none)
  bool nri_stuck_refuses_all = false;  // ... so many that every call is refused
  // containerd's NRI default validator (2.2 and later), from its config files: what NRI itself
  // would refuse. Only judged where the plugin runs (nri not empty).
  bool nri_validator_rejects_hooks = false;
  bool nri_requires_us = false;           // required_plugins names our plugin: fail-closed
  bool nri_validator_enabled = false;     // default_validator enable = true (status/nri_fail_closed.h)
  std::string nri_validator_file;
  std::string config_path;
  std::string config_error;          // "" = usable (config_problem in host/status/node_status_reader.h)
  std::vector<std::string> config_warnings;  // keys the hook ignores or leaves at their default
  bool gpus_read = false;
  std::string gpus_error;
  std::vector<GpuFact> gpus;
  // GPUs in MIG state whose GPU instances' memory nodes are unknown (no current NVML cache, or one
  // written for another layout), and why: their containers start without those nodes.
  std::vector<std::string> mig_unknown;
  std::string mig_problem;
  bool cgroups_read = false;
  std::string cgroups_error;
  size_t cgroups_walked = 0;
  std::vector<std::string> stale_cgroups;   // check's findings, top-down
  std::vector<std::string> root_missing;    // online memory nodes the root cpuset lacks ("252")
  std::string log_path;                     // "" = no log file configured
  std::string log_error;
  std::vector<std::string> refusals;        // the last action=refuse lines, oldest first
  RunningContainersFact containers;         // what runs: GPU containers without the hook
  bool timer_unit_installed = false;
  bool timer_enabled = false;
};

struct StatusVerdict {
  std::vector<std::string> not_protected;  // one line each
  std::vector<std::string> unknown;        // what could not be read, one line each
  std::vector<std::string> notes;          // worth knowing, no effect on the verdict
  int exit_code() const { return !not_protected.empty() ? 1 : !unknown.empty() ? 2 : 0; }
  const char* word() const { return !not_protected.empty() ? "not protected" : !unknown.empty() ? "cannot tell" : "protected"; }
};

StatusVerdict judge_status(const StatusFacts& f);
std::string status_text(const StatusFacts& f, const StatusVerdict& v);
std::string status_json(const StatusFacts& f, const StatusVerdict& v);

// The lines of a log file's tail that record a refusal (text `action=refuse`, JSON
// "action":"refuse"), the last `keep` of them, oldest first. The first line is dropped when the
// tail starts mid-line (`from_start` false).
std::vector<std::string> refusal_lines(const std::string& tail, bool from_start, size_t keep);

}  // namespace gnh
