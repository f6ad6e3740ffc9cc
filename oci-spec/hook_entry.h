// A hook entry (config.json hooks.<stage>[]) and an oci-hooks(5) hooks.d file as podman and CRI-O
// read them. Used to validate what we ship and to render registration snippets.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace oci {

struct HookEntry {
  std::string path;
  std::vector<std::string> args;
  std::vector<std::string> env;
  std::optional<int> timeout;
};

struct HooksDFile {
  std::string version;  // "1.0.0"
  HookEntry hook;
  bool when_always = false;
  std::map<std::string, std::string> when_annotations;  // regex -> regex
  std::vector<std::string> when_commands;
  std::optional<bool> when_has_bind_mounts;
  std::vector<std::string> stages;
};

HookEntry parse_hook_entry(std::string_view json);
HooksDFile parse_hooks_d_file(std::string_view json);

}  // namespace oci
