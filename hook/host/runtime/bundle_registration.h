// The runtime shim's edit of a bundle on `create`: read config.json, add our prestart hook (pure:
// runtime/prestart_registration.h), and replace the file atomically (temp file in the bundle,
// rename; not flushed, see host/fs/atomic_file.h), keeping its mode. On any failure config.json is untouched.
#pragma once

#include <string>

namespace gnh {

// true when the hook was added, false when it was there already. Failure naming the file.
bool register_hook_in_bundle(const std::string& bundle, const std::string& hook_path);

}  // namespace gnh
