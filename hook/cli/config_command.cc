// `config check [--json]`: validates gpu-numa-hook's own config as the hook reads it. Exit 0 valid
// (or absent: the built-in defaults), 1 one line per problem the hook ignores (an unknown key, a
// bad value left at its default), 2 the file cannot be used at all (missing explicit --config,
// unreadable, not TOML: the hook then runs on built-in defaults under on-error's default, allow).
// The package's postinst and `install` run the same check.
#include <cstdio>
#include <nlohmann/json.hpp>

#include "base/exit_code.h"
#include "cli/commands.h"
#include "host/config/config_loader.h"

namespace gnh {

namespace {

std::string json_of(const std::string& file, const Config* c, const std::string& error) {
  nlohmann::json problems = nlohmann::json::array();
  if (c)
    for (const auto& p : c->problems)
      problems.push_back({{"line", p.line > 0 ? nlohmann::json(p.line) : nlohmann::json(nullptr)}, {"key", p.key},
                          {"message", p.what}, {"text", describe(p)}});
  nlohmann::json j = {{"schema_version", 1},
                      {"file", file},
                      {"valid", error.empty() && (!c || c->problems.empty())},
                      {"error", error.empty() ? nlohmann::json(nullptr) : nlohmann::json(error)},
                      {"problems", problems}};
  return j.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
}

}  // namespace

int run_config_check(const GlobalOptions& opts, bool json) {
  HostFs fs(opts.host_root.value_or("/"));
  std::string file = opts.config_path.value_or(fs.resolve(kDefaultConfigPath));
  try {
    ConfigFile f = read_config_file(fs, opts.config_path);
    if (!f.text) {
      if (json) std::fputs(json_of(file, nullptr, "").c_str(), stdout);
      // Absent is valid: the built-in defaults are what the shipped file documents.
      else std::printf("config %s: absent: the built-in defaults apply\n", file.c_str());
      return as_int(ExitCode::ok);
    }
    Config c = parse_config(*f.text, f.path);
    if (json) std::fputs(json_of(f.path, &c, "").c_str(), stdout);
    else if (c.problems.empty()) std::printf("config %s: valid\n", f.path.c_str());
    else
      for (const auto& p : c.problems) std::printf("%s\n", describe(p).c_str());
    return as_int(c.problems.empty() ? ExitCode::ok : ExitCode::problems);
  } catch (const std::exception& e) {
    // Nothing of it can be honoured: say what the hook does instead.
    std::string what = std::string(e.what()) +
                       ": the hook cannot use this file at all and runs every start on the built-in defaults "
                       "under on-error's default (allow)";
    if (json) std::fputs(json_of(file, nullptr, what).c_str(), stdout);
    std::fprintf(stderr, "gpu-numa-hook: config check: %s\n", what.c_str());
    return as_int(ExitCode::error);
  }
}

}  // namespace gnh
