#include "gpu/device_forms.h"

#include <algorithm>

#include "base/text.h"
#include "base/toml_guard.h"
#include "gpu/gpu_request.h"

namespace gnh {

namespace {

// NVIDIA's own test (internal/modifier/hook_remover.go): the program's name.
bool is_nvidia_legacy_hook(std::string_view path) {
  const std::string_view name = base_name(path);
  return name == "nvidia-container-runtime-hook" || name == "nvidia-container-toolkit";
}

bool reads_no_gpu_variable(const oci::Hook& h) {
  const std::string_view name = base_name(h.path);
  if (name == "gpu-numa-hook" || name == "nvidia-cdi-hook" || name == "nvidia-ctk") return true;
  return !h.args.empty() && h.args.front() == "libnetwork-setkey";  // Docker's, as /proc/<pid>/exe
}

// "-config X", "-config=X", "--config X", "--config=X" (Go's flag package takes all four).
std::optional<std::string> config_argument(const std::vector<std::string>& args) {
  for (size_t i = 1; i < args.size(); ++i) {
    std::string_view a = args[i];
    if (a.rfind("--", 0) == 0) a.remove_prefix(1);
    if (a == "-config" && i + 1 < args.size()) return args[i + 1];
    if (a.rfind("-config=", 0) == 0) return std::string(a.substr(8));
  }
  return std::nullopt;
}

bool privileged(const oci::Spec& spec) {
  return std::find(spec.bounding_capabilities.begin(), spec.bounding_capabilities.end(), "CAP_SYS_ADMIN") !=
         spec.bounding_capabilities.end();
}

bool has_mount_list(const oci::Spec& spec) {
  for (const auto& m : spec.mounts)
    if (m.destination.rfind(kDeviceMountDir, 0) == 0) return true;
  return false;
}

bool env_names_mount_folder(const oci::Spec& spec) {
  auto v = spec.env_value(kVisibleDevicesEnv);
  return v && names_device_mount_folder(*v);
}

}  // namespace

bool names_device_mount_folder(std::string_view value) {
  value = trim(value);
  if (!value.empty() && value.back() == '/') value.remove_suffix(1);
  std::string_view folder = kDeviceMountDir;
  folder.remove_suffix(1);  // its trailing '/'
  return value == folder;
}

std::optional<std::string> wrapper_config_path(std::string_view script) {
  if (script.rfind("#!", 0) != 0) return std::nullopt;
  constexpr std::string_view kKey = "NVIDIA_CTK_CONFIG_FILE_PATH=";
  size_t at = script.find(kKey);
  // The assignment starts a word: the start of a line, or after a blank.
  while (at != std::string_view::npos && at > 0 && script[at - 1] != '\n' && script[at - 1] != ' ' &&
         script[at - 1] != '\t')
    at = script.find(kKey, at + 1);
  if (at == std::string_view::npos) return std::nullopt;
  std::string_view v = script.substr(at + kKey.size());
  if (!v.empty() && (v.front() == '"' || v.front() == '\'')) {
    const char q = v.front();
    v.remove_prefix(1);
    v = v.substr(0, v.find(q));
  } else {
    v = v.substr(0, v.find_first_of(" \t\n\\;"));
  }
  // Only a plain absolute path: a shell expansion or a relative one could be anything.
  if (v.empty() || v.front() != '/' || v.find_first_of("$`") != std::string_view::npos) return std::nullopt;
  return std::string(v);
}

NvidiaConfigLocation nvidia_config_location(const VisibleDevicesReader& reader,
                                            std::optional<std::string_view> hook_text) {
  if (reader.config) return {*reader.config, true};
  if (hook_text)
    if (auto p = wrapper_config_path(*hook_text)) return {std::move(*p), true};
  return {kNvidiaConfigPath, false};
}

DeviceForms every_device_form() { return {true, true, ""}; }

VisibleDevicesReader visible_devices_reader(const oci::Spec& spec, std::string_view next_hook) {
  VisibleDevicesReader r;
  auto consider = [&](std::string_view path, const std::vector<std::string>& args) {
    if (is_nvidia_legacy_hook(path)) {
      if (r.kind != VisibleDevicesReader::Kind::nvidia_hook) r = {VisibleDevicesReader::Kind::nvidia_hook, std::string(path), config_argument(args)};
    } else if (r.kind == VisibleDevicesReader::Kind::none) {
      r = {VisibleDevicesReader::Kind::unknown_hook, std::string(path), std::nullopt};
    }
  };
  for (const oci::Hook& h : spec.hooks)
    if (!reads_no_gpu_variable(h)) consider(h.path, h.args);
  if (!next_hook.empty()) consider(next_hook, {});
  return r;
}

std::optional<NvidiaHookSettings> nvidia_hook_settings(std::string_view text) {
  std::optional<toml::table> t;
  try {
    t = parse_toml_text(text, kNvidiaConfigPath);
  } catch (const std::exception&) {
    return std::nullopt;
  }
  NvidiaHookSettings s;
  auto flag = [&](const char* key, bool* out) {
    const toml::node* n = t->get(key);
    if (!n) return true;
    if (!n->is_boolean()) return false;
    *out = n->as_boolean()->get();
    return true;
  };
  if (!flag("accept-nvidia-visible-devices-envvar-when-unprivileged", &s.accept_env_unprivileged) ||
      !flag("accept-nvidia-visible-devices-as-volume-mounts", &s.accept_volume_mounts))
    return std::nullopt;
  return s;
}

DeviceForms device_forms(const oci::Spec& spec, const VisibleDevicesReader& reader,
                         const std::optional<NvidiaHookSettings>& settings) {
  using Kind = VisibleDevicesReader::Kind;
  if (reader.kind == Kind::none)
    return {false, false,
            "no hook in the spec reads NVIDIA_VISIBLE_DEVICES (NVIDIA's legacy hook would): the CDI modes and "
            "CDI-only nodes give a GPU as linux.devices"};
  if (reader.kind == Kind::unknown_hook || !settings)
    return {true, true,
            reader.kind == Kind::unknown_hook ? "hook " + reader.path + " may read NVIDIA_VISIBLE_DEVICES"
                                              : "NVIDIA's hook " + reader.path + " reads NVIDIA_VISIBLE_DEVICES (its settings unknown)"};
  DeviceForms f;
  // The variable naming the mount folder counts the mounts even where the settings say no: it is
  // what the volume-mounts strategy sets, and settings read wrongly must not lose the GPU.
  const bool folder_named = !settings->accept_volume_mounts && env_names_mount_folder(spec);
  f.mounts = settings->accept_volume_mounts || folder_named;
  f.env = !(f.mounts && has_mount_list(spec)) && (settings->accept_env_unprivileged || privileged(spec));
  f.why = "NVIDIA's hook " + reader.path + (f.env ? " reads NVIDIA_VISIBLE_DEVICES" : " ignores NVIDIA_VISIBLE_DEVICES") +
          (f.env || !f.mounts || !has_mount_list(spec) ? "" : " (it uses the volume-mount list)") +
          (!f.env && !settings->accept_env_unprivileged && !privileged(spec)
               ? " from an unprivileged container (accept-nvidia-visible-devices-envvar-when-unprivileged = false)"
               : "") +
          (folder_named ? "; NVIDIA_VISIBLE_DEVICES names the volume-mount folder, so its mounts count" : "") +
          (settings->source.empty() ? "" : " (settings: " + settings->source + ")");
  return f;
}

}  // namespace gnh
