// Adding our prestart hook to a bundle's config.json, as the runtime shim does on `create`. Pure:
// config.json text in, config.json text out. Only the `hooks` member is rewritten (every other
// byte stays as the engine wrote it), and in it the order of keys and of the hooks already there
// survives (nlohmann::ordered_json): NVIDIA's hook, when present, stays first, so ours runs after
// its spec edits.
#pragma once

#include <string>
#include <string_view>

#include "hook_entry.h"

namespace gnh {

struct Registration {
  bool added = false;   // false: an entry for our hook was already there (idempotent create)
  std::string text;     // the new config.json (unchanged text when !added)
};

// `ours` is appended to hooks.prestart unless an entry with the same path, or whose path's
// basename is "gpu-numa-hook", is there already, at prestart or at createRuntime (CRI-O's hooks.d,
// the NRI plugin). oci::ParseError (or Failure) for text that is not
// a JSON object, or whose hooks / hooks.prestart have the wrong type: we never guess at a spec.
Registration add_prestart_hook(std::string_view config_json, const oci::HookEntry& ours);

// The entry the shim adds: `hook_path prestart`, a minimal explicit env and a timeout above the
// hook's own deadlines (docs/runtimes.md says why 60 s).
oci::HookEntry shim_hook_entry(const std::string& hook_path);

}  // namespace gnh
