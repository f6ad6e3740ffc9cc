#include "host/runtime/next_runtime.h"

#include <doctest/doctest.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include <fstream>
#include <string>

#include "base/error.h"

namespace {

std::string temp_dir() {
  char tmpl[] = "/tmp/gnh-next-runtime.XXXXXX";
  REQUIRE(::mkdtemp(tmpl) != nullptr);
  return tmpl;
}

std::string executable(const std::string& path) {
  std::ofstream(path) << "#!/bin/sh\n";
  REQUIRE(::chmod(path.c_str(), 0755) == 0);
  return path;
}

std::string failure_of(const std::vector<std::string>& next, size_t from, std::optional<size_t> reentered) {
  try {
    gnh::find_next_runtime(next, from, reentered);
  } catch (const gnh::Error& e) {
    return e.what();
  }
  return "";
}

}  // namespace

TEST_CASE("next runtime: the chain marker the shim leaves for the runtime it runs") {
  CHECK(gnh::chained_index(nullptr) == std::nullopt);
  CHECK(gnh::chained_index("") == std::nullopt);
  CHECK(gnh::chained_index("0") == std::optional<size_t>(0));
  CHECK(gnh::chained_index("2") == std::optional<size_t>(2));
  CHECK(gnh::chained_index("-1") == std::nullopt);
  CHECK(gnh::chained_index("1x") == std::nullopt);
  CHECK(gnh::chained_index("99999") == std::nullopt);  // not an index any config has
}

TEST_CASE("next runtime: run back by NVIDIA's runtime, the shim passes on to the entry after it") {
  const std::string dir = temp_dir();
  const std::string nvidia = executable(dir + "/nvidia-container-runtime");
  const std::string runc = executable(dir + "/runc");
  const std::vector<std::string> next = {nvidia, dir + "/missing", runc};
  // first in the chain: NVIDIA's runtime
  gnh::NextRuntime first = gnh::find_next_runtime(next);
  CHECK(first.path == nvidia);
  CHECK(first.index == 0);
  // run back by it (GPU_NUMA_RUNTIME_CHAINED=0): past it and the missing entry, to runc
  gnh::NextRuntime second = gnh::find_next_runtime(next, first.index + 1, first.index);
  CHECK(second.path == runc);
  CHECK(second.index == 2);
  // run back with nothing after it: one line naming the loop and the fix, not an exec of itself
  CHECK(failure_of({nvidia}, 1, 0) ==
        "runtime.next: '" + nvidia + "' ran gpu-numa-runtime back as its own runtime, and no entry after it is named: add runc "
        "after it, as install does ([runtime] next = [\"" + nvidia + "\", \"runc\", \"crun\"])");
  CHECK(failure_of({nvidia, dir + "/missing"}, 1, 0).find("no entry after it (" + dir + "/missing) is an executable file") !=
        std::string::npos);
  // not run back: the usual failure
  CHECK(failure_of({dir + "/missing"}, 0, std::nullopt).starts_with("runtime.next: none of [" + dir + "/missing]"));
}
