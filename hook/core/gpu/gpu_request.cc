#include "gpu/gpu_request.h"

#include <algorithm>
#include <charconv>
#include <optional>

#include "gpu/driver_files.h"
#include "base/text.h"

namespace gnh {

namespace {

bool starts_with_ci(std::string_view s, std::string_view prefix) {
  if (s.size() < prefix.size()) return false;
  for (size_t i = 0; i < prefix.size(); ++i)
    if (std::tolower(static_cast<unsigned char>(s[i])) != std::tolower(static_cast<unsigned char>(prefix[i])))
      return false;
  return true;
}

bool parse_index(std::string_view s, size_t* out) {
  if (s.empty() || s.size() > 6) return false;
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), *out);
  return ec == std::errc() && p == s.data() + s.size();
}

template <typename F>
void for_each_item(std::string_view list, F f) {
  while (true) {
    size_t comma = list.find(',');
    std::string_view item = trim(list.substr(0, comma));
    if (!item.empty()) f(item);
    if (comma == std::string_view::npos) break;
    list.remove_prefix(comma + 1);
  }
}

void add_all(const Inventory& inv, std::vector<size_t>* out) {
  for (size_t i = 0; i < inv.gpus.size(); ++i) out->push_back(i);
}

// The toolkit's NVIDIA_VISIBLE_DEVICES reading: unset means no GPU unless the image is a legacy
// CUDA image (CUDA_VERSION set, NVIDIA_REQUIRE_CUDA unset), which gets all GPUs.
// nullopt also where nothing reads the variable (gpu/device_forms.h).
std::optional<std::string> visible_devices(const oci::Spec& spec, const DeviceForms& forms) {
  if (!forms.env) return std::nullopt;
  auto v = spec.env_value(kVisibleDevicesEnv);
  if (v) return v;
  if (spec.env_value("CUDA_VERSION") && !spec.env_value("NVIDIA_REQUIRE_CUDA")) return std::string("all");
  return std::nullopt;
}

// "u" (unbuffered character device) is a character device to runc and crun alike.
bool is_gpu_device(const oci::LinuxDevice& d) {
  return (d.type == "c" || d.type == "u") && d.major == kNvidiaMajor && d.minor >= 0 && d.minor < kNvidiaModesetMinor;
}

bool is_mig_capability_device(const oci::LinuxDevice& d) {
  return d.type == "c" && d.minor >= 0 && d.minor <= 0xfffff && d.path.rfind(kMigCapabilityDevicePrefix, 0) == 0;
}

bool is_index_pair(std::string_view ref) {
  size_t colon = ref.find(':');
  size_t a = 0, b = 0;
  return colon != std::string_view::npos && ref.find('.') == std::string_view::npos &&
         parse_index(ref.substr(0, colon), &a) && parse_index(ref.substr(colon + 1), &b);
}

}  // namespace

bool is_mig_reference(std::string_view ref) {
  ref = trim(ref);
  return starts_with_ci(ref, "MIG-") || is_index_pair(ref);
}

bool resolve_device_reference(std::string_view ref, const Inventory& inv, std::vector<size_t>* out) {
  ref = trim(ref);
  if (ref == "all") { add_all(inv, out); return !inv.gpus.empty(); }
  size_t index = 0;
  if (parse_index(ref, &index)) {
    if (index >= inv.gpus.size()) return false;
    out->push_back(index);
    return true;
  }
  // "<gpu>:<mig>": a MIG device by indices belongs to its parent GPU.
  if (size_t colon = ref.find(':'); colon != std::string_view::npos && ref.find('.') == std::string_view::npos) {
    size_t mig = 0;
    if (parse_index(ref.substr(0, colon), &index) && parse_index(ref.substr(colon + 1), &mig)) {
      if (index >= inv.gpus.size()) return false;
      out->push_back(index);
      return true;
    }
  }
  if (starts_with_ci(ref, "GPU-")) {
    for (size_t i = 0; i < inv.gpus.size(); ++i)
      if (inv.gpus[i].uuid.size() == ref.size() && starts_with_ci(inv.gpus[i].uuid, ref)) {
        out->push_back(i);
        return true;
      }
    return false;
  }
  if (auto bus = canonical_pci_address(ref)) {
    for (size_t i = 0; i < inv.gpus.size(); ++i)
      if (inv.gpus[i].bus_id == *bus) { out->push_back(i); return true; }
    return false;
  }
  // MIG-<uuid> needs NVML to find its parent; procfs does not name MIG UUIDs. Unresolved here;
  // the pipeline resolves it with the NVML cache (gpu/mig_devices.h).
  return false;
}

bool may_request_gpus(const oci::Spec& spec, const DeviceForms& forms) {
  for (const auto& d : spec.devices)
    if (is_gpu_device(d)) return true;
  if (auto v = visible_devices(spec, forms); v && !v->empty() && *v != "void" && *v != "none") return true;
  if (forms.mounts)
    for (const auto& m : spec.mounts)
      if (m.destination.rfind(kDeviceMountDir, 0) == 0) return true;
  for (const auto& [key, value] : spec.annotations)
    if (key.rfind(kCdiAnnotationPrefix, 0) == 0 && value.find(kCdiGpuKind) != std::string::npos) return true;
  return false;
}

