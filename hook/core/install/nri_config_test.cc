#include "install/nri_config.h"

#include <doctest/doctest.h>

#include "base/error.h"
#include "install/test_files.h"
#include "install/toml_text.h"

using namespace gnh;

TEST_CASE("nri install: is NRI on with this containerd config") {
  CHECK(containerd_nri_enabled("", "f", 2));        // 2.x: on by default
  CHECK_FALSE(containerd_nri_enabled("", "f", 1));  // 1.7: off by default
  CHECK_FALSE(containerd_nri_enabled("", "f", 0));  // unknown: the cautious answer
  const char* off = "version = 2\n[plugins.\"io.containerd.nri.v1.nri\"]\n  disable = true\n";
  const char* on = "version = 2\n[plugins.\"io.containerd.nri.v1.nri\"]\n  disable = false\n";
  CHECK_FALSE(containerd_nri_enabled(off, "f", 2));
  CHECK(containerd_nri_enabled(on, "f", 1));
  CHECK_THROWS_AS(containerd_nri_enabled("[[[", "f", 2), Error);
}

TEST_CASE("nri install: the drop-in keeps every key of the main file's NRI table, disable = false") {
  const char* main =
      "version = 2\n[plugins.\"io.containerd.nri.v1.nri\"]\n  disable = true\n  socket_path = \"/x/nri.sock\"\n"
      "  plugin_request_timeout = \"2s\"\n";
  toml::table t = parse_toml_file(containerd_nri_dropin(main, "f"), "dropin");
  CHECK(t["version"].value<long long>() == 2);
  CHECK(t["plugins"]["io.containerd.nri.v1.nri"]["disable"].value<bool>() == false);
  CHECK(t["plugins"]["io.containerd.nri.v1.nri"]["socket_path"].value<std::string>() == "/x/nri.sock");
  CHECK(t["plugins"]["io.containerd.nri.v1.nri"]["plugin_request_timeout"].value<std::string>() == "2s");
  toml::table empty = parse_toml_file(containerd_nri_dropin("", "f"), "dropin");
  CHECK(empty["plugins"]["io.containerd.nri.v1.nri"].as_table()->size() == 1);
}

TEST_CASE("nri install: CRI-O drop-in and the pre-registered plugin script") {
  toml::table t = parse_toml_file(crio_nri_dropin(), "crio");
  CHECK(t["crio"]["nri"]["enable_nri"].value<bool>() == true);
  CHECK(nri_preregistered_script("/usr/bin/gpu-numa-nri", "/opt/it's/hook") ==
        "#!/bin/sh\n"
        "# gpu-numa-hook install --runtime nri --nri-pre-registered: the runtime starts this at its own start,\n"
        "# with the NRI connection on the fd in NRI_PLUGIN_SOCKET.\n"
        "exec '/usr/bin/gpu-numa-nri' --hook '/opt/it'\\''s/hook'\n");
  // The runtime's own socket, where it is not the default: dialed if the runtime's connection drops.
  CHECK(nri_preregistered_script("/usr/bin/gpu-numa-nri", "/h", "/run/nri/x.sock").ends_with(
      "exec '/usr/bin/gpu-numa-nri' --hook '/h' --socket '/run/nri/x.sock'\n"));
}

namespace {
std::string nri_socket_line(const std::string& path) {
  return "[plugins.\"io.containerd.nri.v1.nri\"]\nsocket_path = \"" + path + "\"\n";
}
constexpr const char* kMain = "/etc/containerd/config.toml";
}  // namespace

TEST_CASE("nri install: containerd's NRI socket from the main file, or none") {
  Files fs;
  CHECK(containerd_nri_socket(kMain, fs).empty());  // no config at all: the default
  fs.f[kMain] = "version = 2\n";
  CHECK(containerd_nri_socket(kMain, fs).empty());
  fs.f[kMain] = "version = 2\n" + nri_socket_line("/run/nri/x.sock");
  CHECK(containerd_nri_socket(kMain, fs) == "/run/nri/x.sock");
  fs.f[kMain] = "[[[";
  CHECK_THROWS_AS(containerd_nri_socket(kMain, fs), Error);
}

