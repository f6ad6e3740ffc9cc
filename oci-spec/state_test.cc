#include "state.h"

#include <doctest/doctest.h>

#include "parse_error.h"

using namespace oci;

TEST_CASE("runc, crun and legacy Docker states") {
  State runc = parse_state(R"({"ociVersion":"1.0.2-dev","id":"t1","status":"creating","pid":14948,"bundle":"/tmp/b"})");
  CHECK(runc.id == "t1");
  CHECK(runc.pid == 14948);
  CHECK(runc.bundle == "/tmp/b");
  CHECK(runc.status == "creating");
  State crun = parse_state(R"({"ociVersion":"1.0","id":"t1c","pid":15277,"root":"/tmp/rootfs","bundle":"/tmp/b","status":"created"})");
  CHECK(crun.root == "/tmp/rootfs");
  State docker = parse_state(R"({"id":"d","pid":3,"bundlePath":"/var/run/docker/b"})");
  CHECK(docker.bundle == "/var/run/docker/b");
  State podman = parse_state(R"({"id":"p","pid":3,"bundle":"/b","annotations":{"io.container.manager":"libpod"}})");
  CHECK(podman.annotations.at("io.container.manager") == "libpod");
}

TEST_CASE("bad states name what is wrong") {
  auto err = [](const char* s) {
    try { parse_state(s); } catch (const ParseError& e) { return std::string(e.what()); }
    return std::string();
  };
  CHECK(err("{").find("not valid JSON") != std::string::npos);
  CHECK(err("[]").find("must be a JSON object") != std::string::npos);
  CHECK(err(R"({"pid":1,"bundle":"/b"})").find("no container id") != std::string::npos);
  CHECK(err(R"({"id":"x","pid":"12","bundle":"/b"})") == "pid must be an integer, not string");
  CHECK(err(R"({"id":"x","pid":4294967296,"bundle":"/b"})").find("out of range") != std::string::npos);
  CHECK(err(R"({"id":"x","pid":1})").find("no bundle") != std::string::npos);
  CHECK(err(R"({"id":"x","bundle":"/b","annotations":{"a":1}})") == "annotations.a must be a string, not number");
}
