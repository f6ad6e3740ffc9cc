#include "report/log_record.h"

#include <doctest/doctest.h>
#include <nlohmann/json.hpp>

using namespace gnh;

TEST_CASE("text line: every field, one line, hostile ids quoted") {
  LogRecord r;
  r.container = "3f2a";
  r.stage = "prestart";
  r.action = "patch";
  r.gpus = "/dev/nvidia3(0004:05:00.0)";
  r.required = "252";
  r.mems_before = "0,8";
  r.mems_after = "0,8,252";
  r.cgroup = "/docker/3f2a";
  r.duration_us = 812;
  r.msg = "added";
  CHECK(format_text(r, "T", 7) ==
        "T info gpu-numa-hook[7] container=3f2a stage=prestart action=patch gpus=/dev/nvidia3(0004:05:00.0) "
        "required=252 mems-before=0,8 mems-after=0,8,252 cgroup=/docker/3f2a duration-us=812 msg=\"added\"");
  r.container = "x action=allow\nforged";
  std::string line = format_text(r, "T", 7);
  CHECK(line.find('\n') == std::string::npos);
  CHECK(line.find("container=\"x action=allow\\nforged\"") != std::string::npos);
}

TEST_CASE("json line parses back with the same fields") {
  LogRecord r;
  r.container = "c1";
  r.action = "refuse";
  r.msg = "why \"quoted\"";
  auto j = nlohmann::json::parse(format_json(r, "T", 9));
  CHECK(j["container"] == "c1");
  CHECK(j["action"] == "refuse");
  CHECK(j["msg"] == "why \"quoted\"");
  CHECK(j["pid"] == 9);
}
