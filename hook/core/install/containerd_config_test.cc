// containerd's engine on the layouts GPU nodes have (issue 19): the GPU operator's main file,
// nvidia-ctk's drop-in, versions 1 to 4, a missing file, a broken file; second run, uninstall.
// The files live in a map (the engine reads only through ConfigReader).
#include <doctest/doctest.h>
#include <toml++/toml.h>

#include <algorithm>
#include <map>

#include "base/error.h"
#include "install/containerd_config.h"
#include "install/engine_config.h"
#include "install/test_files.h"

using namespace gnh;

namespace {

InstallOptions opts(bool set_default = false) {
  InstallOptions o;
  o.set_default = set_default;
  return o;
}
InstallOptions removal() {
  InstallOptions o;
  o.uninstall = true;
  return o;
}
const ContainerdRelease k16{1, 6, "test"}, k17{1, 7, "test"}, k21{2, 1, "test"}, k23{2, 3, "test"};
const std::string kMain = "/etc/containerd/config.toml";
const std::string kOurs = "/etc/containerd/conf.d/99-zz-gpu-numa.toml";
const std::string kV2 = "io.containerd.grpc.v1.cri";
const std::string kV3 = "io.containerd.cri.v1.runtime";

const std::string kOperator = gpu_operator_containerd_v2();

const FileChange& change(const EngineEdit& e, const std::string& path) {
  for (const FileChange& c : e.changes)
    if (c.path == path) return c;
  FAIL("no change for " << path);
  return e.changes.front();
}
toml::table after_of(const EngineEdit& e, const std::string& path) { return toml::parse(*change(e, path).after); }
template <typename View>
std::string str(View n) {
  return n.value_or(std::string("<none>"));
}

}  // namespace

TEST_CASE("containerd 1.6, GPU operator layout: our drop-in carries the whole CRI table plus gpu-numa, the main file gains one line") {
  Files fs;
  fs.f[kMain] = kOperator;
  auto engine = containerd_config(kMain, fs, k16);
  EngineEdit e = engine->add_runtime(opts(), std::nullopt);
  CHECK(e.runtimes.default_runtime == "nvidia");
  CHECK(e.runtimes.base_runtime == "runc");
  CHECK(e.runtimes.nvidia_binary == "/usr/local/nvidia/toolkit/nvidia-container-runtime");
  REQUIRE(e.notes.size() == 1);
  CHECK(e.notes[0] == "strategy: containerd 1.6 (test) replaces a plugin's whole table with an imported file's: " + kOurs +
                          " carries the whole effective CRI table (from " + kMain + ") plus gpu-numa; after editing that "
                          "table, run install again");
  // the main file: one line added after `version`, every other byte kept
  std::string main_after = kOperator;
  main_after.insert(main_after.find('\n') + 1, "imports = [\"conf.d/99-zz-gpu-numa.toml\"]\n");
  CHECK(*change(e, kMain).after == main_after);
  toml::table d = after_of(e, kOurs);
  CHECK(d["version"].value_or(0) == 2);
  auto ctd = d["plugins"][kV2]["containerd"];
  CHECK(str(ctd["default_runtime_name"]) == "nvidia");
  CHECK(str(ctd["runtimes"]["gpu-numa"]["runtime_type"]) == "io.containerd.runc.v2");
  CHECK(str(ctd["runtimes"]["gpu-numa"]["options"]["BinaryName"]) == "/usr/bin/gpu-numa-runtime");
  CHECK(ctd["runtimes"]["gpu-numa"]["options"]["SystemdCgroup"].value_or(false));
  CHECK(str(ctd["runtimes"]["nvidia"]["options"]["BinaryName"]) == "/usr/local/nvidia/toolkit/nvidia-container-runtime");
  CHECK(ctd["runtimes"]["runc"]["options"]["SystemdCgroup"].value_or(false));
  CHECK(e.record.dropin == kOurs);
  CHECK(e.record.import_added == "conf.d/99-zz-gpu-numa.toml");
  CHECK(e.record.import_line_added);
  CHECK(e.record.previous_default == "nvidia");
  CHECK(!e.record.created_config);
  fs.apply(e);

  SUBCASE("a second run changes nothing") {
    EngineEdit again = containerd_config(kMain, fs, k16)->add_runtime(opts(), e.record);
    for (const FileChange& c : again.changes) CHECK(c.before == c.after);
  }
  SUBCASE("--set-default, then an unrelated edit, then uninstall: the edit stays, everything of ours goes") {
    EngineEdit def = containerd_config(kMain, fs, k16)->add_runtime(opts(true), e.record);
    CHECK(str(after_of(def, kOurs)["plugins"][kV2]["containerd"]["default_runtime_name"]) == "gpu-numa");
    CHECK(change(def, kMain).before == change(def, kMain).after);
    fs.apply(def);
    fs.f[kMain] += "[plugins.\"io.containerd.grpc.v1.cri\".registry.mirrors.\"docker.io\"]\n  endpoint = [\"https://mirror.example\"]\n";
    EngineEdit un = containerd_config(kMain, fs, k16)->remove_runtime(removal(), def.record);
    fs.apply(un);
    CHECK(fs.f[kMain] == kOperator + "[plugins.\"io.containerd.grpc.v1.cri\".registry.mirrors.\"docker.io\"]\n  endpoint = [\"https://mirror.example\"]\n");
    CHECK(!fs.f.count(kOurs));
  }
  SUBCASE("uninstall gives the main file back byte for byte") {
    fs.apply(containerd_config(kMain, fs, k16)->remove_runtime(removal(), e.record));
    CHECK(fs.f[kMain] == kOperator);
    CHECK(fs.f.size() == 1);
  }
}

