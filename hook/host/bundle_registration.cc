#include "host/bundle_registration.h"

#include <sys/stat.h>

#include <cerrno>

#include "base/error.h"
#include "host/atomic_file.h"
#include "host/host_fs.h"
#include "host/spec_reader.h"
#include "runtime/prestart_registration.h"

namespace gnh {

bool register_hook_in_bundle(const std::string& bundle, const std::string& hook_path) {
  const std::string file = bundle + "/config.json";
  HostFs fs("/");
  std::optional<std::string> text;
  try {
    text = fs.read(file, kMaxSpecBytes);
  } catch (const Error& e) {
    fail(std::string(e.what()), e.error_number());
  }
  if (!text) fail(file + ": no such file", ENOENT);
  Registration r;
  try {
    r = add_prestart_hook(*text, shim_hook_entry(hook_path));
  } catch (const Error& e) {
    fail(file + ": " + e.what(), e.error_number());
  }
  if (!r.added) return false;
  struct stat st {};
  unsigned mode = ::stat(file.c_str(), &st) == 0 ? (st.st_mode & 07777) : 0644;
  write_file_atomically(file, r.text, mode);
  return true;
}

}  // namespace gnh
