#include "cli/install/install_record.h"

#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <utility>
#include <vector>

#include "base/error.h"
#include "cli/install/file_claims.h"
#include "cli/install/file_writer.h"
#include "cli/install/install_paths.h"
#include "host/fs/atomic_file.h"

namespace gnh::install_cli {

void save_state(InstallState& state, const InstallCommandOptions& o) {
  if (o.dry_run) return;
  const std::string text = state.text();
  if (text.empty()) {
    if (state.before() && ::unlink(state.path().c_str()) != 0 && errno != ENOENT)
      fail_errno("cannot remove " + state.path(), errno);
  } else if (text != state.before().value_or("")) {
    make_parent_dirs(state.path());
    write_file_atomically(state.path(), text, 0644);
  }
  state.saved(text);
}

InstallRecord with_history(InstallRecord fresh, const std::optional<InstallRecord>& earlier) {
  if (!earlier) return fresh;
  fresh.made_dirs = earlier->made_dirs;
  for (const auto& [path, d] : earlier->wrote) fresh.wrote.emplace(path, d);
  return fresh;
}

bool note_made_dirs(InstallRecord& r) {
  const bool any = !g_made_dirs.empty();
  for (const std::string& d : g_made_dirs)
    if (std::find(r.made_dirs.begin(), r.made_dirs.end(), g_root.host(d)) == r.made_dirs.end()) r.made_dirs.push_back(g_root.host(d));
  g_made_dirs.clear();
  return any;
}

void remove_made_dirs(const std::optional<InstallRecord>& r, const InstallCommandOptions& o) {
  if (!r || o.dry_run) return;
  std::vector<std::string> dirs = r->made_dirs;
  std::sort(dirs.begin(), dirs.end(), [](const std::string& a, const std::string& b) { return a.size() > b.size(); });
  for (const std::string& d : dirs) ::rmdir(g_root.machine(d).c_str());  // fails, as it should, unless empty
}

Recorded::Recorded(const GlobalOptions& g, std::string k) : state(our_config(g)), key(std::move(k)), earlier(state.get(key)) {
  load_claims(state, key);
}

void Recorded::before_writing(const InstallCommandOptions& o, InstallRecord r) {
  if (o.uninstall) return;
  current = with_history(std::move(r), earlier);
  state.put(key, current);
  save_state(state, o);
}

void Recorded::after_writing(const InstallCommandOptions& o) {
  if (o.dry_run) return;
  if (o.uninstall) {
    record_writes(state, key, true);
    state.forget(key);
    save_state(state, o);
    remove_made_dirs(earlier, o);
    return;
  }
  if (!state.get(key)) return;
  bool more = note_made_dirs(current);
  if (more) state.put(key, current);
  more = record_writes(state, key, false) || more;
  if (more) save_state(state, o);
}

}  // namespace gnh::install_cli
