#include "host/fs/liveness_lock.h"

#include <doctest/doctest.h>
#include <stdlib.h>
#include <unistd.h>

#include <optional>
#include <string>

namespace {

std::string temp_dir() {
  char tmpl[] = "/tmp/gnh-liveness.XXXXXX";
  REQUIRE(::mkdtemp(tmpl) != nullptr);
  return tmpl;
}

}  // namespace

TEST_CASE("liveness lock: held while its holder lives, free after, unknown without a file") {
  const std::string dir = temp_dir();
  gnh::HostFs fs("/");
  const std::string path = dir + "/plugin.lock";
  CHECK(gnh::liveness_lock_held(fs, path) == std::nullopt);
  {
    gnh::LivenessLock lock(path);
    REQUIRE(lock.held());
    CHECK(gnh::liveness_lock_held(fs, path) == std::optional<bool>(true));
    gnh::LivenessLock second(path);  // a second instance shares it
    CHECK(second.held());
  }
  CHECK(gnh::liveness_lock_held(fs, path) == std::optional<bool>(false));
  // beneath a host root, as `check --host-root /host` reads it
  gnh::HostFs rooted(dir);
  {
    gnh::LivenessLock lock(path);
    CHECK(gnh::liveness_lock_held(rooted, "/plugin.lock") == std::optional<bool>(true));
  }
  CHECK(gnh::liveness_lock_held(rooted, "/plugin.lock") == std::optional<bool>(false));
  ::unlink(path.c_str());
  ::rmdir(dir.c_str());
}

TEST_CASE("liveness lock: a directory it cannot create the file in leaves it unheld, never throws") {
  gnh::LivenessLock lock("/nonexistent-dir/plugin.lock");
  CHECK_FALSE(lock.held());
}
