#include "hook_entry.h"

#include <doctest/doctest.h>

#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "parse_error.h"

using namespace oci;

TEST_CASE("hooks.d file as podman and CRI-O read it") {
  HooksDFile f = parse_hooks_d_file(R"({"version":"1.0.0",
    "hook":{"path":"/usr/bin/gpu-numa-hook","args":["gpu-numa-hook","prestart"],"env":["PATH=/usr/bin:/bin"],"timeout":10},
    "when":{"always":true},"stages":["prestart"]})");
  CHECK(f.hook.path == "/usr/bin/gpu-numa-hook");
  CHECK(f.hook.args.size() == 2);
  CHECK(*f.hook.timeout == 10);
  CHECK(f.when_always);
  CHECK(f.stages == std::vector<std::string>{"prestart"});
  CHECK_THROWS_AS(parse_hooks_d_file(R"({"version":"2","hook":{"path":"/x"},"when":{},"stages":["prestart"]})"), ParseError);
  CHECK_THROWS_AS(parse_hooks_d_file(R"({"version":"1.0.0","hook":{"path":"x"},"when":{},"stages":["prestart"]})"), ParseError);
  CHECK_THROWS_AS(parse_hooks_d_file(R"({"version":"1.0.0","hook":{"path":"/x"},"when":{},"stages":[]})"), ParseError);
}

namespace {
std::string shipped(const std::string& rel) {
  std::ifstream f(std::string(GNH_SOURCE_DIR) + "/config/registration/" + rel);
  INFO("shipped file config/registration/", rel);
  REQUIRE(f);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}
}  // namespace

TEST_CASE("every shipped registration file parses as the runtimes read it, with a minimal env") {
  HooksDFile d = parse_hooks_d_file(shipped("hooks.d/gpu-numa-hook.json"));
  CHECK(d.hook.path == "/usr/bin/gpu-numa-hook");
  CHECK(d.hook.env == std::vector<std::string>{"PATH=/usr/sbin:/usr/bin:/sbin:/bin"});
  for (const char* stage : {"prestart", "createRuntime"}) {
    CAPTURE(stage);
    auto doc = nlohmann::json::parse(shipped(std::string("oci-config-hooks.") + stage + ".json"));
    REQUIRE(doc["hooks"][stage].size() == 1);
    HookEntry e = parse_hook_entry(doc["hooks"][stage][0].dump());
    CHECK(e.path == "/usr/bin/gpu-numa-hook");
    CHECK(e.args == std::vector<std::string>{"gpu-numa-hook", stage});
    CHECK(e.env == std::vector<std::string>{"PATH=/usr/sbin:/usr/bin:/sbin:/bin"});
    CHECK(e.timeout.has_value());
  }
}
