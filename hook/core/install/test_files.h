// For the engines' unit tests: files in a map, read through ConfigReader as the host side reads them,
// and the sample engine files they share.
#pragma once

#include <fnmatch.h>

#include <fstream>
#include <map>
#include <sstream>
#include <optional>
#include <string>
#include <vector>

#include "install/engine_config.h"

namespace gnh {

struct Files final : ConfigReader {
  std::map<std::string, std::string> f;
  std::optional<std::string> read(const std::string& p) const override {
    auto it = f.find(p);
    return it == f.end() ? std::nullopt : std::optional<std::string>(it->second);
  }
  bool exists(const std::string& p) const override {
    for (const auto& [k, v] : f)
      if (k == p || k.rfind(p + "/", 0) == 0) return true;
    return false;
  }
  std::vector<std::string> glob(const std::string& pattern) const override {
    std::vector<std::string> out;
    for (const auto& [k, v] : f)
      if (::fnmatch(pattern.c_str(), k.c_str(), FNM_PATHNAME) == 0) out.push_back(k);
    return out;  // std::map: sorted
  }
  // Applies an edit's changes, as the host side would.
  void apply(const EngineEdit& e) {
    for (const FileChange& c : e.changes) {
      if (c.after) f[c.path] = *c.after;
      else f.erase(c.path);
    }
  }
};

// tests/fixtures/REL from the source tree, one copy of each sample engine file for the C++ tests
// and tests/engine/run-install-tests.sh; empty when missing (the tests then fail on content).
inline std::string install_fixture(const std::string& rel) {
  std::ifstream in(std::string(GNH_SOURCE_DIR) + "/tests/fixtures/" + rel);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// A GPU operator node's containerd config.toml (version 2): nvidia the default runtime, runc and
// nvidia both with SystemdCgroup = true, NVIDIA's runtime under /usr/local/nvidia/toolkit.
inline std::string gpu_operator_containerd_v2() { return install_fixture("containerd/gpu-operator-v2.toml"); }

}  // namespace gnh
