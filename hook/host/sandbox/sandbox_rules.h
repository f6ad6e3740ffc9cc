// The seccomp allow-list of hook mode, in one place. It is compiled to a BPF program once, at
// build time (sandbox_filter_gen.cc writes the generated sandbox_filter.inc that sandbox.cc
// installs with seccomp(2)); the sandbox test builds it again with libseccomp at test time and
// proves the installed program identical, byte for byte. libseccomp is therefore a build-time
// dependency only: the hook binary does not link it (docs/internals/sandbox.md, docs/internals/benchmarks.md).
#pragma once

#include <seccomp.h>

#include <cstdint>
#include <string>
#include <vector>

namespace gnh {

// The one rule that depends on the process: tgkill(2) only on our own pid (abort()). The
// generated program holds this placeholder in that comparison's operand; sandbox.cc writes the
// real pid there before installing it. pid_max is at most 2^22, so no pid can equal it.
constexpr uint32_t kSandboxPidPlaceholder = 0x7eadbeef;

// A libseccomp context holding the whole filter: default action EPERM, every rule of the
// allow-list, tgkill on `tgkill_pid`. `leak_sanitizer`: the extra rules an AddressSanitizer test
// build needs (LeakSanitizer's end-of-run scan). Returns "" or the error; on success *out is the
// context (seccomp_release it).
std::string build_sandbox_filter(uint32_t tgkill_pid, bool leak_sanitizer, scmp_filter_ctx* out);

// The BPF program libseccomp generates for that filter (seccomp_export_bpf): an array of
// struct sock_filter, as bytes. Returns "" or the error.
std::string export_libseccomp_filter(uint32_t tgkill_pid, bool leak_sanitizer, std::vector<unsigned char>* bytes);

// The program the hook installs: libseccomp's behind one first instruction that loads the
// instruction pointer (its value is never used: libseccomp's program loads the architecture
// next). Why: when a filter is attached, the kernel runs it for every system call number of every
// architecture to cache the calls it always allows (kernel/seccomp.c, seccomp_cache_prepare), and
// stops at the first load it cannot know in advance. For our tree that emulation was about 12 us of
// every GPU start; with the prologue it ends at once, and each later call runs the JIT-compiled
// filter instead (a few nanoseconds; the hook makes about a hundred). Returns "" or the error.
std::string export_sandbox_filter(uint32_t tgkill_pid, bool leak_sanitizer, std::vector<unsigned char>* bytes);

}  // namespace gnh
