// The runtime shim's edit of a bundle on `create`: read config.json, decide whether the container
// needs the hook (pure: runtime/shim_decision.h), add our prestart hook (pure:
// runtime/prestart_registration.h), and replace the file atomically (temp file in the bundle,
// rename; not flushed, see host/fs/atomic_file.h), keeping its mode. On any failure config.json is untouched.
#pragma once

#include <string>

#include "report/container_names.h"

namespace gnh {

struct BundleRegistration {
  enum Outcome {
    added,
    present,     // an entry of ours was there already (idempotent create)
    not_needed,  // no GPU possible and the next runtime adds none: config.json untouched
  } outcome = added;
  ContainerNames names;  // for not_needed: who the container is, for the log line
};

// next_runtime: the path the shim execs next; next_hook: our [chain] next-hook. Failure naming the file.
BundleRegistration register_hook_in_bundle(const std::string& bundle, const std::string& hook_path,
                                           const std::string& next_runtime, const std::string& next_hook);

}  // namespace gnh
