// `install`'s one small interface over an engine's configuration, one implementation per engine
// (docker_config.cc, containerd_config.cc, crio_config.cc), as nvidia-container-toolkit's
// pkg/config/engine does: read the effective configuration (every file the engine reads, in its
// order), add or remove our runtime, name the runtime ours is copied from and the one it displaces.
// Pure: files come through a ConfigReader that the host side implements (host/install/engine_files.h); the
// result is each file's new text, which the host side backs up, writes atomically or prints as a
// diff. Adding support for the next engine version is a change in that engine's file only.
#pragma once

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "install/config_edit.h"

namespace gnh {

// The files an engine edit may ask for.
class ConfigReader {
 public:
  virtual ~ConfigReader() = default;
  // A file's text; nullopt when it does not exist.
  virtual std::optional<std::string> read(const std::string& path) const = 0;
  // Whether a file or directory exists.
  virtual bool exists(const std::string& path) const = 0;
  // The existing paths matching a glob pattern, sorted (as glob(3) and Go's filepath.Glob give them).
  virtual std::vector<std::string> glob(const std::string& pattern) const = 0;
};

// One file install writes: its text before (nullopt: absent) and after (nullopt: remove it).
struct FileChange {
  std::string path;
  std::optional<std::string> before;
  std::optional<std::string> after;
  bool ours = false;    // a file of ours (our drop-in, a main file install created): no backup
  bool dropin = false;  // our drop-in: its directory goes when it is left empty
};

// What install did to one engine, kept in install-state.json (host/install/install_state.h) so that
// uninstall undoes exactly that, whatever else changed in the files in between.
struct InstallRecord {
  std::string config;            // the engine's main file (CRI-O: the drop-in directory)
  std::string previous_default;  // the default runtime before ours ("" = the engine's built-in)
  bool set_default = false;      // some install had --set-default (a plain re-run keeps it)
  std::string dropin;            // the drop-in file we created ("" = none)
  std::string import_added;      // containerd: the `imports` entry we added to the main file
  bool import_line_added = false;  // ... with the whole `imports = [...]` line
  bool created_config = false;   // the main file did not exist before install
  // Our [runtime] next before install chained it to NVIDIA's runtime (nullopt: not chained).
  std::optional<std::vector<std::string>> previous_next;
  // Our [runtime] hook before install set it to --hook-path ("" = the key was absent; nullopt:
  // install did not change it).
  std::optional<std::string> previous_hook;
  std::string plugin_dir;        // nri, crio-nri: the pre-registered plugin's directory ("" = none)
  std::vector<std::string> made_dirs;  // directories install created (uninstall removes them if empty)
  // The operator's files install rewrote, each with a digest of what it wrote: a file still holding
  // exactly that gets its backup back byte for byte on uninstall (formatting included).
  std::map<std::string, std::string> wrote;
};

// What an add or remove comes to.
struct EngineEdit {
  std::vector<FileChange> changes;  // every file the edit touches, unchanged ones included
  EngineRuntimes runtimes;          // what the engine's files said (add only)
  InstallRecord record;             // what uninstall needs later (add only)
  std::vector<std::string> notes;   // lines for the operator: the strategy used, and why
};

class EngineConfig {
 public:
  virtual ~EngineConfig() = default;
  // The engine's effective default runtime, the base ours is copied from, NVIDIA's runtime.
  virtual EngineRuntimes runtimes() const = 0;
  // Our runtime added (idempotent: a second run changes nothing). `earlier`: the record of an
  // earlier install, whose --set-default and displaced default are kept.
  virtual EngineEdit add_runtime(const InstallOptions& o, const std::optional<InstallRecord>& earlier) const = 0;
  // Our runtime removed, and what `record` says install displaced put back.
  virtual EngineEdit remove_runtime(const InstallOptions& o, const std::optional<InstallRecord>& record) const = 0;
  // The last line install prints: what to restart.
  virtual std::string restart_hint() const = 0;
};

// Docker's daemon.json.
std::unique_ptr<EngineConfig> docker_config(const std::string& daemon_json, const ConfigReader& reader);

// Which containerd reads the files: its version decides how imports merge (containerd_config.h).
struct ContainerdRelease {
  int major = 0;  // 0: not known (no containerd here and no --containerd-version)
  int minor = 0;
  std::string source;  // how we know: "containerd --version", "--containerd-version"
};
// containerd's main config.toml and what it imports. `root`: where the host's absolute paths in
// `imports` are on this machine ("" = here; --host-root).
std::unique_ptr<EngineConfig> containerd_config(const std::string& main_file, const ConfigReader& reader,
                                                const ContainerdRelease& release, const std::string& root = "");

// CRI-O's crio.conf.d directory (crio.conf beside it).
std::unique_ptr<EngineConfig> crio_config(const std::string& dropin_dir, const ConfigReader& reader);

}  // namespace gnh
