// --nri-require-for-gpu-pods (install --runtime nri): our drop-in turning NRI's default validator
// on (install/nri_validator_config.h) and its line in the main file's imports; on uninstall both go,
// whether or not the flag is given, so that --uninstall leaves the files as they were.
#include <optional>
#include <string>

#include "base/error.h"
#include "cli/install/file_writer.h"
#include "cli/install/registrations.h"
#include "install/containerd_config.h"
#include "install/nri_validator_config.h"
#include "install/toml_text.h"

namespace gnh::install_cli {

bool install_nri_validator(const std::string& main, const InstallCommandOptions& o) {
  const std::string dropin = main.substr(0, main.rfind('/') + 1) + kContainerdNriValidatorDropin;
  const std::string created = "version = 2\nimports = [" + toml_quoted(kContainerdNriValidatorDropin) + "]\n";
  auto main_before = read_optional(main);
  auto dropin_before = read_optional(dropin);
  if (o.uninstall) {
    if (!dropin_before) return false;
    bool changed = apply(dropin, dropin_before, std::nullopt, o, false, true, true);
    if (main_before) {
      std::optional<std::string> after;  // the main file install created goes; else our line does
      if (*main_before != created) after = containerd_remove_import(*main_before, main, kContainerdNriValidatorDropin, true);
      changed = apply(main, main_before, after, o, true, !after) || changed;
    }
    return changed;
  }
  if (!o.nri_require_for_gpu_pods) return false;
  // install_nri refused containerd below 2.2 before anything was printed or written.
  bool changed = apply(dropin, dropin_before, containerd_nri_validator_dropin(main_before.value_or(""), main), o, false, true);
  bool imported = false;  // a re-run: the main file reads our drop-in already
  if (main_before) {
    const toml::table t = parse_toml_file(*main_before, main);  // outlives the array read from it
    if (const toml::array* a = t["imports"].as_array())
      for (const auto& e : *a) imported = imported || e.value<std::string>() == kContainerdNriValidatorDropin;
  }
  bool whole_line = false;
  const std::string main_after = !main_before ? created
                                 : imported   ? *main_before
                                              : containerd_add_import(*main_before, main, kContainerdNriValidatorDropin, &whole_line);
  return apply(main, main_before, main_after, o, false, !main_before) || changed;
}

}  // namespace gnh::install_cli
