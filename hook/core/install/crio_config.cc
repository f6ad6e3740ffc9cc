// CRI-O: the shim as a runtime of its own, in our drop-in under crio.conf.d (issue 19): so that
// kubelet's UpdateContainerResources also goes through the shim's `update` handling there.
#include <toml++/toml.h>

#include <algorithm>
#include <set>
#include <sstream>

#include "base/error.h"
#include "base/toml_guard.h"
#include "install/crio_config.h"
#include "install/engine_config.h"
#include "install/toml_text.h"

namespace gnh {

std::string crio_runtime_dropin(const std::vector<std::pair<std::string, std::string>>& files, const InstallOptions& o,
                                EngineRuntimes* seen) {
  if (o.uninstall) return "";
  // CRI-O reads crio.conf, then crio.conf.d/*.toml in order; a later file's value wins.
  std::string default_name;
  toml::table runtimes;
  for (const auto& [file, text] : files) {
    toml::table t = parse_toml_file(text, file);
    if (auto d = t["crio"]["runtime"]["default_runtime"].value<std::string>()) default_name = *d;
    if (const toml::table* rts = t["crio"]["runtime"]["runtimes"].as_table())
      for (const auto& [k, v] : *rts)
        if (const toml::table* r = v.as_table()) runtimes.insert_or_assign(k, *r);
  }
  auto path_of = [&](const std::string& n) { return runtimes[n]["runtime_path"].value_or(std::string()); };
  std::string base;
  if (!default_name.empty() && default_name != kRuntimeName && runtimes[default_name].is_table() &&
      !is_nvidia_runtime(default_name, path_of(default_name)))
    base = default_name;
  for (const char* n : {"runc", "crun"})
    if (base.empty() && runtimes[n].is_table()) base = n;
  std::string nvidia;
  for (const auto& [k, v] : runtimes) {
    std::string name(k.str());
    if (!is_nvidia_runtime(name, path_of(name))) continue;
    std::string p = path_of(name).empty() ? "nvidia-container-runtime" : path_of(name);
    if (nvidia.empty() || name == default_name) nvidia = p;
  }
  if (seen) *seen = {default_name, base, nvidia};
  toml::table ours = base.empty() ? toml::table{} : *runtimes[base].as_table();
  ours.insert_or_assign("runtime_path", o.runtime_path);
  ours.insert_or_assign("runtime_type", "oci");
  toml::table rts;
  rts.insert(kRuntimeName, std::move(ours));
  toml::table runtime;
  if (o.set_default) runtime.insert("default_runtime", kRuntimeName);
  runtime.insert("runtimes", std::move(rts));
  toml::table crio;
  crio.insert("runtime", std::move(runtime));
  toml::table root;
  root.insert("crio", std::move(crio));
  std::ostringstream out;
  out << "# Written by `gpu-numa-hook install --runtime crio-runtime`: the gpu-numa runtime (the shim)\n"
      << "# as a copy of '" << (base.empty() ? std::string("none") : base) << "'. `install --uninstall` removes this file.\n"
      << toml::toml_formatter(root, toml::toml_formatter::default_flags & ~toml::format_flags::indentation) << "\n";
  return out.str();
}

bool crio_dropin_is_default(std::string_view text, const std::string& file) {
  try {
    return parse_toml_text(text, file)["crio"]["runtime"]["default_runtime"].value_or(std::string()) == kRuntimeName;
  } catch (const toml::parse_error&) {
    return false;  // not ours as we wrote it: install rewrites it
  }
}

std::vector<std::string> crio_dropin_files(const ConfigReader& reader, const std::string& dir) {
  // CRI-O walks crio.conf.d with Go's filepath.Walk and reads every regular file it meets, whatever
  // its name: OpenShift's 00-default has no suffix, nvidia-ctk writes 99-nvidia.toml, others use
  // .conf; hidden files and subdirectories count too. Names in byte order, a directory's files read
  // where its name sorts. Seen with the real `crio config` (tests/crio/run-crio-tests.sh).
  std::vector<std::string> out;
  auto walk = [&](auto&& self, const std::string& d, int depth) -> void {
    std::set<std::string> entries, dirs;
    for (const char* pattern : {"/*", "/.*"})
      for (const std::string& e : reader.glob(d + pattern)) {
        const std::string base = e.substr(d.size() + 1);
        if (base != "." && base != "..") entries.insert(e);
      }
    for (const char* pattern : {"/*/", "/.*/"})  // a pattern ending in '/' matches directories only
      for (std::string e : reader.glob(d + pattern)) {
        while (!e.empty() && e.back() == '/') e.pop_back();
        dirs.insert(e);
      }
    for (const std::string& e : entries) {
      if (!dirs.count(e)) out.push_back(e);
      else if (depth < 8) self(self, e, depth + 1);  // deeper trees are not CRI-O configuration in practice
    }
  };
  walk(walk, dir, 0);
  return out;
}

namespace {

class CrioConfig final : public EngineConfig {
 public:
  CrioConfig(std::string dir, const ConfigReader& reader) : dir_(std::move(dir)), path_(dir_ + "/" + kCrioDropin) {
    const std::string main_file = dir_.substr(0, dir_.rfind('/') + 1) + "crio.conf";
    if (auto t = reader.read(main_file)) files_.emplace_back(main_file, *t);
    for (const std::string& f : crio_dropin_files(reader, dir_))
      if (f != path_)
        if (auto t = reader.read(f)) files_.emplace_back(f, *t);
    ours_ = reader.read(path_);
  }

  EngineRuntimes runtimes() const override {
    EngineRuntimes seen;
    crio_runtime_dropin(files_, InstallOptions{}, &seen);
    return seen;
  }

  EngineEdit add_runtime(const InstallOptions& o, const std::optional<InstallRecord>& recorded) const override {
    const std::optional<InstallRecord> earlier = ours_ ? recorded : std::nullopt;  // else stale: our drop-in is gone
    EngineEdit e;
    InstallOptions io = o;
    // a plain re-run keeps an earlier --set-default
    io.set_default = o.set_default || (earlier && earlier->set_default) || (ours_ && crio_dropin_is_default(*ours_, path_));
    e.changes.push_back({path_, ours_, crio_runtime_dropin(files_, io, &e.runtimes), true, true});
    e.record.config = dir_;
    e.record.dropin = path_;
    e.record.set_default = io.set_default;
    e.record.previous_default = earlier ? earlier->previous_default : e.runtimes.default_runtime;
    if (earlier) e.record.previous_next = earlier->previous_next;
    return e;
  }

  EngineEdit remove_runtime(const InstallOptions&, const std::optional<InstallRecord>&) const override {
    EngineEdit e;
    if (ours_) e.changes.push_back({path_, ours_, std::nullopt, true, true});
    return e;
  }

  std::string restart_hint() const override {
    return "restart CRI-O to apply: systemctl restart crio (pods then choose it with runtimeClassName: gpu-numa, "
           "or it is the default with --set-default)";
  }

 private:
  std::string dir_, path_;
  std::vector<std::pair<std::string, std::string>> files_;
  std::optional<std::string> ours_;
};

}  // namespace

std::unique_ptr<EngineConfig> crio_config(const std::string& dropin_dir, const ConfigReader& reader) {
  return std::make_unique<CrioConfig>(dropin_dir, reader);
}

}  // namespace gnh
