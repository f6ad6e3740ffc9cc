#include "report/log_record.h"

#include <doctest/doctest.h>

#include <cstdio>
#include <ctime>
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
  r.program = "gpu-numa-runtime";  // the shim's lines name the shim
  CHECK(format_text(r, "T", 7).rfind("T info gpu-numa-runtime[7] container=3f2a ", 0) == 0);
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
  CHECK(j["program"] == "gpu-numa-hook");
}

TEST_CASE("utc_timestamp agrees with gmtime_r") {
  for (long long t : {0LL, 951782400LL /* 2000-02-29 */, 1795327507LL, 4107542399LL /* 2100-02-28T23:59:59 */,
                      1709164800LL /* 2024-02-29 */, 253402300799LL /* 9999-12-31T23:59:59 */}) {
    for (long long s = t - 90000; s <= t + 90000; s += 3599) {
      time_t tt = static_cast<time_t>(s);
      struct tm tm;
      ::gmtime_r(&tt, &tm);
      char want[64];
      std::snprintf(want, sizeof want, "%04d-%02d-%02dT%02d:%02d:%02d.000042Z", tm.tm_year + 1900, tm.tm_mon + 1,
                    tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec);
      CHECK(gnh::utc_timestamp(s, 42) == want);
    }
  }
}
