#include "install/nri_validator_config.h"

#include "install/nri_config.h"
#include "install/toml_text.h"

namespace gnh {

std::string nri_validator_unsupported(int major, int minor, const std::string& which) {
  if (major > 2 || (major == 2 && minor >= 2)) return "";
  return "--nri-require-for-gpu-pods needs containerd 2.2 or later (NRI's default validator, NRI 0.10); " + which +
         " has none, so GPU pods fail open there while the plugin is not registered: upgrade containerd to 2.2 or "
         "later to fail closed (docs/nri.md, \"Failing closed\")";
}

std::string containerd_nri_validator_dropin(std::string_view main_text, const std::string& file) {
  toml::table main = parse_toml_file(main_text, file);
  toml::table validator;
  validator.insert_or_assign("enable", true);
  toml::table nri;
  nri.insert_or_assign("default_validator", std::move(validator));
  toml::table plugins;
  plugins.insert_or_assign(kContainerdNriPlugin, std::move(nri));
  toml::table out;
  out.insert_or_assign("version", main["version"].value_or(2LL));
  out.insert_or_assign("plugins", std::move(plugins));
  return "# gpu-numa-hook install --runtime nri --nri-require-for-gpu-pods: NRI's default validator on, so\n"
         "# pods annotated required-plugins.noderesource.dev: [\"gpu-numa\"] fail while gpu-numa-nri is absent.\n"
         "# Nothing is required node-wide: pods without the annotation are not affected.\n" +
         emit_toml(out);
}

}  // namespace gnh
