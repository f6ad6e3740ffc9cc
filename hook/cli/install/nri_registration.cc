#include "cli/install/registrations.h"

#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <exception>
#include <optional>
#include <string>

#include "base/error.h"
#include "base/exit_code.h"
#include "cli/install/file_writer.h"
#include "cli/install/install_paths.h"
#include "cli/install/install_record.h"
#include "host/install/engine_files.h"
#include "install/nri_config.h"
#include "install/nri_validator_config.h"
#include "install/toml_text.h"

namespace gnh::install_cli {

int install_nri(const GlobalOptions& g, const InstallCommandOptions& given) {
  InstallCommandOptions o = given;
  Recorded rec(g, o.runtime);
  if (o.uninstall && rec.earlier && !rec.earlier->plugin_dir.empty()) {
    o.nri_pre_registered = true;
    o.nri_plugin_dir = rec.earlier->plugin_dir;
  }
  InstallRecord record;
  record.config = o.runtime_config.value_or(default_config_of(o.runtime == "nri" ? "containerd" : "crio-runtime"));
  record.plugin_dir = o.nri_pre_registered ? o.nri_plugin_dir : rec.earlier ? rec.earlier->plugin_dir : "";
  bool changed = false;
  std::string restart = "nothing to restart";
  if (o.nri_require_for_gpu_pods && o.runtime != "nri") fail("--nri-require-for-gpu-pods applies to --runtime nri (containerd) only");
  if (o.runtime == "nri") {
    const std::string main = g_root.machine(record.config);
    const std::string dropin = main.substr(0, main.rfind('/') + 1) + kContainerdNriDropin;
    const ContainerdRelease release = containerd_release_of(o);
    const std::string which = release.major ? "containerd " + std::to_string(release.major) + "." +
                                                  std::to_string(release.minor) + " (" + release.source + ")"
                                            : "containerd of unknown release (no `containerd --version`; taken as 1.x)";
    if (o.nri_require_for_gpu_pods && !o.uninstall)
      if (const std::string why = nri_validator_unsupported(release.major, release.minor, which); !why.empty()) fail(why);
    auto main_before = read_optional(main);
    auto dropin_before = read_optional(dropin);
    if (o.uninstall) {
      if (dropin_before) {
        changed = apply(dropin, dropin_before, std::nullopt, o, false, true, true);
        if (main_before) {
          // The main file install created (only our imports line in it) goes; else our line does.
          const std::string created = "version = 2\nimports = [" + toml_quoted(kContainerdNriDropin) + "]\n";
          std::optional<std::string> after;
          if (!(rec.earlier && rec.earlier->created_config && *main_before == created))
            after = containerd_remove_import(*main_before, main, kContainerdNriDropin, true);
          changed = apply(main, main_before, after, o, true, !after) || changed;
        }
        restart = "restart containerd once to apply: systemctl restart containerd (NRI goes back to " +
                  std::string(release.major >= 2 ? "on, containerd 2's default" : "off, containerd 1.x's default") + ")";
      }
    } else if (containerd_nri_enabled(main_before.value_or(""), main, release.major) && !dropin_before) {
      std::printf("unchanged: %s (NRI is on with %s: nothing of containerd's to change, no restart)\n", main.c_str(),
                  which.c_str());
    } else {
      bool imported = false;  // a re-run: the main file reads our drop-in already
      if (main_before) {
        const toml::table t = parse_toml_file(*main_before, main);
        if (const toml::array* a = t["imports"].as_array())
          for (const auto& e : *a) imported = imported || e.value<std::string>() == kContainerdNriDropin;
      }
      record.created_config = rec.earlier ? rec.earlier->created_config : !main_before;
      record.import_added = kContainerdNriDropin;
      rec.before_writing(o, record);
      changed = apply(dropin, dropin_before, containerd_nri_dropin(main_before.value_or(""), main), o, false, true);
      bool whole_line = false;
      std::string main_after = !main_before ? "version = 2\nimports = [" + toml_quoted(kContainerdNriDropin) + "]\n"
                               : imported   ? *main_before
                                            : containerd_add_import(*main_before, main, kContainerdNriDropin, &whole_line);
      changed = apply(main, main_before, main_after, o, false, !main_before) || changed;
      if (changed)
        restart = "restart containerd once to turn NRI on (" + which +
                " has it off): systemctl restart containerd; afterwards the plugin connects at any time, no further restart";
    }
    // Recorded even where NRI itself needed nothing (containerd 2.x): uninstall --all must find it.
    if (o.nri_require_for_gpu_pods) rec.before_writing(o, record);
    if (install_nri_validator(main, o)) {
      changed = true;
      restart = o.uninstall ? "restart containerd once to apply: systemctl restart containerd (NRI's default validator goes "
                              "back to off: GPU pods fail open again while the plugin is absent)"
                            : "restart containerd once to turn NRI's default validator on: systemctl restart containerd; "
                              "afterwards pods annotated required-plugins.noderesource.dev: [\"gpu-numa\"] are refused while "
                              "the plugin is not registered";
    }
  } else {
    const std::string dir = g_root.machine(record.config);
    const std::string path = dir + "/" + kCrioNriDropin;
    auto before = read_optional(path);
    std::optional<std::string> after;
    if (!o.uninstall) after = crio_nri_dropin();
    else if (before && *before != crio_nri_dropin()) after = before;  // not ours any more: left alone
    rec.before_writing(o, record);
    changed = apply(path, before, after, o, false, true, true);
    restart = "restart CRI-O once to apply: systemctl restart crio (CRI-O 1.30 and later have NRI on already)";
  }
  if (o.nri_pre_registered) {
    rec.before_writing(o, record);
    const std::string path = g_root.machine(o.nri_plugin_dir) + "/" + kNriPreregisteredName;
    auto before = read_optional(path);
    std::optional<std::string> after;
    // containerd's own NRI socket, for the plugin to dial if its connection drops; set in the main
    // file or in any file it imports. A file that is not TOML: the plugin keeps the default.
    std::string socket;
    if (o.runtime == "nri") {
      try {
        socket = containerd_nri_socket(g_root.machine(record.config), HostConfigReader(), g_root.dir);
      } catch (const std::exception&) {
      }
    }
    if (!o.uninstall) after = nri_preregistered_script(o.nri_plugin_path, o.hook_path, socket);
    bool plugin_changed = apply(path, before, after, o, false, true, true);
    if (plugin_changed && !o.dry_run && after && ::chmod(path.c_str(), 0755) != 0) fail_errno("cannot chmod " + path, errno);
    if (plugin_changed && restart == "nothing to restart")
      restart = "the runtime starts " + g_root.host(path) + " at its next start (restart it once to start the plugin now)";
    changed = plugin_changed || changed;
  }
  rec.after_writing(o);
  if (o.dry_run) std::printf("dry run: nothing written\n");
  if (!changed) std::printf("nothing to do: %s\n", o.uninstall ? "not installed" : "already installed");
  else if (!o.dry_run) std::printf("%s\n", restart.c_str());
  std::printf("the plugin: run gpu-numa-nri (a DaemonSet: examples/kubernetes/nri-daemonset.yaml, or a service); "
              "`gpu-numa-hook check` reports it when it is not connected\n");
  return as_int(ExitCode::ok);
}

}  // namespace gnh::install_cli
