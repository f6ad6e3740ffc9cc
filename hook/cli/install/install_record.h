// install's record of itself, install-state.json (host/install/install_state.h), kept in step with
// the writes: saved before install touches a file and after uninstall has removed everything, with
// the directories install made, so uninstall removes those too.
#pragma once

#include <optional>
#include <string>

#include "cli/commands.h"
#include "host/install/install_state.h"

namespace gnh::install_cli {

// install-state.json: written before install touches a file (a failed write changes nothing) and
// after uninstall has removed everything (a failed removal keeps the record).
void save_state(InstallState& state, const InstallCommandOptions& o);

// A re-install's record: what the edit computes now, with what earlier runs recorded of the host
// kept (the directories made, the files written and their digests): a second identical run then
// leaves install-state.json as it was, and the first run stays undoable byte for byte.
InstallRecord with_history(InstallRecord fresh, const std::optional<InstallRecord>& earlier);

// The directories this run made, added to the record (the host's paths); whether any were.
bool note_made_dirs(InstallRecord& r);

// Uninstall, its files gone: the directories install made, deepest first, each only if empty.
void remove_made_dirs(const std::optional<InstallRecord>& r, const InstallCommandOptions& o);

// A registration that is not an engine's runtime (hooks.d, nvidia-legacy, nri, a boot gate):
// recorded under `key` before install writes, forgotten once uninstall has removed it.
struct Recorded {
  InstallState state;
  std::string key;
  std::optional<InstallRecord> earlier;
  InstallRecord current;
  Recorded(const GlobalOptions& g, std::string k);
  void before_writing(const InstallCommandOptions& o, InstallRecord r);
  void after_writing(const InstallCommandOptions& o);
};

}  // namespace gnh::install_cli
