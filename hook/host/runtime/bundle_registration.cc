#include "host/runtime/bundle_registration.h"

#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>

#include "base/error.h"
#include "host/fs/atomic_file.h"
#include "host/fs/host_fs.h"
#include "host/oci/spec_reader.h"
#include "runtime/prestart_registration.h"
#include "runtime/shim_decision.h"

namespace gnh {

BundleRegistration register_hook_in_bundle(const std::string& bundle, const std::string& hook_path,
                                           const std::string& next_runtime, const std::string& next_hook) {
  const std::string file = bundle + "/config.json";
  // An engine writes config.json as a regular file; a link could make us read and replace a file
  // elsewhere (the rename would also turn the link into a file). Refuse before reading anything.
  struct stat lst {};
  if (::lstat(file.c_str(), &lst) == 0 && S_ISLNK(lst.st_mode))
    fail(file + " is a symbolic link; a bundle's config.json is never one: refusing to follow it (nothing changed)", ELOOP);
  HostFs fs("/");
  std::optional<std::string> text;
  try {
    text = fs.read(file, kMaxSpecBytes);
  } catch (const Error& e) {
    fail(std::string(e.what()), e.error_number());
  }
  if (!text) fail(file + ": no such file", ENOENT);
  if (ShimDecision d = decide_shim_registration(*text, next_runtime, next_hook); !d.register_hook)
    return {BundleRegistration::not_needed, d.names};
  Registration r;
  try {
    r = add_prestart_hook(*text, shim_hook_entry(hook_path));
  } catch (const Error& e) {
    fail(file + ": " + e.what(), e.error_number());
  }
  if (!r.added) return {BundleRegistration::present, {}};
  struct stat st {};
  const bool known = ::stat(file.c_str(), &st) == 0;
  // Replaced atomically for the runtime that reads it next; not flushed: a bundle does not outlive
  // the boot (engines recreate it), and the fsync was most of the shim's cost on a disk.
  write_file_atomically(file, r.text, known ? (st.st_mode & 07777) : 0644, Durability::replaced);
  // Keep the owner too: an engine that runs the runtime as root may still hand the bundle to a
  // user (rootless tooling reads it back).
  if (known && (st.st_uid != ::geteuid() || st.st_gid != ::getegid()) && ::chown(file.c_str(), st.st_uid, st.st_gid) != 0)
    fail_errno("cannot give " + file + " back to its owner " + std::to_string(st.st_uid), errno);
  return {BundleRegistration::added, {}};
}

}  // namespace gnh
