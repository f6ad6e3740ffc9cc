// install's writes to one file at a time, under a host root: read what is there, make the change
// (a backup of what it replaces, an atomic write, the parent directories it needs) or print it as
// a diff (--dry-run), and drop install's backup once uninstall has restored it.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "cli/commands.h"

namespace gnh::install_cli {

// The file's text (up to 4 MiB); nullopt when it is absent.
std::optional<std::string> read_optional(const std::string& path);

// The directories this run created (this machine's paths), recorded so uninstall removes them.
extern std::vector<std::string> g_made_dirs;
// Creates the missing directories above `path`, each recorded in g_made_dirs.
void make_parent_dirs(const std::string& path);

// Uninstall: install's backup of `path` goes once the file holds exactly what the backup does
// (install undone, nothing of the operator's lost) and no other registration still claims the
// file (cli/install/file_claims.h); a backup that differs stays, it is theirs.
bool drop_spent_backup(const std::string& path, const std::string& now);

// One file's change: printed as a diff (--dry-run) or made, with a backup of what was there
// unless a registration already claims the file (its backup is the original). Returns whether
// anything changed (or would). `after` nullopt: the file is removed. On uninstall, a file still
// exactly as install last wrote it, claimed by no other registration, gets its backup back.
// `keep_backup`: an earlier install made the backup; it holds the operator's original and stays.
// `ours`: a file of ours, which needs no backup; `dropin`: its directory goes when left empty.
bool apply(const std::string& path, const std::optional<std::string>& before, const std::optional<std::string>& computed,
           const InstallCommandOptions& o, bool keep_backup, bool ours = false, bool dropin = false);

}  // namespace gnh::install_cli