// nvidia-ctk and operators put settings in conf.d drop-ins: a socket set only there is still the
// one containerd listens on.
TEST_CASE("nri install: containerd's NRI socket set only in an imported conf.d file is found") {
  Files fs;
  fs.f[kMain] = "version = 2\nimports = [\"/etc/containerd/conf.d/*.toml\"]\n";
  fs.f["/etc/containerd/conf.d/50-nri.toml"] = "version = 2\n" + nri_socket_line("/run/nri/from-dropin.sock");
  CHECK(containerd_nri_socket(kMain, fs) == "/run/nri/from-dropin.sock");
  // Not imported, not read (as containerd does not): a stray file beside them changes nothing.
  fs.f["/etc/containerd/other/60-nri.toml"] = nri_socket_line("/run/nri/stray.sock");
  CHECK(containerd_nri_socket(kMain, fs) == "/run/nri/from-dropin.sock");
}

TEST_CASE("nri install: containerd's NRI socket, a later import overrides the main file and an earlier import") {
  Files fs;
  fs.f[kMain] = "version = 2\nimports = [\"conf.d/*.toml\", \"last.toml\"]\n" + nri_socket_line("/run/nri/main.sock");
  fs.f["/etc/containerd/conf.d/10-a.toml"] = nri_socket_line("/run/nri/a.sock");
  fs.f["/etc/containerd/conf.d/20-b.toml"] = nri_socket_line("/run/nri/b.sock");
  CHECK(containerd_nri_socket(kMain, fs) == "/run/nri/b.sock");  // sorted: 20-b after 10-a
  fs.f["/etc/containerd/last.toml"] = nri_socket_line("/run/nri/last.sock");
  CHECK(containerd_nri_socket(kMain, fs) == "/run/nri/last.sock");  // imports order beats name order
  // A later file whose NRI table leaves socket_path out does not reset it.
  fs.f["/etc/containerd/last.toml"] = "[plugins.\"io.containerd.nri.v1.nri\"]\ndisable = false\n";
  CHECK(containerd_nri_socket(kMain, fs) == "/run/nri/b.sock");
}

TEST_CASE("nri install: containerd's NRI socket set in a nested import, absolute paths under --host-root") {
  Files fs;
  fs.f["/host/etc/containerd/config.toml"] = "version = 2\nimports = [\"/etc/containerd/site.toml\"]\n";
  fs.f["/host/etc/containerd/site.toml"] = "imports = [\"site.d/nri.toml\"]\n";
  fs.f["/host/etc/containerd/site.d/nri.toml"] = nri_socket_line("/run/nri/nested.sock");
  CHECK(containerd_nri_socket("/host/etc/containerd/config.toml", fs, "/host") == "/run/nri/nested.sock");
}

TEST_CASE("nri install: NRI's default validator settings, folded file by file") {
  NriValidatorSettings v;
  read_containerd_nri_validator("version = 3\n", "/etc/containerd/config.toml", &v);
  CHECK_FALSE(v.enable);
  CHECK(v.file.empty());
  read_containerd_nri_validator(R"(version = 3
[plugins."io.containerd.nri.v1.nri".default_validator]
  enable = true
  reject_oci_hook_adjustment = true
  required_plugins = ["gpu-numa", "topology-aware"]
)", "/etc/containerd/config.toml", &v);
  CHECK(v.enable);
  CHECK(v.reject_oci_hook_adjustment);
  CHECK(v.required_plugins == std::vector<std::string>{"gpu-numa", "topology-aware"});
  CHECK(v.file == "/etc/containerd/config.toml");
  // A later drop-in turns one key off; the others stay as the main file set them.
  read_containerd_nri_validator(R"([plugins."io.containerd.nri.v1.nri".default_validator]
reject_oci_hook_adjustment = false
)", "/etc/containerd/conf.d/50-nri.toml", &v);
  CHECK(v.enable);
  CHECK_FALSE(v.reject_oci_hook_adjustment);
  CHECK(v.required_plugins.size() == 2);
  CHECK(v.file == "/etc/containerd/conf.d/50-nri.toml");
  CHECK_THROWS(read_containerd_nri_validator("[[[", "/x.toml", &v));
}
