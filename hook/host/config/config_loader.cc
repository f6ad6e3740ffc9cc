#include "host/config/config_loader.h"

#include "base/error.h"

namespace gnh {

ConfigFile read_config_file(const HostFs& fs, const std::optional<std::string>& explicit_path) {
  if (explicit_path) {
    HostFs plain("/");  // an explicit --config is taken as given, not beneath --host-root
    auto text = plain.read(*explicit_path, 1024 * 1024);
    if (!text) fail("config " + *explicit_path + ": no such file");
    return {*explicit_path, std::move(text)};
  }
  auto text = fs.read(kDefaultConfigPath, 1024 * 1024);
  return {text ? fs.resolve(kDefaultConfigPath) : kDefaultConfigPath, std::move(text)};
}

Config load_config(const HostFs& fs, const std::optional<std::string>& explicit_path) {
  ConfigFile f = read_config_file(fs, explicit_path);
  if (!f.text) return Config{};
  return parse_config(*f.text, f.path);
}

}  // namespace gnh
