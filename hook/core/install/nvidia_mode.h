// NVIDIA's runtime mode ([nvidia-container-runtime] mode in its config.toml) and whether
// nvidia-container-runtime, in that mode, ever runs the hook named by [nvidia-container-runtime-hook]
// path: only "legacy" does. "auto" (NVIDIA's default, toolkit 1.18 and later) resolves to jit-cdi,
// or cdi when every request is a CDI name; the CDI modes (and csv) add no prestart hook and remove
// one named nvidia-container-runtime-hook. A registration there would say "protected" and never run.
#pragma once

#include <string>
#include <string_view>

namespace gnh {

struct NvidiaMode {
  std::string mode;  // the effective mode: the key's value, "auto" when the key is absent
  bool set = false;  // whether the file sets the key (else NVIDIA's default applies)
};

// The mode `text` (nvidia-container-runtime's config.toml; "" = no file, NVIDIA's defaults)
// gives. Throws gnh::Error naming the file when it does not parse.
NvidiaMode nvidia_runtime_mode(std::string_view text, const std::string& file);

// "" when nvidia-container-runtime runs our hook in this mode (legacy). Otherwise one line: the
// mode found in `file`, that it never runs the hook, and what to do instead.
std::string nvidia_mode_never_runs_hook(const NvidiaMode& m, const std::string& file);

}  // namespace gnh
