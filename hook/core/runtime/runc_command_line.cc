#include "runtime/runc_command_line.h"

#include <array>
#include <cerrno>
#include <string_view>

#include "base/error.h"

namespace gnh {

namespace {

// runc's (urfave/cli) options that take a value. Flags not listed here are booleans. One or two
// leading dashes both work in runc; "--opt=value" too.
constexpr std::array<std::string_view, 5> kGlobalValued = {"root", "log", "log-format", "criu", "rootless"};
constexpr std::array<std::string_view, 6> kCreateValued = {"bundle", "b", "console-socket", "pid-file",
                                                           "preserve-fds", "notify-socket"};

// "--root=x" -> name "root", value "x"; "--debug" -> "debug"; not an option -> nullopt.
struct Option {
  std::string_view name;
  std::optional<std::string_view> inline_value;
};
std::optional<Option> as_option(std::string_view a) {
  if (a.size() < 2 || a[0] != '-' || a == "--") return std::nullopt;
  a.remove_prefix(a[1] == '-' ? 2 : 1);
  Option o;
  if (auto eq = a.find('='); eq != std::string_view::npos) {
    o.name = a.substr(0, eq);
    o.inline_value = a.substr(eq + 1);
  } else {
    o.name = a;
  }
  return o;
}

template <size_t N>
bool listed(const std::array<std::string_view, N>& names, std::string_view n) {
  for (auto x : names)
    if (x == n) return true;
  return false;
}

}  // namespace

RuncCommandLine parse_runc_command_line(const std::vector<std::string>& argv) {
  RuncCommandLine c;
  size_t i = 1;
  // Global options: each value is read so it is not taken for the subcommand.
  for (; i < argv.size(); ++i) {
    auto o = as_option(argv[i]);
    if (!o) break;
    if (!listed(kGlobalValued, o->name)) continue;
    std::string value;
    if (o->inline_value) {
      value = std::string(*o->inline_value);
    } else {
      if (i + 1 >= argv.size()) fail("runc option " + argv[i] + " needs a value", EINVAL);
      value = argv[++i];
    }
    if (o->name == "root") c.root = value;
    if (o->name == "log") c.log = value;
    if (o->name == "log-format") c.log_format = value;
  }
  if (i >= argv.size()) return c;
  c.subcommand = argv[i];
  c.subcommand_index = i;
  const bool create = c.subcommand == "create" || c.subcommand == "run";
  // Every option of update takes a value (--resources, --cpuset-mems, --memory, ...). Only the
  // subcommands we act on are read closely; the others pass through unread.
  const bool update = c.subcommand == "update";
  if (!create && !update) return c;
  for (++i; i < argv.size(); ++i) {
    auto o = as_option(argv[i]);
    if (!o) {
      if (!c.container_id) c.container_id = argv[i];
      continue;
    }
    const bool valued = create ? listed(kCreateValued, o->name) : o->name != "help" && o->name != "h";
    if (!valued) continue;
    std::string value;
    size_t value_index = i;
    if (o->inline_value) {
      value = std::string(*o->inline_value);
    } else {
      if (i + 1 >= argv.size()) fail("runc " + c.subcommand + " option " + argv[i] + " needs a value", EINVAL);
      value_index = ++i;
      value = argv[i];
    }
    if (create && (o->name == "bundle" || o->name == "b")) c.bundle = value;
    if (update && (o->name == "resources" || o->name == "r")) c.resources = value;
    if (update && o->name == "cpuset-mems") {
      c.cpuset_mems = value;
      c.cpuset_mems_index = value_index;
      c.cpuset_mems_inline = o->inline_value.has_value();
    }
  }
  return c;
}

}  // namespace gnh
