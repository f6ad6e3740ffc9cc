// For the engines' unit tests: files in a map, read through ConfigReader as the host side reads them.
#pragma once

#include <fnmatch.h>

#include <map>
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

}  // namespace gnh
