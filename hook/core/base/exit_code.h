// Exit statuses shared by every subcommand: 0 ok, 1 problems found (a refusal, stale cgroups, a
// timeout), 2 the tool itself failed. Only hook mode maps an unexpected error to 0, and only
// because on-error=allow says so (decide/verdict.h).
#pragma once

namespace gnh {

enum class ExitCode : int { ok = 0, problems = 1, error = 2 };

constexpr int as_int(ExitCode c) { return static_cast<int>(c); }

}  // namespace gnh
