// The configuration file (/etc/gpu-numa-hook/config.toml). Every key, its default and allowed
// values are documented in config/config.toml. As long-lived config readers do, a typo never
// discards the file: an unknown key is ignored and a bad value leaves that one key at its default,
// each recorded as a ConfigProblem (naming the file, line, key and what is allowed) that the hook's
// log, `check` and `config check` report; every valid key is honoured. Only text that is not TOML
// at all (nothing in it can be trusted, on-error included) fails the whole file.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "decide/policy.h"
#include "gpu/topology_override.h"

namespace gnh {

enum class LogFormat { text, json };
const char* to_string(LogFormat f);

struct LogConfig {
  std::string file = "/var/log/gpu-numa-hook.log";  // "" = no file
  std::string level = "info";  // trace, debug, info, warn, error, off
  LogFormat format = LogFormat::text;
  bool syslog = false;
};

// The runtime shim (gpu-numa-runtime): which OCI runtime it execs, and which hook it registers.
struct RuntimeConfig {
  // Absolute paths, or names looked up in a fixed PATH, tried in order; never the shim itself.
  std::vector<std::string> next = {"runc", "crun"};
  std::string hook = "/usr/bin/gpu-numa-hook";  // the prestart hook added to every bundle
};

// The NVML cache (docs/platforms/mig.md): where `topology --refresh` writes it and the hook reads it, and the
// probe that refresh runs.
struct NvmlConfig {
  // "" = the default: no string built on every container start for a file most never read.
  std::string cache;
  std::string cache_path() const { return cache.empty() ? "/run/gpu-numa-hook/nvml-cache.json" : cache; }
  std::string probe;  // "" = gpu-numa-nvml-probe beside the gpu-numa-hook binary
  // "" = the probe's own search of the host's library directories; else the absolute path of
  // libnvidia-ml.so.1 where a driver installs it elsewhere (e.g. /usr/local/nvidia/lib64).
  std::string library;
  // "" = NVIDIA's [nvidia-container-cli] root (the GPU operator's driver container: /run/nvidia/driver),
  // else "/"; the probe then looks for the library in that root's /usr/lib/<multiarch>, /usr/lib64
  // and /usr/lib (host/driver/driver_root_reader.h).
  std::string driver_root;
  int probe_timeout_ms = 30000;
  // How long a start that needs the cache for a GPU in MIG state, and finds it missing or of
  // another layout, waits for a running `topology --follow` to refresh it (at most half the
  // deadline). 0: never ask.
  int refresh_wait_ms = 2000;
};

// One key the parser ignored or left at its default.
struct ConfigProblem {
  std::string file;
  int line = 0;      // 0: toml++ gave no position
  std::string key;   // "policy.on-error", "topology.gpu[1]"
  std::string what;  // "'refsue' is not one of allow, refuse: the default (allow) is used"
};
// "config /etc/gpu-numa-hook/config.toml: line 3: policy.bogus: unknown key, ignored (...)"
std::string describe(const ConfigProblem& p);
// All of them on one line, the file named once: "config F: line 3: policy.bogus: ...; line 7: ..."
// ("" when there are none). For the hook's log line.
std::string describe_all(const std::vector<ConfigProblem>& problems);

struct Config {
  Policy policy;
  int deadline_ms = 5000;
  LogConfig log;
  std::string lock_path = "/run/gpu-numa-hook.lock";
  std::string next_hook;  // chained mode when not empty
  int chain_timeout_ms = 30000;
  std::vector<TopologyOverride> overrides;
  bool check_fix = false;
  // [systemd] allowed-memory-nodes: where systemd owns the cgroup, a patch also sets the unit's
  // AllowedMemoryNodes= (runtime) so daemon-reload keeps it (docs/platforms/systemd.md).
  bool systemd_allowed_memory_nodes = true;
  RuntimeConfig runtime;
  NvmlConfig nvml;
  std::string source = "built-in defaults";  // where it came from, for logs
  std::vector<ConfigProblem> problems;        // keys ignored or left at their default, in file order
};

constexpr const char* kDefaultConfigPath = "/etc/gpu-numa-hook/config.toml";

// Failure "config <file>: line L, column C: ..." when the text is not TOML (or not the ASCII toml++
// reads safely: config_text_guard.h); every other problem is recorded in Config::problems.
Config parse_config(std::string_view text, const std::string& file_name);

// The text with every comment-only line emptied (same lines, same line numbers), which toml++
// parses to the same table, far faster; nullopt when there is nothing to blank or the file has a
// multi-line string (a line in one may start with '#'). Only comments of printable ASCII and tabs
// are blanked, so a comment toml++ would refuse is still refused. tests/fuzz/fuzz_config checks
// that toml++ reads both texts alike.
std::optional<std::string> blank_comment_lines(std::string_view text);


}  // namespace gnh
