// The GPU identity cache: each GPU's identity (minor, UUID, bus id, model) as its information file
// gave it, kept beside the id of that GPU's binding to the driver. The driver builds the file by
// asking the GPU (about 0.17 ms on an H100), and a start that needs every GPU's minor and UUID
// ("all", an index) read all of them: over a millisecond on an 8-GPU node. A minor is given when
// the driver binds the GPU and kept until it unbinds; every bind makes a new
// /sys/bus/pci/drivers/nvidia/<bus> link, whose inode number (a kernfs id, never reused while the
// system runs) is the binding's id. So a cached identity is the driver's answer for as long as
// that link's inode is the one recorded, and the cache as a whole for as long as the boot is. Written by `topology --refresh`, read by the hook; parsed as if
// hostile: strict lines, bounded sizes. Pure.
// The identity is kept parsed, not the file's text: a start given all 64 GPUs of a node parsed 64
// texts again, and loading them cost more than the driver's plain files it replaced.
// The driver prints a GPU's "GPU UUID" line only once the GPU is initialised, and the binding
// does not change then: a file read before would stand for the whole boot and hide the GPU from a
// request by UUID. So only a file with a well-formed UUID is kept.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace gnh {

// What a start needs of a GPU's information file.
struct GpuIdentity {
  std::string dir;       // the GPU's directory in /proc/driver/nvidia/gpus ("0004:04:00.0")
  unsigned minor = 0;    // /dev/nvidia<minor>
  std::string uuid;      // "GPU-..."; may be empty outside the cache
  std::string bus_id;    // canonical (lower case, with domain): Bus Location, else the directory
  std::string model;     // printable ASCII, at most kMaxModelBytes
};

// The identity in the file's text; nullopt (with *why) when the file does not parse
// (gpu/driver_files.h). A model with other bytes has them as '?', cut to kMaxModelBytes: it is for
// messages and a fallback test of the GPU's kind only.
std::optional<GpuIdentity> gpu_identity(std::string_view dir, std::string_view information, std::string* why = nullptr);

struct CachedIdentity {
  GpuIdentity identity;  // with a well-formed UUID
  uint64_t binding = 0;  // inode number of /sys/bus/pci/drivers/nvidia/<bus> when it was read
};

struct IdentityCache {
  std::string boot_id;  // /proc/sys/kernel/random/boot_id when it was written
  std::vector<CachedIdentity> gpus;  // in dir order when parsed (the text is written so)
  const CachedIdentity* find(std::string_view dir) const;
};

// "GPU-" and 32 hex digits as 8-4-4-4-12, the form the driver prints once the GPU is initialised.
bool is_gpu_uuid(std::string_view text);

// "gpu-numa-hook gpu-identities 2\nboot-id <id>\n", then per GPU in directory order
// "gpu <dir> <binding> <minor> <uuid> <bus-id> <model>\n", the model being the rest of the line.
std::string identity_cache_text(const IdentityCache& cache);
// nullopt with *why set when the text is not a cache of this format.
std::optional<IdentityCache> parse_identity_cache(std::string_view text, std::string* why = nullptr);

constexpr const char* kIdentityCachePath = "/run/gpu-numa-hook/gpu-identities";
constexpr size_t kMaxIdentityCacheBytes = 64 * 1024;  // 64 records of at most about 400 bytes
constexpr size_t kMaxCachedIdentities = 64;
constexpr size_t kMaxCachedInformationBytes = 16 * 1024;  // read limit; a real file is 300 to 600 bytes
constexpr size_t kMaxModelBytes = 96;                     // "NVIDIA GH200 480GB" and the like

}  // namespace gnh
