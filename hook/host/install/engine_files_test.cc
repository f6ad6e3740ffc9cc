#include "host/install/engine_files.h"

#include <doctest/doctest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "base/error.h"
#include "host/install/install_state.h"

using namespace gnh;
namespace fs = std::filesystem;

namespace {
struct Dir {
  std::string path;
  Dir() {
    char t[] = "/tmp/gnh-engine-files-XXXXXX";
    path = ::mkdtemp(t);
  }
  ~Dir() { fs::remove_all(path); }
};
}  // namespace

TEST_CASE("host config reader: a file's text, absence as nullopt, globs sorted as containerd sees them") {
  Dir d;
  fs::create_directories(d.path + "/conf.d");
  for (const char* n : {"99-zz-gpu-numa.toml", "99-nvidia.toml", "10-a.toml", "x.conf"}) std::ofstream(d.path + "/conf.d/" + n) << n;
  HostConfigReader r;
  CHECK(r.read(d.path + "/conf.d/10-a.toml") == std::optional<std::string>("10-a.toml"));
  CHECK(!r.read(d.path + "/conf.d/none.toml"));
  CHECK(r.exists(d.path + "/conf.d"));
  CHECK(!r.exists(d.path + "/nothere"));
  CHECK(r.glob(d.path + "/conf.d/*.toml") ==
        std::vector<std::string>{d.path + "/conf.d/10-a.toml", d.path + "/conf.d/99-nvidia.toml", d.path + "/conf.d/99-zz-gpu-numa.toml"});
  CHECK(r.glob(d.path + "/none/*.toml").empty());
}

TEST_CASE("a runtime's name made absolute by the shim's fixed PATH, under a root") {
  Dir d;
  fs::create_directories(d.path + "/usr/local/bin");
  fs::create_directories(d.path + "/usr/bin");
  std::ofstream(d.path + "/usr/bin/nvidia-container-runtime") << "#!/bin/sh\n";
  ::chmod((d.path + "/usr/bin/nvidia-container-runtime").c_str(), 0755);
  std::ofstream(d.path + "/usr/local/bin/nvidia-container-runtime") << "not executable\n";
  CHECK(absolute_runtime("nvidia-container-runtime", d.path) == "/usr/bin/nvidia-container-runtime");
  CHECK(absolute_runtime("nvidia-container-runtime.cdi", d.path) == "nvidia-container-runtime.cdi");
  CHECK(absolute_runtime("/opt/nvidia/runtime", d.path) == "/opt/nvidia/runtime");
}

TEST_CASE("install-state.json: records round-trip beside our config, a broken file is refused") {
  Dir d;
  const std::string ours = d.path + "/config.toml";
  InstallState empty(ours);
  CHECK(empty.path() == d.path + "/install-state.json");
  CHECK(!empty.get("containerd"));
  CHECK(empty.text().empty());
  InstallRecord r;
  r.config = "/etc/containerd/config.toml";
  r.previous_default = "nvidia";
  r.set_default = true;
  r.dropin = "/etc/containerd/conf.d/99-zz-gpu-numa.toml";
  r.import_added = "conf.d/99-zz-gpu-numa.toml";
  r.import_line_added = true;
  r.previous_next = std::vector<std::string>{"runc", "crun"};
  empty.put("containerd", r);
  std::ofstream(d.path + "/install-state.json") << empty.text();
  InstallState back(ours);
  auto got = back.get("containerd");
  REQUIRE(got);
  CHECK(got->previous_default == "nvidia");
  CHECK(got->set_default);
  CHECK(got->dropin == r.dropin);
  CHECK(got->import_added == r.import_added);
  CHECK(got->import_line_added);
  CHECK(!got->created_config);
  CHECK(got->previous_next == r.previous_next);
  CHECK(back.text() == empty.text());
  std::ofstream(d.path + "/install-state.json") << "{\"containerd\": ";
  CHECK_THROWS_WITH_AS(InstallState{ours}, doctest::Contains((d.path + "/install-state.json: cannot read install state, left untouched").c_str()),
                       Failure);
}

TEST_CASE("the installed containerd's release, from `containerd --version`") {
  struct stat st {};
  if (::stat("/usr/bin/containerd", &st) != 0) {
    const char* ci = std::getenv("CI");
    CHECK_MESSAGE(!(ci && std::string(ci) == "true"), "no /usr/bin/containerd (CI installs it)");
    CHECK(installed_containerd().major == 0);
    return;
  }
  ContainerdRelease r = installed_containerd();
  CHECK(r.major >= 1);
  CHECK(r.source.find("containerd --version") != std::string::npos);
}