TEST_CASE("containerd 1.7, nvidia-ctk's drop-in layout: the main file is untouched, our drop-in copies 99-nvidia.toml's CRI table") {
  Files fs;
  const std::string main = "version = 2\nimports = [\"/etc/containerd/conf.d/*.toml\"]\n# mine\n[grpc]\n  address = \"/run/containerd/containerd.sock\"\n";
  fs.f[kMain] = main;
  fs.f["/etc/containerd/conf.d/99-nvidia.toml"] =
      "version = 2\n[plugins.\"io.containerd.grpc.v1.cri\".containerd]\n  default_runtime_name = \"nvidia\"\n"
      "[plugins.\"io.containerd.grpc.v1.cri\".containerd.runtimes.nvidia]\n  runtime_type = \"io.containerd.runc.v2\"\n"
      "[plugins.\"io.containerd.grpc.v1.cri\".containerd.runtimes.nvidia.options]\n  BinaryName = \"/usr/bin/nvidia-container-runtime\"\n"
      "[plugins.\"io.containerd.grpc.v1.cri\".containerd.runtimes.runc]\n  runtime_type = \"io.containerd.runc.v2\"\n"
      "[plugins.\"io.containerd.grpc.v1.cri\".containerd.runtimes.runc.options]\n  SystemdCgroup = true\n";
  EngineEdit e = containerd_config(kMain, fs, k17)->add_runtime(opts(), std::nullopt);
  CHECK(*change(e, kMain).after == main);  // the glob reads our drop-in already
  CHECK(e.record.import_added.empty());
  CHECK(e.notes[0].find("(from /etc/containerd/conf.d/99-nvidia.toml)") != std::string::npos);
  toml::table d = after_of(e, kOurs);
  auto ctd = d["plugins"][kV2]["containerd"];
  CHECK(str(ctd["default_runtime_name"]) == "nvidia");
  CHECK(ctd["runtimes"]["gpu-numa"]["options"]["SystemdCgroup"].value_or(false));
  CHECK(e.runtimes.nvidia_binary == "/usr/bin/nvidia-container-runtime");
  fs.apply(e);
  fs.apply(containerd_config(kMain, fs, k17)->remove_runtime(removal(), e.record));
  CHECK(fs.f[kMain] == main);
  CHECK(fs.f.size() == 2);

  // a file read after ours that defines the CRI table would replace ours on 1.x: refused
  fs.f["/etc/containerd/conf.d/zz-late.toml"] = "version = 2\n[plugins.\"io.containerd.grpc.v1.cri\".registry]\n";
  CHECK_THROWS_WITH_AS(containerd_config(kMain, fs, k17)->add_runtime(opts(), std::nullopt),
                       ("/etc/containerd/conf.d/zz-late.toml is read after " + kOurs +
                        " and defines the CRI plugin table: containerd 1.x would replace ours with it, so nothing was "
                        "changed (ours must be the last file containerd reads: put \"conf.d/99-zz-gpu-numa.toml\" last in the "
                        "imports of " + kMain + ", and make /etc/containerd/conf.d/zz-late.toml sort before it)").c_str(),
                       Error);
}

