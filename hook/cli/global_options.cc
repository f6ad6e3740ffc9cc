#include "cli/global_options.h"

namespace gnh {

const std::vector<GlobalOptionSpec>& global_option_specs() {
  static const std::vector<GlobalOptionSpec> specs = {
      {"--host-root", &GlobalOptions::host_root, "DIR",
       "Resolve every host path (/proc, /sys, /run, default config, log, lock) beneath DIR (tests, captured hosts)"},
      {"--config", &GlobalOptions::config_path, "FILE", "Configuration file (default /etc/gpu-numa-hook/config.toml)"},
  };
  return specs;
}

const GlobalOptionSpec* match_global_option(int argc, char** argv, int* i, std::string_view* value) {
  std::string_view a = argv[*i];
  for (const auto& spec : global_option_specs()) {
    if (a == spec.name && *i + 1 < argc) {
      *value = argv[++*i];
      return &spec;
    }
    if (a.size() > spec.name.size() && a.substr(0, spec.name.size()) == spec.name && a[spec.name.size()] == '=') {
      *value = a.substr(spec.name.size() + 1);
      return &spec;
    }
  }
  return nullptr;
}

std::vector<std::string> args_without_global_options(int argc, char** argv) {
  std::vector<std::string> out;
  for (int i = 1; i < argc; ++i) {
    std::string_view value;
    if (!match_global_option(argc, argv, &i, &value)) out.emplace_back(argv[i]);
  }
  return out;
}

}  // namespace gnh
