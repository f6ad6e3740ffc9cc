#include "gpu/driver_root.h"

#include "base/toml_guard.h"

namespace gnh {

std::optional<std::string> nvidia_driver_root(std::string_view config_toml) {
  std::optional<toml::table> t;
  try {
    t = parse_toml_text(config_toml, "NVIDIA's config.toml");
  } catch (const std::exception&) {
    return std::nullopt;
  }
  const toml::table* cli = t->get_as<toml::table>("nvidia-container-cli");
  const toml::value<std::string>* root = cli ? cli->get_as<std::string>("root") : nullptr;
  if (!root) return std::nullopt;
  std::string p = root->get();
  if (p.empty() || p.front() != '/' || p.find('\0') != std::string::npos) return std::nullopt;
  // ".." could leave the root it names; a path NVIDIA's own parts would take never needs it
  if (("/" + p + "/").find("/../") != std::string::npos) return std::nullopt;
  while (p.size() > 1 && p.back() == '/') p.pop_back();
  return p;
}

}  // namespace gnh
