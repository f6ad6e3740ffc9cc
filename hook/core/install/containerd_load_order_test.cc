#include "install/containerd_load_order.h"

#include <doctest/doctest.h>

#include "base/error.h"
#include "install/test_files.h"

using namespace gnh;

using Paths = std::vector<std::string>;

TEST_CASE("containerd load order: the main file, then each import in order, globs sorted, relative to the importer") {
  Files fs;
  fs.f["/etc/containerd/config.toml"] = "version = 2\nimports = [\"conf.d/*.toml\", \"/opt/extra/nri.toml\"]\n";
  fs.f["/etc/containerd/conf.d/99-nvidia.toml"] = "version = 2\n";
  fs.f["/etc/containerd/conf.d/10-first.toml"] = "version = 2\n";
  fs.f["/etc/containerd/conf.d/notes.txt"] = "not TOML, not matched [[[";
  fs.f["/opt/extra/nri.toml"] = "version = 2\n";
  ContainerdLoadOrder o = containerd_load_order("/etc/containerd/config.toml", fs);
  CHECK(o.files == Paths{"/etc/containerd/config.toml", "/etc/containerd/conf.d/10-first.toml",
                         "/etc/containerd/conf.d/99-nvidia.toml", "/opt/extra/nri.toml"});
  CHECK(o.unseen.empty());
}

TEST_CASE("containerd load order: nested imports breadth first, relative to their own file, each file once") {
  Files fs;
  fs.f["/etc/containerd/config.toml"] = "imports = [\"a/one.toml\", \"b.toml\"]\n";
  // a/one.toml's entry is relative to a/, and names the main file again (a loop containerd ignores)
  fs.f["/etc/containerd/a/one.toml"] = "imports = [\"../c.toml\", \"../config.toml\", \"sub/*.toml\"]\n";
  fs.f["/etc/containerd/a/sub/deep.toml"] = "imports = [\"../../b.toml\"]\n";
  fs.f["/etc/containerd/b.toml"] = "";
  fs.f["/etc/containerd/c.toml"] = "";
  CHECK(containerd_load_order("/etc/containerd/config.toml", fs).files ==
        Paths{"/etc/containerd/config.toml", "/etc/containerd/a/one.toml", "/etc/containerd/b.toml",
              "/etc/containerd/c.toml", "/etc/containerd/a/sub/deep.toml"});
}

TEST_CASE("containerd load order: absolute imports under --host-root, absent ones skipped and named, broken ones refused") {
  Files fs;
  fs.f["/host/etc/containerd/config.toml"] = "imports = [\"/etc/containerd/x.toml\", \"/etc/gone/*.toml\", \"missing.toml\"]\n";
  fs.f["/host/etc/containerd/x.toml"] = "";
  ContainerdLoadOrder o = containerd_load_order("/host/etc/containerd/config.toml", fs, "/host");
  CHECK(o.files == Paths{"/host/etc/containerd/config.toml", "/host/etc/containerd/x.toml"});
  CHECK(o.unseen == std::set<std::string>{"/etc/gone/*.toml"});  // relative misses are not a --host-root problem
  // Without the root, the host's absolute entries name nothing here.
  CHECK(containerd_load_order("/host/etc/containerd/config.toml", fs).unseen.size() == 2);
  CHECK(containerd_load_order("/nowhere/config.toml", fs).files.empty());
  fs.f["/host/etc/containerd/x.toml"] = "[[[";
  CHECK_THROWS_WITH_AS(containerd_load_order("/host/etc/containerd/config.toml", fs, "/host"),
                       doctest::Contains("/host/etc/containerd/x.toml: line 1"), Error);
}

TEST_CASE("containerd import paths: relative to the importer's directory, absolute ones under the root, cleaned") {
  CHECK(containerd_import_path("/etc/containerd/config.toml", "conf.d/99-zz-gpu-numa.toml") ==
        "/etc/containerd/conf.d/99-zz-gpu-numa.toml");
  CHECK(containerd_import_path("/etc/containerd/config.toml", "./x/../y.toml") == "/etc/containerd/y.toml");
  CHECK(containerd_import_path("/etc/containerd/config.toml", "/etc//z.toml", "/host") == "/host/etc/z.toml");
  CHECK(containerd_import_path("/etc/containerd/config.toml", "/../../z.toml", "/host") == "/host/z.toml");
}
