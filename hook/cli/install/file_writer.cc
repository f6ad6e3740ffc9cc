#include "cli/install/file_writer.h"

#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>

#include "base/error.h"
#include "cli/install/file_claims.h"
#include "cli/install/install_report.h"
#include "host/fs/atomic_file.h"
#include "host/fs/host_fs.h"
#include "install/config_edit.h"

namespace gnh::install_cli {

std::vector<std::string> g_made_dirs;

std::optional<std::string> read_optional(const std::string& path) {
  HostFs fs("/");
  return fs.read(path, 4 * 1024 * 1024);
}

void make_parent_dirs(const std::string& path) {
  for (size_t slash = path.find('/', 1); slash != std::string::npos; slash = path.find('/', slash + 1)) {
    std::string dir = path.substr(0, slash);
    if (::mkdir(dir.c_str(), 0755) == 0) g_made_dirs.push_back(dir);
    else if (errno != EEXIST) fail_errno("cannot create " + dir, errno);
  }
}

bool drop_spent_backup(const std::string& path, const std::string& now) {
  const std::string backup = path + ".gpu-numa-hook.bak";
  if (claimed_by_others(path)) return false;  // their undo still needs the original
  auto b = read_optional(backup);
  if (!b || *b != now) return false;
  if (::unlink(backup.c_str()) != 0 && errno != ENOENT) fail_errno("cannot remove " + backup, errno);
  return true;
}

// A file install wrote that another tool has edited since (nvidia-ctk runtime configure after
// install): its backup is the file before both edits, and giving it back would undo the other
// tool's. It goes, with a line; uninstall then removes our part alone (the computed edit). Kept
// while another registration claims the file: its undo decides.
void drop_stale_backup(const std::string& path, const std::optional<std::string>& before, const InstallCommandOptions& o) {
  if (!before || !claimed(path) || claimed_by_others(path) || still_as_written(path, *before)) return;
  const std::string backup = path + ".gpu-numa-hook.bak";
  if (!read_optional(backup)) return;
  if (!o.dry_run && ::unlink(backup.c_str()) != 0 && errno != ENOENT) fail_errno("cannot remove " + backup, errno);
  said_file(backup, o.dry_run ? "would_remove" : "removed", "",
            std::string(o.dry_run ? "would remove: " : "removed: ") + backup + " (" + path +
                " was edited by another tool since install wrote it: the backup predates that edit, so " +
                (o.uninstall ? "only our part of the file is removed" : "uninstall will remove only our part") + ")\n");
}

bool apply(const std::string& path, const std::optional<std::string>& before, const std::optional<std::string>& computed,
           const InstallCommandOptions& o, bool keep_backup, bool ours, bool dropin) {
  std::optional<std::string> after = computed;
  if (!ours) drop_stale_backup(path, before, o);
  // Uninstall of a file still exactly as install left it, by the last registration that claims
  // it: its backup, byte for byte, rather than the computed edit (which re-emits the engine's
  // format). While another registration claims it, only self's part goes (the computed edit).
  if (o.uninstall && !ours && before && after && !claimed_by_others(path) && still_as_written(path, *before))
    if (auto backup = read_optional(path + ".gpu-numa-hook.bak")) after = *backup;
  const bool remove = !after;
  if ((remove && !before) || (!remove && before && *before == *after)) {
    said_file(path, "unchanged", "", "unchanged: " + path + (o.uninstall ? " (nothing of ours in it)" : "") + "\n");
    if (o.uninstall && !o.dry_run && after) drop_spent_backup(path, *after);
    return false;
  }
  if (o.dry_run) {
    std::string d = unified_diff(before.value_or(""), after.value_or(""), before ? path : "/dev/null", remove ? "/dev/null" : path);
    said_file(path, remove ? "would_remove" : before ? "would_update" : "would_create", "", d, d);
    return true;
  }
  const std::string backup = path + ".gpu-numa-hook.bak";
  struct stat bst {};
  // A claimed file holds install's edits already: its backup (the original) was made then.
  const bool keep = claimed(path) || (keep_backup && ::stat(backup.c_str(), &bst) == 0);
  if (before && !ours && !keep) write_file_atomically(backup, *before, 0600);
  if (remove) {
    if (::unlink(path.c_str()) != 0) fail_errno("cannot remove " + path, errno);
    if (dropin) ::rmdir(path.substr(0, path.rfind('/')).c_str());  // fails, as it should, unless empty
    said_file(path, "removed", ours ? "" : backup, "removed: " + path + (ours ? "" : " (backup: " + backup + ")") + "\n");
    return true;
  }
  make_parent_dirs(path);
  struct stat st {};
  unsigned mode = ::stat(path.c_str(), &st) == 0 ? (st.st_mode & 07777) : 0644;
  write_file_atomically(path, *after, mode);
  if (!ours) note_written(path, *after);
  if (o.uninstall && drop_spent_backup(path, *after)) {
    said_file(path, "restored", "", "restored: " + path + " (as before install; its backup removed)\n");
    return true;
  }
  said_file(path, before ? "updated" : "created", before && !ours ? backup : "",
            std::string(before ? "updated" : "created") + ": " + path +
                (before && !ours ? " (backup: " + backup + ")" : "") + "\n");
  return true;
}

}  // namespace gnh::install_cli