TEST_CASE("containerd 2.x, version 3 and 4: a minimal drop-in under io.containerd.cri.v1.runtime, NVIDIA's runtime found in a drop-in") {
  for (long long version : {3LL, 4LL}) {
    CAPTURE(version);
    Files fs;
    const std::string v = std::to_string(version);
    const std::string main = "version = " + v + "\nimports = [\"/etc/containerd/conf.d/*.toml\"]\n"
                             "[plugins.'io.containerd.cri.v1.runtime'.containerd.runtimes.runc]\n  runtime_type = \"io.containerd.runc.v2\"\n"
                             "[plugins.'io.containerd.cri.v1.runtime'.containerd.runtimes.runc.options]\n  SystemdCgroup = true\n";
    fs.f[kMain] = main;
    fs.f["/etc/containerd/conf.d/99-nvidia.toml"] =
        "version = " + v + "\n[plugins.'io.containerd.cri.v1.runtime'.containerd]\n  default_runtime_name = \"nvidia\"\n"
        "[plugins.'io.containerd.cri.v1.runtime'.containerd.runtimes.nvidia]\n  runtime_type = \"io.containerd.runc.v2\"\n"
        "[plugins.'io.containerd.cri.v1.runtime'.containerd.runtimes.nvidia.options]\n  BinaryName = \"/usr/bin/nvidia-container-runtime\"\n";
    EngineEdit e = containerd_config(kMain, fs, version == 3 ? k21 : k23)->add_runtime(opts(true), std::nullopt);
    CHECK(e.notes[0] == "strategy: containerd " + std::string(version == 3 ? "2.1" : "2.3") +
                            " (test) merges imported files key by key: " + kOurs + " holds only the gpu-numa runtime and the default");
    CHECK(*change(e, kMain).after == main);
    toml::table d = after_of(e, kOurs);
    CHECK(d["version"].value_or(0LL) == version);
    CHECK(d["plugins"].as_table()->size() == 1);
    auto ctd = d["plugins"][kV3]["containerd"];
    CHECK(ctd.as_table()->size() == 2);  // runtimes and default_runtime_name
    CHECK(ctd["runtimes"].as_table()->size() == 1);
    CHECK(str(ctd["default_runtime_name"]) == "gpu-numa");
    CHECK(ctd["runtimes"]["gpu-numa"]["options"]["SystemdCgroup"].value_or(false));
    CHECK(str(ctd["runtimes"]["gpu-numa"]["options"]["BinaryName"]) == "/usr/bin/gpu-numa-runtime");
    CHECK(e.runtimes.nvidia_binary == "/usr/bin/nvidia-container-runtime");
    CHECK(e.runtimes.base_runtime == "runc");
  }
  // a version 2 main file under containerd 2.x: the drop-in keeps version 2 (2.x migrates the merged result)
  Files fs;
  fs.f[kMain] = "version = 2\n";
  toml::table d = after_of(containerd_config(kMain, fs, k21)->add_runtime(opts(), std::nullopt), kOurs);
  CHECK(d["version"].value_or(0) == 2);
  CHECK(str(d["plugins"][kV2]["containerd"]["runtimes"]["gpu-numa"]["runtime_type"]) == "io.containerd.runc.v2");
  CHECK(str(d["plugins"][kV2]["containerd"]["runtimes"]["runc"]["runtime_type"]) == "io.containerd.runc.v2");
  // version 3 with containerd 1.x installed: refused
  fs.f[kMain] = "version = 3\n";
  CHECK_THROWS_WITH_AS(containerd_config(kMain, fs, k17)->add_runtime(opts(), std::nullopt),
                       (kMain + ": config version 3 is containerd 2.x's, but containerd 1.7 is installed (test): left untouched").c_str(), Error);
  // version 4 (containerd 2.3's) with containerd 2.1 installed, which refuses it at start: refused
  fs.f[kMain] = "version = 4\n";
  CHECK_THROWS_WITH_AS(containerd_config(kMain, fs, k21)->add_runtime(opts(), std::nullopt),
                       (kMain + ": config version 4 is not read by containerd 2.1 (test), which reads versions up to 3: left untouched").c_str(), Error);
}