GpuRequest resolve_gpu_request(const oci::Spec& spec, const Inventory& inv, const DeviceForms& forms) {
  GpuRequest req;
  std::vector<size_t> found;
  auto resolve = [&](std::string_view ref) {
    size_t before = found.size();
    bool mig = is_mig_reference(ref);
    // Bounded: each is looked up in the NVML cache; no host has more (64 GPUs x 7 instances).
    if (mig && req.mig_references.size() < kMaxMigReferences) req.mig_references.emplace_back(trim(ref));
    if (!resolve_device_reference(ref, inv, &found)) req.unresolved.emplace_back(ref);
    else if (!mig) req.whole.insert(req.whole.end(), found.begin() + static_cast<long>(before), found.end());
  };

  bool from_devices = false;
  for (const auto& d : spec.devices) {
    if (is_mig_capability_device(d) && req.mig_capability_minors.size() < kMaxMigReferences)
      req.mig_capability_minors.push_back(static_cast<unsigned>(d.minor));
    if (!is_gpu_device(d)) continue;
    from_devices = true;
    auto it = std::find_if(inv.gpus.begin(), inv.gpus.end(),
                           [&](const Gpu& g) { return g.minor == static_cast<unsigned>(d.minor); });
    if (it != inv.gpus.end()) found.push_back(static_cast<size_t>(it - inv.gpus.begin()));
    else req.unresolved.push_back(d.path + " (195:" + std::to_string(d.minor) + ")");
  }
  if (from_devices) req.sources.push_back("linux.devices");

  if (auto v = visible_devices(spec, forms); v && !v->empty() && *v != "void" && *v != "none") {
    req.sources.push_back(std::string(kVisibleDevicesEnv) + "=" + *v);
    // The volume-mount folder names no GPU: the mounts below do (gpu/device_forms.h).
    if (!names_device_mount_folder(*v)) for_each_item(*v, resolve);
  }

  bool from_mounts = false;
  for (const auto& m : spec.mounts) {
    if (!forms.mounts || m.destination.rfind(kDeviceMountDir, 0) != 0) continue;
    from_mounts = true;
    resolve(std::string_view(m.destination).substr(std::string_view(kDeviceMountDir).size()));
  }
  if (from_mounts) req.sources.push_back("volume-mounts");

  for (const auto& [key, value] : spec.annotations) {
    if (key.rfind(kCdiAnnotationPrefix, 0) != 0) continue;
    bool any = false;
    for_each_item(value, [&](std::string_view name) {
      if (name.rfind(kCdiGpuKind, 0) != 0) return;  // other vendors' and kinds' devices
      any = true;
      resolve(name.substr(std::string_view(kCdiGpuKind).size()));
    });
    if (any) req.sources.push_back("cdi:" + key);
  }

  std::sort(found.begin(), found.end());
  found.erase(std::unique(found.begin(), found.end()), found.end());
  req.gpus = std::move(found);
  std::sort(req.whole.begin(), req.whole.end());
  req.whole.erase(std::unique(req.whole.begin(), req.whole.end()), req.whole.end());
  std::sort(req.mig_capability_minors.begin(), req.mig_capability_minors.end());
  req.mig_capability_minors.erase(std::unique(req.mig_capability_minors.begin(), req.mig_capability_minors.end()),
                                  req.mig_capability_minors.end());
  return req;
}

IdentitiesFound::IdentitiesFound(const IdentitiesWanted& want) : minors_(want.minors), uuids_(want.uuids) {
  std::sort(minors_.begin(), minors_.end());
  minors_.erase(std::unique(minors_.begin(), minors_.end()), minors_.end());
}

bool IdentitiesFound::add(const Gpu& g) {
  auto m = std::lower_bound(minors_.begin(), minors_.end(), g.minor);
  if (m != minors_.end() && *m == g.minor) minors_.erase(m);
  uuids_.erase(std::remove_if(uuids_.begin(), uuids_.end(),
                              [&](const std::string& u) { return g.uuid.size() == u.size() && starts_with_ci(g.uuid, u); }),
               uuids_.end());
  return minors_.empty() && uuids_.empty();
}

std::optional<IdentitiesWanted> identities_wanted(const oci::Spec& spec, const DeviceForms& forms) {
  IdentitiesWanted want;
  bool every = false;
  // The references resolve_gpu_request reads, in its order; only GPU-<uuid> is found by identity.
  auto name = [&](std::string_view ref) {
    if (starts_with_ci(ref, "GPU-") && !is_mig_reference(ref)) want.uuids.emplace_back(trim(ref));
    else every = true;
  };
  for (const auto& d : spec.devices)
    if (is_gpu_device(d)) want.minors.push_back(static_cast<unsigned>(d.minor));
  if (auto v = visible_devices(spec, forms); v && !v->empty() && *v != "void" && *v != "none" && !names_device_mount_folder(*v))
    for_each_item(*v, name);
  for (const auto& m : spec.mounts)
    if (forms.mounts && m.destination.rfind(kDeviceMountDir, 0) == 0)
      name(std::string_view(m.destination).substr(std::string_view(kDeviceMountDir).size()));
  for (const auto& [key, value] : spec.annotations) {
    if (key.rfind(kCdiAnnotationPrefix, 0) != 0) continue;
    for_each_item(value, [&](std::string_view cdi) {
      if (cdi.rfind(kCdiGpuKind, 0) == 0) name(cdi.substr(std::string_view(kCdiGpuKind).size()));
    });
  }
  if (every || (want.minors.empty() && want.uuids.empty())) return std::nullopt;
  return want;
}

}  // namespace gnh
