// The GPU identity cache: each GPU's information file as the driver gave it, kept beside the id of
// that GPU's binding to the driver. The driver builds the file by asking the GPU (about 0.17 ms on
// an H100), and a start that needs every GPU's minor and UUID ("all", an index) read all of them:
// over a millisecond on an 8-GPU node. A minor is given when the driver binds the GPU and kept until
// it unbinds; every bind makes a new /sys/bus/pci/devices/<bus>/driver link, whose inode number
// (a kernfs id, never reused while the system runs) is the binding's id. So a cached file is the
// driver's answer for as long as that link's inode is the one recorded, and the cache as a whole
// for as long as the boot is. Written by `topology --refresh`, read by the hook; parsed as if
// hostile: strict lines, bounded sizes. Pure.
// The driver prints a GPU's "GPU UUID" line only once the GPU is initialised, and the binding
// does not change then: a file read before would stand for the whole boot and hide the GPU from a
// request by UUID. So only a file with a well-formed UUID is kept, and one without is never taken
// from the cache (a cache an older version wrote may hold one).
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace gnh {

struct CachedInformation {
  std::string dir;          // the GPU's directory in /proc/driver/nvidia/gpus ("0004:04:00.0")
  uint64_t binding = 0;     // inode number of /sys/bus/pci/devices/<bus>/driver when it was read
  std::string information;  // the information file's text, as read
};

struct IdentityCache {
  std::string boot_id;  // /proc/sys/kernel/random/boot_id when it was written
  std::vector<CachedInformation> gpus;  // sorted by dir (parse_identity_cache sorts them)
  const CachedInformation* find(std::string_view dir) const;
};

// "GPU-" and 32 hex digits as 8-4-4-4-12, the form the driver prints once the GPU is initialised.
bool is_gpu_uuid(std::string_view text);

// Whether an information file may be kept in, or taken from, the cache: it parses
// (gpu/driver_files.h) and names the GPU's UUID (is_gpu_uuid).
bool cacheable_information(std::string_view information);

// "gpu-numa-hook gpu-identities 1\nboot-id <id>\n", then per GPU "gpu <dir> <binding> <bytes>\n",
// the file's bytes and "\n".
std::string identity_cache_text(const IdentityCache& cache);
// nullopt with *why set when the text is not a cache of this format.
std::optional<IdentityCache> parse_identity_cache(std::string_view text, std::string* why = nullptr);

constexpr const char* kIdentityCachePath = "/run/gpu-numa-hook/gpu-identities";
constexpr size_t kMaxIdentityCacheBytes = 256 * 1024;
constexpr size_t kMaxCachedIdentities = 64;
constexpr size_t kMaxCachedInformationBytes = 16 * 1024;  // a real file is 300 to 600 bytes

}  // namespace gnh
