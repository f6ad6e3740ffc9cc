#include "status/node_status.h"

#include <nlohmann/json.hpp>

#include "status/double_registration.h"
#include "status/nri_fail_closed.h"

namespace gnh {

namespace {

std::string node_word(const GpuFact& g) { return g.node ? "memory node " + std::to_string(*g.node) : "no memory node"; }

std::string binary_word(const BinaryFact& b) {
  return !b.exists ? "does not exist" : !b.executable ? "is not executable" : "ok";
}

// How to take the default back. Docker's one file: install again (the runtime it displaces runs after
// the shim). containerd: the file setting the default is read after our drop-in, which install
// will not override.
std::string default_fix(const std::string& engine) {
  if (engine == "containerd")
    return "make our drop-in the last file containerd reads (last in the main file's imports), then run gpu-numa-hook "
           "install --runtime containerd --set-default again";
  return "run gpu-numa-hook install --runtime " + engine + " --set-default again: it runs that runtime after the shim";
}

}  // namespace

StatusVerdict judge_status(const StatusFacts& f) {
  StatusVerdict v;
  size_t registered = 0;
  for (const EngineFact& e : f.engines) {
    if (!e.error.empty()) v.unknown.push_back(e.engine + ": " + e.error);
    if (!e.registered) continue;
    ++registered;
    if (!e.never_runs.empty()) v.not_protected.push_back(e.engine + ": " + e.never_runs);
    for (const BinaryFact& b : e.binaries)
      if (!b.exists || !b.executable)
        v.not_protected.push_back(e.engine + ": the " + b.role + " " + b.path + " named by " + e.file + " " + binary_word(b) +
                                  ": containers it starts fail or go unprotected (reinstall gpu-numa-hook, or "
                                  "gpu-numa-hook install --runtime " + e.engine + " --uninstall)");
    if (e.how.rfind("runtime", 0) == 0 && !e.is_default && e.installed_as_default)
      v.not_protected.push_back(e.engine + ": install made gpu-numa the default runtime, but " +
                                (e.default_file.empty() ? e.file : e.default_file) + " now makes " +
                                (e.default_name.empty() ? "the engine's own runtime" : "'" + e.default_name + "'") +
                                " the default (nvidia-ctk runtime configure --set-as-default does this): containers that "
                                "do not ask for gpu-numa start without the hook (" + default_fix(e.engine) + ")");
    else if (e.how.rfind("runtime", 0) == 0 && !e.is_default)
      v.notes.push_back(e.engine + ": gpu-numa is not the default runtime: only containers that ask for it are protected");
    if (!e.nvidia_unchained.empty())
      v.notes.push_back(e.engine + ": NVIDIA's runtime " + e.nvidia_unchained + " (" + e.nvidia_file +
                        ") is not in gpu-numa-runtime's [runtime] next: containers that go through gpu-numa get "
                        "nothing from it (its CDI devices, driver libraries); run gpu-numa-hook install --runtime " +
                        e.engine + " again, which chains it");
  }
  // A connected NRI plugin registers the hook with every CRI container; one that is gone is a
  // node whose GPU pods start unprotected (containerd fails open without it).
  if (f.nri_connected) ++registered;
  if (!f.nri_problem.empty())
    v.not_protected.push_back(f.nri_problem + ": GPU pods start without the hook" +
                              (f.nri_problem.starts_with("NRI plugin not connected") ? " (start gpu-numa-nri; docs/nri.md)"
                                                                                     : " (gpu-numa-nri's log; docs/nri.md)"));
  if (!f.nri.empty() && f.nri_validator_rejects_hooks)
    v.not_protected.push_back("containerd's NRI default validator rejects OCI hook adjustments (" + f.nri_validator_file +
                              ": default_validator enable = true, reject_oci_hook_adjustment = true): every GPU "
                              "container gpu-numa-nri adds the hook to fails to create (set "
                              "reject_oci_hook_adjustment = false, or use the runtime shim; docs/nri.md)");
  if (const std::string line = nri_fail_closed_note(f); !line.empty()) v.notes.push_back(line);
  if (!f.nri.empty() && f.nri_requires_us)
    v.notes.push_back("containerd requires gpu-numa-nri for every container (" + f.nri_validator_file +
                      ": default_validator required_plugins): while it is not registered, every container on the "
                      "node fails to create, not only GPU ones (fail-closed; docs/nri.md)");
  if (!f.nri_hook_problem.empty()) v.not_protected.push_back(f.nri_hook_problem);
  if (!f.nri_calls_stuck.empty()) (f.nri_stuck_refuses_all ? v.not_protected : v.notes).push_back(f.nri_calls_stuck);
  // Twice is still protected: a note, not a reason the node is unprotected.
  for (const std::string& line : double_registrations(f)) v.notes.push_back(line);
  if (registered == 0 && v.unknown.empty())
    v.not_protected.push_back("no container engine runs gpu-numa-hook: register one with gpu-numa-hook install --runtime "
                              "docker|containerd|crio-runtime|podman|crio|nri");
  if (!f.config_error.empty())
    v.not_protected.push_back("config " + f.config_path + ": " + f.config_error +
                              ": the hook applies its on-error policy to every GPU container instead");
  for (const std::string& w : f.config_warnings)
    v.notes.push_back("config " + f.config_path + ": " + w + " (ignored; gpu-numa-hook config check lists them)");
  if (!f.gpus_read) {
    v.unknown.push_back("GPUs: " + f.gpus_error);
  } else {
    for (const GpuFact& g : f.gpus) {
      if (g.state == GpuMemoryState::not_initialized) {
        v.notes.push_back("GPU " + g.device + " (" + g.bus_id + "): " + node_word(g) +
                          " comes online when the GPU is first used (persistence mode off)");
      } else if (!is_ready(g.state)) {
        v.not_protected.push_back("GPU " + g.device + " (" + g.bus_id + "): " + node_word(g) + " is " + to_string(g.state) +
                                  ": containers given this GPU are refused until it is usable (gpu-numa-hook check says why)");
      }
    }
    for (const std::string& d : f.mig_unknown)
      v.not_protected.push_back("GPU " + d + " is in MIG state and its GPU instances' memory nodes are unknown (" +
                                f.mig_problem + "): its containers start without them");
    if (f.gpus.empty()) v.notes.push_back("no NVIDIA GPU found: nothing to protect yet");
  }
  if (!f.cgroups_read) {
    v.unknown.push_back("cgroups: " + f.cgroups_error);
  } else {
    if (!f.stale_cgroups.empty())
      v.not_protected.push_back(std::to_string(f.stale_cgroups.size()) + " cgroup(s) lack memory nodes their parents have (first: " +
                                f.stale_cgroups.front() + "): containers beneath them miss GPU memory: gpu-numa-hook check --fix");
    for (const std::string& n : f.root_missing)
      v.not_protected.push_back("the root cpuset lacks online memory node " + n + ": no container can have it");
  }
  judge_running_containers(f.containers, &v);
  if (!f.log_error.empty()) v.notes.push_back("log " + f.log_path + ": " + f.log_error);
  if (!f.timer_unit_installed)
    v.notes.push_back("gpu-numa-hook-check.timer is not installed: stale cgroups are found only when check is run");
  else if (!f.timer_enabled)
    v.notes.push_back("gpu-numa-hook-check.timer is not enabled: stale cgroups are found only when check is run "
                      "(systemctl enable --now gpu-numa-hook-check.timer)");
  return v;
}

std::string status_text(const StatusFacts& f, const StatusVerdict& v) {
  std::string o = std::string("gpu-numa-hook status: ") + v.word() + "\n";
  for (const auto& l : v.not_protected) o += "not protected: " + l + "\n";
  for (const auto& l : v.unknown) o += "cannot tell: " + l + "\n";
  for (const auto& l : v.notes) o += "note: " + l + "\n";
  o += "engines:\n";
  for (const EngineFact& e : f.engines) {
    if (!e.error.empty()) {
      o += "  " + e.engine + ": cannot tell (" + e.file + ")\n";
      continue;
    }
    if (!e.registered) {
      o += "  " + e.engine + ": not registered (" + e.file + ")\n";
      continue;
    }
    o += "  " + e.engine + ": " + e.how + (e.how.rfind("runtime", 0) == 0 ? (e.is_default ? ", the default," : ", not the default,") : "") +
         " in " + e.file + "\n";
    for (const BinaryFact& b : e.binaries) o += "    " + b.role + " " + b.path + ": " + binary_word(b) + "\n";
  }
  if (f.engines.empty()) o += "  (no engine configuration found)\n";
  o += "  nri: " + (f.nri.empty() ? std::string("not installed") : f.nri) + "\n";
  o += "config: " + f.config_path + ": " +
       (!f.config_error.empty() ? f.config_error
        : f.config_warnings.empty() ? std::string("valid")
                                    : "usable, " + std::to_string(f.config_warnings.size()) + " problem(s) ignored") + "\n";
  if (!f.gpus_read) {
    o += "gpus: cannot tell\n";
  } else {
    o += "gpus:" + std::string(f.gpus.empty() ? " none\n" : "\n");
    for (const GpuFact& g : f.gpus) o += "  " + g.device + " (" + g.bus_id + "): " + node_word(g) + ", " + to_string(g.state) + "\n";
  }
  if (!f.cgroups_read) o += "cgroups: cannot tell\n";
  else
    o += "cgroups: " + std::to_string(f.cgroups_walked) + " walked, " +
         (f.stale_cgroups.empty() ? std::string("none stale") : std::to_string(f.stale_cgroups.size()) + " stale") + "\n";
  for (const auto& c : f.stale_cgroups) o += "  stale: " + c + "\n";
  o += running_containers_text(f.containers);
  o += std::string("timer: gpu-numa-hook-check.timer ") +
       (!f.timer_unit_installed ? "not installed" : f.timer_enabled ? "enabled" : "not enabled") + "\n";
  if (f.log_path.empty()) {
    o += "refusals: no log file configured\n";
  } else {
    o += "refusals (last " + std::to_string(f.refusals.size()) + " in " + f.log_path + "):" + (f.refusals.empty() ? " none\n" : "\n");
    for (const auto& r : f.refusals) o += "  " + r + "\n";
  }
  return o;
}

std::string status_json(const StatusFacts& f, const StatusVerdict& v) {
  using nlohmann::ordered_json;
  ordered_json j;
  j["schema_version"] = 1;
  j["verdict"] = !v.not_protected.empty() ? "not_protected" : !v.unknown.empty() ? "cannot_tell" : "protected";
  j["not_protected"] = v.not_protected;
  j["cannot_tell"] = v.unknown;
  j["notes"] = v.notes;
  ordered_json engines = ordered_json::array();
  for (const EngineFact& e : f.engines) {
    ordered_json b = ordered_json::array();
    for (const BinaryFact& x : e.binaries)
      b.push_back({{"role", x.role}, {"path", x.path}, {"exists", x.exists}, {"executable", x.executable}});
    ordered_json je = {{"engine", e.engine}, {"how", e.how}, {"file", e.file}, {"registered", e.registered}};
    if (e.how.rfind("runtime", 0) == 0) je["default"] = e.is_default;
    if (!e.error.empty()) je["error"] = e.error;
    je["binaries"] = b;
    engines.push_back(je);
  }
  j["engines"] = engines;
  j["nri"] = {{"installed", !f.nri.empty()}, {"connected", f.nri_connected}, {"detail", f.nri},
              {"problem", f.nri_problem.empty() ? nlohmann::json(nullptr) : nlohmann::json(f.nri_problem)},
              {"hook_problem", f.nri_hook_problem.empty() ? nlohmann::json(nullptr) : nlohmann::json(f.nri_hook_problem)}};
  j["config"] = {{"path", f.config_path}, {"valid", f.config_error.empty()}};
  if (!f.config_error.empty()) j["config"]["error"] = f.config_error;
  j["config"]["warnings"] = f.config_warnings;
  ordered_json gpus = ordered_json::array();
  for (const GpuFact& g : f.gpus) {
    ordered_json x = {{"device", g.device}, {"bus_id", g.bus_id}};
    x["node"] = g.node ? ordered_json(*g.node) : ordered_json(nullptr);
    x["state"] = to_string(g.state);
    gpus.push_back(x);
  }
  j["gpus"] = {{"read", f.gpus_read}, {"list", gpus}};
  if (!f.gpus_read) j["gpus"]["error"] = f.gpus_error;
  j["cgroups"] = {{"read", f.cgroups_read}, {"walked", f.cgroups_walked}, {"stale", f.stale_cgroups}, {"root_missing", f.root_missing}};
  if (!f.cgroups_read) j["cgroups"]["error"] = f.cgroups_error;
  j["containers"] = running_containers_json(f.containers);
  j["timer"] = {{"unit", "gpu-numa-hook-check.timer"}, {"installed", f.timer_unit_installed}, {"enabled", f.timer_enabled}};
  j["refusals"] = {{"log", f.log_path}, {"lines", f.refusals}};
  if (!f.log_error.empty()) j["refusals"]["error"] = f.log_error;
  // Log lines may hold bytes a container chose: invalid UTF-8 is replaced, never an exception.
  return j.dump(2, ' ', false, nlohmann::json::error_handler_t::replace);
}

namespace {

// The value of `action` in one log line: JSON lines parsed, text lines read key by key, quoted
// values skipped whole, so a container id or message holding "action=refuse" cannot pass for one.
bool records_refusal(const std::string& line) {
  if (!line.empty() && line.front() == '{') {
    auto j = nlohmann::json::parse(line, nullptr, false);
    return j.is_object() && j.value("action", std::string()) == "refuse";
  }
  size_t i = 0;
  while (i < line.size()) {
    while (i < line.size() && line[i] == ' ') ++i;
    size_t key_start = i;
    while (i < line.size() && line[i] != ' ' && line[i] != '=') ++i;
    std::string key = line.substr(key_start, i - key_start);
    if (i >= line.size() || line[i] != '=') continue;  // a word without a value (time, level, program)
    ++i;
    size_t value_start = i;
    if (i < line.size() && line[i] == '"') {
      for (++i; i < line.size() && line[i] != '"'; ++i)
        if (line[i] == '\\') ++i;
      ++i;
    } else {
      while (i < line.size() && line[i] != ' ') ++i;
    }
    if (key == "action") return line.compare(value_start, i - value_start, "refuse") == 0 && i - value_start == 6;
  }
  return false;
}

}  // namespace

std::vector<std::string> refusal_lines(const std::string& tail, bool from_start, size_t keep) {
  std::vector<std::string> out;
  size_t pos = 0;
  if (!from_start) {
    size_t nl = tail.find('\n');
    pos = nl == std::string::npos ? tail.size() : nl + 1;
  }
  while (pos < tail.size()) {
    size_t nl = tail.find('\n', pos);
    std::string line = tail.substr(pos, nl == std::string::npos ? std::string::npos : nl - pos);
    pos = nl == std::string::npos ? tail.size() : nl + 1;
    if (records_refusal(line)) {
      out.push_back(std::move(line));
      if (out.size() > keep) out.erase(out.begin());
    }
  }
  return out;
}

}  // namespace gnh