TEST_CASE("containerd: a missing main file is created with the installed containerd's version, and removed again") {
  // Named, not a structured binding: clang 14 (the hardening tree's) cannot capture one in CAPTURE's lambda.
  for (auto release_version : {std::pair{k17, 2}, std::pair{k21, 3}, std::pair{ContainerdRelease{}, 2}}) {
    const ContainerdRelease release = release_version.first;
    const int version = release_version.second;
    CAPTURE(version);
    Files fs;
    EngineEdit e = containerd_config(kMain, fs, release)->add_runtime(opts(), std::nullopt);
    CHECK(*change(e, kMain).after == "version = " + std::to_string(version) + "\nimports = [\"conf.d/99-zz-gpu-numa.toml\"]\n");
    toml::table d = after_of(e, kOurs);
    const std::string key = version == 3 ? kV3 : kV2;
    // a runtimes table replaces containerd's built-in one: the default runc is written out too
    CHECK(str(d["plugins"][key]["containerd"]["runtimes"]["runc"]["runtime_type"]) == "io.containerd.runc.v2");
    CHECK(str(d["plugins"][key]["containerd"]["runtimes"]["gpu-numa"]["options"]["BinaryName"]) == "/usr/bin/gpu-numa-runtime");
    CHECK(e.runtimes.base_runtime == "runc (built-in)");
    CHECK(e.record.created_config);
    fs.apply(e);
    fs.apply(containerd_config(kMain, fs, release)->remove_runtime(removal(), e.record));
    CHECK(fs.f.empty());
  }
}

TEST_CASE("containerd: version 1 files are edited in place, broken files are named with their line") {
  Files fs;
  fs.f[kMain] = "[plugins.cri.containerd]\n  snapshotter = \"overlayfs\"\n";
  EngineEdit e = containerd_config(kMain, fs, k16)->add_runtime(opts(), std::nullopt);
  CHECK(e.notes[0].rfind("strategy: config version 1 (no `version` key): no drop-in", 0) == 0);
  CHECK(e.changes.size() == 1);
  CHECK(str(after_of(e, kMain)["plugins"]["cri"]["containerd"]["runtimes"]["gpu-numa"]["options"]["BinaryName"]) ==
        "/usr/bin/gpu-numa-runtime");
  fs.apply(e);
  fs.apply(containerd_config(kMain, fs, k16)->remove_runtime(removal(), e.record));
  CHECK(toml::parse(fs.f[kMain]) == toml::parse("[plugins.cri.containerd]\n  snapshotter = \"overlayfs\"\n"));

  fs.f[kMain] = "version = 2\n[plugins\n";
  CHECK_THROWS_WITH_AS(containerd_config(kMain, fs, k16)->add_runtime(opts(), std::nullopt),
                       doctest::Contains((kMain + ": line 2, column 9: cannot parse, left untouched").c_str()), Error);
  fs.f[kMain] = "version = 2\nimports = [\"conf.d/bad.toml\"]\n";
  fs.f["/etc/containerd/conf.d/bad.toml"] = "version = 2\n\n[[x\n";
  CHECK_THROWS_WITH_AS(containerd_config(kMain, fs, k16)->add_runtime(opts(), std::nullopt),
                       doctest::Contains("/etc/containerd/conf.d/bad.toml: line 3"), Error);
}

