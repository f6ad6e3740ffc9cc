#include "status/unprotected_finding.h"

#include <doctest/doctest.h>

#include "status/node_status.h"

using namespace gnh;

TEST_CASE("status: each GPU container without the hook is a reason the node is not protected, one line each") {
  RunningContainersFact f;
  f.read = true;
  f.running = 3;
  f.scan = unprotected_gpu_containers(
      {{"a", "runc", "/run/runc",
        R"({"process":{"env":["NVIDIA_VISIBLE_DEVICES=0"]},"hooks":{"prestart":[{"path":"/usr/bin/nvidia-container-runtime-hook"}]}})"},
       {"b", "crun", "/run/crun", R"({"linux":{"devices":[{"path":"/dev/nvidia1","type":"c","major":195,"minor":1}]}})"},
       {"c", "runc", "/run/runc", R"({"process":{"env":["PATH=/bin"]}})"}});
  StatusVerdict v;
  judge_running_containers(f, &v);
  REQUIRE(v.not_protected.size() == 2);
  CHECK(v.not_protected[0].rfind("GPU container running without gpu-numa-hook: container a, runc (/run/runc), GPU from "
                                 "NVIDIA_VISIBLE_DEVICES=0; ", 0) == 0);
  CHECK(v.not_protected[1].rfind("GPU container running without gpu-numa-hook: container b, crun (/run/crun), GPU from "
                                 "linux.devices; ", 0) == 0);
  CHECK(v.exit_code() == 1);
  CHECK(running_containers_text(f) ==
        "containers: 3 running, 2 GPU container(s) without the hook\n"
        "  unprotected: a runc /run/runc gpu from NVIDIA_VISIBLE_DEVICES=0\n"
        "  unprotected: b crun /run/crun gpu from linux.devices\n");
  CHECK(running_containers_json(f)["unprotected_gpu_containers"].size() == 2);
}

TEST_CASE("status: none without the hook is protected, records that cannot be read leave it not told") {
  RunningContainersFact ok;
  ok.read = true;
  ok.running = 5;
  StatusVerdict v;
  judge_running_containers(ok, &v);
  CHECK(v.exit_code() == 0);
  CHECK(running_containers_text(ok) == "containers: 5 running, every GPU container with the hook\n");

  RunningContainersFact unread;
  unread.error = "cannot list /run/runc: Permission denied";
  StatusVerdict u;
  judge_running_containers(unread, &u);
  CHECK(u.exit_code() == 2);
  REQUIRE(u.unknown.size() == 1);
  CHECK(u.unknown[0] == "running containers: cannot list /run/runc: Permission denied");
  CHECK(running_containers_text(unread) == "containers: cannot tell\n");
}
