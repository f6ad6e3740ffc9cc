#include "host/config_loader.h"

#include "base/error.h"

namespace gnh {

Config load_config(const HostFs& fs, const std::optional<std::string>& explicit_path) {
  if (explicit_path) {
    HostFs plain("/");  // an explicit --config is taken as given, not beneath --host-root
    auto text = plain.read(*explicit_path, 1024 * 1024);
    if (!text) fail("config " + *explicit_path + ": no such file");
    return parse_config(*text, *explicit_path);
  }
  auto text = fs.read(kDefaultConfigPath, 1024 * 1024);
  if (!text) return Config{};
  return parse_config(*text, fs.resolve(kDefaultConfigPath));
}

}  // namespace gnh
