// Hook mode runs as root on every container start and parses text a container's creator controls
// (config.json, the state, /proc/<pid>/cgroup). Once start-up is done (config read, log open, the
// chained hook run) it gives up what the rest of the run does not need: no new privileges, every
// capability but two, and a seccomp allow-list. docs/internals/sandbox.md says what is kept and why.
#pragma once

#include <string>
#include <vector>

namespace gnh {

// Applies the sandbox to the calling process for the rest of its life; no way back.
// Returns "" when every part applied, else a short note of what could not be done (an old kernel
// without seccomp filters, a process without CAP_SETPCAP): the hook goes on, less confined, and
// the note goes into its log line. Never throws.
std::string enter_hook_sandbox();

// The seccomp program enter_hook_sandbox() installs in this process (struct sock_filter[], as
// bytes): the build-time compiled allow-list of sandbox_rules.h with this process's pid. The test
// compares it with what libseccomp builds from the same rules.
std::vector<unsigned char> sandbox_filter_program();

// The capabilities kept (names as in capabilities(7)), for the docs and the tests.
std::vector<std::string> sandbox_kept_capabilities();

// The errno a system call outside the allow-list fails with: a clear error, never a crash.
constexpr int kSandboxDeniedErrno = 1;  // EPERM

}  // namespace gnh
