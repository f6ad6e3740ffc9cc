#include "hook_entry.h"

#include <doctest/doctest.h>

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
