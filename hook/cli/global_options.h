// The options every subcommand takes before its name, in one table: the CLI11 parser, hook mode's
// fast argv reader and the argv handed to a chained hook all read it.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace gnh {

struct GlobalOptions {
  std::optional<std::string> host_root;
  std::optional<std::string> config_path;
};

struct GlobalOptionSpec {
  std::string_view name;  // "--host-root"
  std::optional<std::string> GlobalOptions::*field;
  std::string_view value_name;  // "DIR"
  std::string_view help;
};

const std::vector<GlobalOptionSpec>& global_option_specs();

// "--opt VALUE" or "--opt=VALUE" at argv[*i]: the option's spec and its value (advancing *i past a
// separate value, which must lie below argc). nullptr when argv[*i] is none of ours.
const GlobalOptionSpec* match_global_option(int argc, char** argv, int* i, std::string_view* value);

// Our argv after argv[0] without our global options: what the next hook gets in chained mode.
std::vector<std::string> args_without_global_options(int argc, char** argv);

}  // namespace gnh