TEST_CASE("containerd: an absolute import that names nothing here is refused on 1.x (a DaemonSet without --host-root)") {
  Files fs;
  fs.f["/host/etc/containerd/config.toml"] = "version = 2\nimports = [\"/etc/containerd/conf.d/*.toml\"]\n";
  CHECK_THROWS_WITH_AS(containerd_config("/host/etc/containerd/config.toml", fs, k17)->add_runtime(opts(), std::nullopt),
                       doctest::Contains("imports entry '/etc/containerd/conf.d/*.toml' of /host/etc/containerd/config.toml names nothing here"), Error);
  fs.f["/host/etc/containerd/conf.d/99-nvidia.toml"] = "version = 2\n[plugins.\"io.containerd.grpc.v1.cri\".containerd]\n  default_runtime_name = \"nvidia\"\n";
  EngineEdit e = containerd_config("/host/etc/containerd/config.toml", fs, k17, "/host")->add_runtime(opts(), std::nullopt);
  CHECK(e.notes[0].find("(from /host/etc/containerd/conf.d/99-nvidia.toml)") != std::string::npos);
  CHECK(*change(e, "/host/etc/containerd/config.toml").after == fs.f["/host/etc/containerd/config.toml"]);
}

TEST_CASE("containerd imports as text: appended or added, and taken out again, byte for byte") {
  bool line = false;
  const std::string one = "version = 2\nimports = [\"/a/*.toml\"] # theirs\n[grpc]\n";
  std::string out = containerd_add_import(one, "m", "conf.d/x.toml", &line);
  CHECK(out == "version = 2\nimports = [\"/a/*.toml\", \"conf.d/x.toml\"] # theirs\n[grpc]\n");
  CHECK(!line);
  CHECK(containerd_remove_import(out, "m", "conf.d/x.toml", false) == one);
  const std::string multi = "version = 2\nimports = [\n  \"/a.toml\",  # first\n  '/b.toml',\n]\n";
  out = containerd_add_import(multi, "m", "x.toml", &line);
  CHECK(out == "version = 2\nimports = [\n  \"/a.toml\",  # first\n  '/b.toml', \"x.toml\",\n]\n");
  CHECK(containerd_remove_import(out, "m", "x.toml", false) == multi);
  CHECK(containerd_add_import("imports = []\n", "m", "x", &line) == "imports = [\"x\"]\n");
  // brackets, '#' and quotes inside strings, CRLF line ends: the edit follows toml++'s positions
  const std::string tricky = "version = 2\r\nimports = [ '/a]b#c.toml' , \"/q\\\"]\" ]  # [x]\r\n";
  out = containerd_add_import(tricky, "m", "x", &line);
  CHECK(out == "version = 2\r\nimports = [ '/a]b#c.toml' , \"/q\\\"]\", \"x\" ]  # [x]\r\n");
  CHECK(containerd_remove_import(out, "m", "x", false) == tricky);
  CHECK(containerd_remove_import("imports = [\"x\"]\n", "m", "x", true) == "");
  CHECK(containerd_add_import("# top\n[grpc]\n", "m", "x", &line) == "imports = [\"x\"]\n# top\n[grpc]\n");
  CHECK(line);
  CHECK(containerd_add_import("version = 3", "m", "x", &line) == "version = 3\nimports = [\"x\"]\n");
  // ours first, another entry added after it by someone else: only ours goes
  CHECK(containerd_remove_import("imports = [\"x\", \"/y\"]\n", "m", "x", true) == "imports = [\"/y\"]\n");
  CHECK(containerd_remove_import("version = 2\n", "m", "x", true) == "version = 2\n");
  CHECK_THROWS_WITH_AS(containerd_add_import("imports = \"x\"\n", "/m", "y", &line), "/m: `imports` is not an array, left untouched", Error);
}

TEST_CASE("containerd's release from `containerd --version` and from --containerd-version") {
  ContainerdRelease r = containerd_release_from("containerd github.com/containerd/containerd 1.6.20~ds1 1.6.20~ds1-1+deb12u3", "s");
  CHECK((r.major == 1 && r.minor == 6 && r.source == "s"));
  r = containerd_release_from("containerd github.com/containerd/containerd/v2 v2.1.1 cb1076646aa3740577fafbf3d914198b7fe8e3f7", "s");
  CHECK((r.major == 2 && r.minor == 1));
  r = containerd_release_from("containerd containerd.io 1.7.27 05044ec0a9a75232cad458027ca83437aae3f4da", "s");
  CHECK((r.major == 1 && r.minor == 7));
  CHECK(containerd_release_from("2.3", "o").major == 2);
  CHECK(containerd_release_from("", "o").major == 0);
  CHECK(containerd_release_from("latest", "o").major == 0);
}
