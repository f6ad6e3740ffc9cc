// CRI-O: the shim as a runtime of its own, in our drop-in under crio.conf.d (issue 19): so that
// kubelet's UpdateContainerResources also goes through the shim's `update` handling there.
#include <toml++/toml.h>

#include <sstream>

#include "base/error.h"
#include "install/config_edit.h"

namespace gnh {

std::string crio_runtime_dropin(const std::vector<std::pair<std::string, std::string>>& files, const InstallOptions& o,
                                EngineRuntimes* seen) {
  if (o.uninstall) return "";
  // CRI-O reads crio.conf, then crio.conf.d/*.toml in order; a later file's value wins.
  std::string default_name;
  toml::table runtimes;
  for (const auto& [file, text] : files) {
    toml::table t;
    try {
      t = toml::parse(text, file);
    } catch (const toml::parse_error& e) {
      fail(file + ": line " + std::to_string(e.source().begin.line) + ", column " +
           std::to_string(e.source().begin.column) + ": cannot parse, left untouched: " + std::string(e.description()));
    }
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
    return toml::parse(text, file)["crio"]["runtime"]["default_runtime"].value_or(std::string()) == kRuntimeName;
  } catch (const toml::parse_error&) {
    return false;  // not ours as we wrote it: install rewrites it
  }
}

}  // namespace gnh
