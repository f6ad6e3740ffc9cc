#include "plugin/plugin_options.h"

#include <doctest/doctest.h>

#include <map>
#include <vector>

using gnh::nri::parse_plugin_options;
using gnh::nri::ParsedPluginOptions;

namespace {

struct Env {
  std::map<std::string, std::string> vars;
  const char* get(const char* name) const {
    auto it = vars.find(name);
    return it == vars.end() ? nullptr : it->second.c_str();
  }
};

ParsedPluginOptions parse(std::vector<const char*> args, const Env& env = {}, bool fd_is_socket = true) {
  args.insert(args.begin(), "gpu-numa-nri");
  return parse_plugin_options(int(args.size()), args.data(), [&](const char* n) { return env.get(n); },
                              [&](int) { return fd_is_socket; });
}

}  // namespace

TEST_CASE("plugin options: the defaults an external plugin runs with") {
  auto p = parse({});
  REQUIRE(p.options);
  CHECK(p.options->socket_path == "/var/run/nri/nri.sock");
  CHECK(p.options->name == "gpu-numa");
  CHECK(p.options->idx == "99");
  CHECK(p.options->state_path == "/run/gpu-numa-hook/nri-state.json");
  CHECK(p.options->hook.path == "/usr/bin/gpu-numa-hook");
  CHECK(p.options->hook.extra_args.empty());
  CHECK(p.options->scan_interval_s == 60);
  CHECK(p.options->preset_fd == -1);
  CHECK_FALSE(p.options->metrics_at);
}

TEST_CASE("plugin options: the hook's config reaches its arguments, the metrics address is parsed") {
  auto p = parse({"--hook", "/opt/gpu-numa/bin/gpu-numa-hook", "--hook-config", "/etc/gpu-numa-hook/config.toml",
                  "--metrics-address", ":9464", "--scan-interval", "0"});
  REQUIRE(p.options);
  CHECK(p.options->hook.path == "/opt/gpu-numa/bin/gpu-numa-hook");
  CHECK(p.options->hook.extra_args == std::vector<std::string>{"--config", "/etc/gpu-numa-hook/config.toml"});
  REQUIRE(p.options->metrics_at);
  CHECK(p.options->metrics_at->port == 9464);
  CHECK(p.options->scan_interval_s == 0);
}

TEST_CASE("plugin options: usage errors are one line and exit 2") {
  auto bad_idx = parse({"--idx", "7"});
  CHECK_FALSE(bad_idx.options);
  CHECK(bad_idx.exit_code == 2);
  CHECK(bad_idx.error == "gpu-numa-nri: --idx '7' is not two digits (00-99)");
  auto bad_address = parse({"--metrics-address", "nowhere"});
  CHECK_FALSE(bad_address.options);
  CHECK(bad_address.exit_code == 2);
  CHECK(bad_address.error.rfind("gpu-numa-nri: ", 0) == 0);
  auto bad_interval = parse({"--scan-interval", "-1"});
  CHECK_FALSE(bad_interval.options);
  CHECK(bad_interval.exit_code != 0);
}

TEST_CASE("plugin options: a pre-registered plugin takes the runtime's descriptor, name and index") {
  Env env{{{"NRI_PLUGIN_SOCKET", "3"}, {"NRI_PLUGIN_NAME", "gpu-numa"}, {"NRI_PLUGIN_IDX", "10"}}};
  auto p = parse({}, env);
  REQUIRE(p.options);
  CHECK(p.options->preset_fd == 3);
  CHECK(p.options->idx == "10");

  auto not_socket = parse({}, env, false);
  CHECK_FALSE(not_socket.options);
  CHECK(not_socket.exit_code == 2);
  CHECK(not_socket.error ==
        "gpu-numa-nri: NRI_PLUGIN_SOCKET='3' is not an open socket here (a runtime starting a pre-registered plugin "
        "passes the connection's descriptor there; unset it to dial the runtime's socket)");

  Env bad_idx{{{"NRI_PLUGIN_SOCKET", "3"}, {"NRI_PLUGIN_IDX", "1x"}}};
  CHECK(parse({}, bad_idx).error == "gpu-numa-nri: --idx '1x' is not two digits (00-99)");
}
