// The fields of a bundle's config.json that gpu-numa-hook reads, and nothing else: the container's
// creator controls this file, so every other field is ignored and these are type-checked.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace oci {

struct LinuxDevice {
  std::string path;
  std::string type;  // "c", "b", "u", "p"
  int64_t major = -1;
  int64_t minor = -1;
};

struct Mount {
  std::string destination;
  std::string source;
};

// An entry of hooks.prestart, .createRuntime or .createContainer: what runs before the
// container's process, for telling who reads NVIDIA_VISIBLE_DEVICES (gpu/device_forms.h). Read,
// never run.
struct Hook {
  std::string stage;  // "prestart", "createRuntime", "createContainer"
  std::string path;
  std::vector<std::string> args;
};

struct Spec {
  std::vector<std::string> env;                  // process.env, "KEY=VALUE"
  std::vector<std::string> bounding_capabilities;  // process.capabilities.bounding
  std::vector<Hook> hooks;                       // the stages above, in that order
  std::vector<LinuxDevice> devices;              // linux.devices
  std::vector<Mount> mounts;                     // mounts
  std::string cgroups_path;                      // linux.cgroupsPath
  std::optional<std::string> cpuset_mems;        // linux.resources.cpu.mems, when set
  std::map<std::string, std::string> annotations;

  // Value of the last KEY=... entry in process.env (the one a process would see), or nullopt.
  std::optional<std::string> env_value(std::string_view key) const;
};

// Checks the whole text but parses only the members above (json_scan.h): the same Spec, or the
// same ParseError, as parse_spec_whole; on a Docker config.json 21 us instead of 87 us here.
Spec parse_spec(std::string_view json);

// The reference: builds the whole document with nlohmann, then reads the fields. parse_spec falls
// back to it for any text the scanner declines; tests/fuzz/fuzz_oci_spec.cc compares the two.
Spec parse_spec_whole(std::string_view json);

}  // namespace oci
