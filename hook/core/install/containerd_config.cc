// containerd's engine for install (see containerd_config.h for the rules it follows).
#include "install/containerd_config.h"
#include "base/toml_guard.h"

#include <fnmatch.h>

#include <algorithm>
#include <map>
#include <optional>
#include <set>

#include "base/error.h"
#include "install/containerd_load_order.h"
#include "install/engine_config.h"
#include "install/toml_text.h"

namespace gnh {

std::string containerd_cri_plugin(long long version) {
  if (version >= 3) return "io.containerd.cri.v1.runtime";
  return version == 2 ? "io.containerd.grpc.v1.cri" : "cri";
}

ContainerdRelease containerd_release_from(std::string_view text, const std::string& source) {
  size_t pos = 0;
  while (pos < text.size()) {
    size_t b = text.find_first_not_of(" \t\r\n", pos);
    if (b == std::string_view::npos) break;
    size_t e = text.find_first_of(" \t\r\n", b);
    std::string_view w = text.substr(b, e == std::string_view::npos ? std::string_view::npos : e - b);
    pos = e == std::string_view::npos ? text.size() : e;
    if (!w.empty() && w.front() == 'v') w.remove_prefix(1);
    size_t dot = w.find('.');
    auto digits = [](std::string_view d) { return !d.empty() && d.size() < 4 && d.find_first_not_of("0123456789") == std::string_view::npos; };
    if (dot == std::string_view::npos || !digits(w.substr(0, dot))) continue;
    std::string_view rest = w.substr(dot + 1);
    std::string_view minor = rest.substr(0, rest.find_first_not_of("0123456789"));
    if (!digits(minor)) continue;
    return {std::stoi(std::string(w.substr(0, dot))), std::stoi(std::string(minor)), source};
  }
  return {0, 0, source};
}

long long containerd_file_version(std::string_view text, const std::string& file) {
  return parse_toml_file(text, file)["version"].value_or(0LL);
}

bool containerd_defines_cri(std::string_view text, const std::string& file) {
  toml::table root = parse_toml_file(text, file);
  for (long long v : {1LL, 2LL, 3LL})
    if (root["plugins"][containerd_cri_plugin(v)].is_table()) return true;
  return false;
}

namespace {

constexpr const char* kBuiltinRuntimeType = "io.containerd.runc.v2";
constexpr const char* kDropinMarker = "# Written by `gpu-numa-hook install --runtime containerd`";

// Byte offset of a toml++ source position (1-based line and column) in text.
size_t offset_of(std::string_view text, toml::source_position p) {
  size_t off = 0;
  for (unsigned line = 1; line < p.line && off < text.size(); ++line) {
    size_t nl = text.find('\n', off);
    off = nl == std::string_view::npos ? text.size() : nl + 1;
  }
  return std::min(text.size(), off + p.column - 1);
}

std::vector<std::string> string_array(const toml::table& t, const char* key) {
  std::vector<std::string> out;
  if (const toml::array* a = t[key].as_array())
    for (const auto& e : *a)
      if (auto v = e.value<std::string>()) out.push_back(*v);
  return out;
}

// The text edit must read back as exactly the intended change: the same table with `imports` as
// expected. Anything else (a layout the edit misread) is refused before a byte is written.
void check_imports_edit(std::string_view before, const std::string& after, const std::string& file,
                        const std::vector<std::string>& want) {
  toml::table b = parse_toml_file(before, file);
  toml::table a;
  try {
    a = parse_toml_text(after, file);
  } catch (const toml::parse_error&) {
    fail(file + ": cannot edit its `imports` line as text (unusual layout), left untouched: edit it by hand");
  }
  b.erase("imports");
  const bool ok = string_array(a, "imports") == want;
  a.erase("imports");
  if (!ok || a != b) fail(file + ": cannot edit its `imports` line as text (unusual layout), left untouched: edit it by hand");
}

}  // namespace

std::string containerd_add_import(std::string_view text, const std::string& file, const std::string& entry,
                                  bool* added_line) {
  toml::table t = parse_toml_file(text, file);
  std::vector<std::string> want = string_array(t, "imports");
  want.push_back(entry);
  std::string out(text);
  if (const toml::array* a = t["imports"].as_array()) {
    *added_line = false;
    if (a->empty()) {
      out.insert(offset_of(text, a->source().begin) + 1, toml_quoted(entry));
    } else {
      out.insert(offset_of(text, a->back().source().end), ", " + toml_quoted(entry));
    }
  } else {
    if (t.contains("imports")) fail(file + ": `imports` is not an array, left untouched");
    *added_line = true;
    size_t at = 0;
    if (const toml::node* v = t.get("version")) {
      size_t nl = text.find('\n', offset_of(text, v->source().end));
      at = nl == std::string_view::npos ? text.size() : nl + 1;
      if (nl == std::string_view::npos) out += "\n", ++at;
    }
    out.insert(at, "imports = [" + toml_quoted(entry) + "]\n");
  }
  check_imports_edit(text, out, file, want);
  return out;
}

std::string containerd_remove_import(std::string_view text, const std::string& file, const std::string& entry,
                                     bool whole_line) {
  toml::table t = parse_toml_file(text, file);
  const toml::array* a = t["imports"].as_array();
  if (!a) return std::string(text);
  std::vector<std::string> want;
  size_t index = a->size();
  for (size_t i = 0; i < a->size(); ++i) {
    std::optional<std::string> v = (*a)[i].value<std::string>();
    if (v && *v == entry && index == a->size()) index = i;
    else if (v) want.push_back(*v);
  }
  if (index == a->size()) return std::string(text);
  std::string out(text);
  const size_t b = offset_of(text, (*a)[index].source().begin), e = offset_of(text, (*a)[index].source().end);
  if (whole_line && a->size() == 1) {
    // our own line: from its start to its newline
    const size_t key = offset_of(text, a->source().begin);
    const size_t start = text.rfind('\n', key) == std::string_view::npos ? 0 : text.rfind('\n', key) + 1;
    const size_t end = text.find('\n', offset_of(text, a->source().end));
    const std::string_view line = text.substr(start, (end == std::string_view::npos ? text.size() : end) - start);
    if (line == "imports = [" + toml_quoted(entry) + "]") {
      out.erase(start, end == std::string_view::npos ? std::string::npos : end + 1 - start);
      toml::table rest = parse_toml_file(out, file);
      if (rest.contains("imports")) fail(file + ": cannot remove our `imports` line as text, left untouched");
      return out;
    }
  }
  if (index > 0) {
    size_t comma = text.rfind(',', b);
    out.erase(comma, e - comma);  // ", "entry"" as install added it
  } else {
    size_t next = text.find_first_not_of(" \t", e);
    if (next != std::string_view::npos && text[next] == ',') {
      next = text.find_first_not_of(" \t", next + 1);
      out.erase(b, (next == std::string_view::npos ? text.size() : next) - b);
    } else {
      out.erase(b, e - b);
    }
  }
  check_imports_edit(text, out, file, want);
  return out;
}

namespace {

// The runtime ours is copied from: the default unless it is NVIDIA's (ours chains to NVIDIA's
// instead, [runtime] next) or ours, else runc, else crun; "" = none defined (the built-in runc).
std::string base_runtime_of(const toml::table& runtimes, const std::string& default_name) {
  auto usable = [&](const std::string& n) { return !n.empty() && n != kRuntimeName && runtimes[n].is_table(); };
  if (usable(default_name) &&
      !is_nvidia_runtime(default_name, runtimes[default_name]["options"]["BinaryName"].value_or(std::string())))
    return default_name;
  for (const char* n : {"runc", "crun"})
    if (usable(n)) return n;
  return "";
}

std::string nvidia_binary_of(const toml::table& runtimes, const std::string& default_name) {
  auto binary = [&](const std::string& n) -> std::string {
    const toml::table* t = runtimes[n].as_table();
    if (!t) return "";
    std::string b = (*t)["options"]["BinaryName"].value_or(std::string());
    if (!is_nvidia_runtime(n, b)) return "";
    return b.empty() ? "nvidia-container-runtime" : b;
  };
  if (std::string b = binary(default_name); !b.empty()) return b;
  for (const auto& [k, v] : runtimes)
    if (std::string b = binary(std::string(k.str())); !b.empty()) return b;
  return "";
}

// Our entry: the base runtime's whole entry (containerd's built-in runc when none is defined),
// runtime_type if missing, options.BinaryName = the shim.
toml::table our_runtime(const toml::table& runtimes, const std::string& base, const std::string& shim, const std::string& where) {
  toml::table ours = base.empty() ? toml::table{} : *runtimes[base].as_table();
  if (!ours.contains("runtime_type")) ours.insert("runtime_type", kBuiltinRuntimeType);
  if (!ours.contains("options")) ours.insert("options", toml::table{});
  toml::table* options = ours["options"].as_table();
  if (!options) fail(where + ".options is not a table, left untouched");
  options->insert_or_assign("BinaryName", shim);
  return ours;
}

// t[key] as a table, created when absent; a Failure when it is something else.
toml::table& sub(toml::table& t, const std::string& key, const std::string& file, const std::string& where) {
  if (!t.contains(key)) t.insert(key, toml::table{});
  toml::table* s = t[key].as_table();
  if (!s) fail(file + ": " + where + " is not a table, left untouched");
  return *s;
}

void drop_if_empty(toml::table& t, const std::string& key) {
  if (auto* s = t[key].as_table(); s && s->empty()) t.erase(key);
}

}  // namespace

std::string edit_containerd_config(std::string_view text, const std::string& file, const InstallOptions& o,
                                   EngineRuntimes* seen) {
  toml::table root = parse_toml_file(text, file);
  const long long version = root["version"].value_or(1LL);
  const std::string plugin = containerd_cri_plugin(version);
  const std::string where = "plugins.\"" + plugin + "\"";
  if (o.uninstall) {
    auto* plugins = root["plugins"].as_table();
    auto* cri = plugins ? (*plugins)[plugin].as_table() : nullptr;
    auto* ctd = cri ? (*cri)["containerd"].as_table() : nullptr;
    auto* rts = ctd ? (*ctd)["runtimes"].as_table() : nullptr;
    if (rts) {
      auto* ours = (*rts)[kRuntimeName].as_table();
      if (ours && (*ours)["options"]["BinaryName"].value_or(std::string()) == o.runtime_path) rts->erase(kRuntimeName);
      drop_if_empty(*ctd, "runtimes");
    }
    if (ctd && (*ctd)["default_runtime_name"].value_or(std::string()) == kRuntimeName) {
      if (o.restore_default.empty()) ctd->erase("default_runtime_name");
      else ctd->insert_or_assign("default_runtime_name", o.restore_default);
    }
    if (cri) drop_if_empty(*cri, "containerd");
    if (plugins) drop_if_empty(*plugins, plugin);
    drop_if_empty(root, "plugins");
    return emit_toml(root);
  }
  toml::table& ctd = sub(sub(sub(root, "plugins", file, "plugins"), plugin, file, where), "containerd", file, where + ".containerd");
  toml::table& rts = sub(ctd, "runtimes", file, where + ".containerd.runtimes");
  const std::string default_name = ctd["default_runtime_name"].value_or(std::string());
  const std::string base = base_runtime_of(rts, default_name.empty() ? "runc" : default_name);
  if (seen) *seen = {default_name, base.empty() ? "runc (built-in)" : base, nvidia_binary_of(rts, default_name)};
  rts.insert_or_assign(kRuntimeName, our_runtime(rts, base, o.runtime_path, file + ": " + where + ".containerd.runtimes." + base));
  if (o.set_default) ctd.insert_or_assign("default_runtime_name", kRuntimeName);
  return emit_toml(root);
}

namespace {

// Whether a file holds our runtime in place (a version 1 install, or one by an earlier gpu-numa-hook).
bool holds_our_runtime(const toml::table& t, const std::string& shim) {
  for (long long v : {1LL, 2LL, 3LL})
    if (t["plugins"][containerd_cri_plugin(v)]["containerd"]["runtimes"][kRuntimeName]["options"]["BinaryName"].value_or(
            std::string()) == shim)
      return true;
  return false;
}

class ContainerdConfig final : public EngineConfig {
 public:
  ContainerdConfig(std::string main_file, const ConfigReader& reader, ContainerdRelease release, std::string root)
      : main_(std::move(main_file)),
        dropin_(containerd_import_path(main_, kContainerdDropin)),
        reader_(reader),
        release_(std::move(release)),
        root_(std::move(root)) {
    main_text_ = reader_.read(main_);
    dropin_text_ = reader_.read(dropin_);
  }

  EngineRuntimes runtimes() const override {
    const long long version = effective_version();
    return view(load_order(main_text_.value_or(""), false), merges_deeply(version), version).runtimes;
  }

  EngineEdit add_runtime(const InstallOptions& o, const std::optional<InstallRecord>& recorded) const override {
    // A record whose install left no trace (our drop-in, or our entry in a version 1 file) is stale.
    const bool installed = dropin_text_ || (main_text_ && holds_our_runtime(file_table(main_), o.runtime_path));
    const std::optional<InstallRecord> earlier = installed ? recorded : std::nullopt;
    EngineEdit edit;
    const std::string main_before = main_text_.value_or("");
    const long long version = effective_version();
    const bool set_default = o.set_default || (earlier && earlier->set_default);
    InstallRecord& r = edit.record;
    r.config = main_;
    r.set_default = set_default;
    if (earlier) r.previous_next = earlier->previous_next;
    if (version == 1) return add_in_place(o, earlier, std::move(edit));
    const bool deep = merges_deeply(version);

    // The main file reads our drop-in already (an entry of ours, or a glob such as nvidia-ctk's
    // conf.d/*.toml), or gets the entry now.
    std::string main_after = main_before;
    bool added_line = false;
    std::string entry;
    if (!main_text_) {
      main_after = "version = " + std::to_string(version) + "\nimports = [" + toml_quoted(kContainerdDropin) + "]\n";
      entry = kContainerdDropin;
      added_line = true;
    } else if (!reads_dropin(main_before)) {
      main_after = containerd_add_import(main_before, main_, kContainerdDropin, &added_line);
      entry = kContainerdDropin;
    }
    std::set<std::string> unseen;
    const std::vector<std::string> order = load_order(main_after, true, &unseen);
    for (const std::string& u : unseen) {
      const std::string what = "imports entry '" + u + "' of " + main_ + " names nothing here" +
                               (root_.empty() ? std::string() : " (under --host-root " + root_ + ")");
      if (!deep)
        fail(what + ": containerd 1.x needs every imported CRI table to copy it, so nothing was changed (where the "
             "host's / is mounted elsewhere, pass --host-root)");
      edit.notes.push_back("warning: " + what + ": NVIDIA's runtime there, if any, is not seen");
    }
    const size_t at = std::find(order.begin(), order.end(), dropin_) - order.begin();
    std::vector<std::string> before(order.begin(), order.begin() + std::min(at, order.size()));
    std::vector<std::string> after(order.begin() + std::min(at + 1, order.size()), order.end());
    std::vector<std::string> others = before;
    others.insert(others.end(), after.begin(), after.end());
    View all = view(others, deep, version);
    edit.runtimes = all.runtimes;
    const std::string key = containerd_cri_plugin(version);

    toml::table plugin;  // what our drop-in holds under plugins.<key>
    if (deep) {
      edit.notes.push_back("strategy: " + release_text(version) + " merges imported files key by key: " + dropin_ +
                           " holds only the gpu-numa runtime" + std::string(set_default ? " and the default" : ""));
    } else {
      // containerd 1.x: a CRI table read after ours would replace it whole.
      for (const std::string& f : after)
        if (file_defines(f, key))
          fail(f + " is read after " + dropin_ + " and defines the CRI plugin table: containerd 1.x would replace ours "
               "with it, so nothing was changed (ours must be the last file containerd reads: put \"" + kContainerdDropin +
               "\" last in the imports of " + main_ + ", and make " + f + " sort before it)");
      View upto = view(before, false, version);
      plugin = upto.cri_table;
      edit.notes.push_back("strategy: " + release_text(version) + " replaces a plugin's whole table with an imported "
                           "file's: " + dropin_ + " carries the whole effective CRI table (from " +
                           (upto.cri_source.empty() ? std::string("containerd's defaults") : upto.cri_source) +
                           ") plus gpu-numa; after editing that table, run install again");
    }
    const std::string where = dropin_ + ": plugins.\"" + key + "\"";
    toml::table& ctd = sub(plugin, "containerd", dropin_, where + ".containerd");
    toml::table& rts = sub(ctd, "runtimes", dropin_, where + ".containerd.runtimes");
    if (!all.has_runtimes && all.default_name == "runc")
      rts.insert_or_assign("runc", toml::table{{"runtime_type", kBuiltinRuntimeType}});  // a runtimes table replaces the built-in one
    rts.insert_or_assign(kRuntimeName, our_runtime(all.runtimes_table, all.base, o.runtime_path, where));
    if (set_default) ctd.insert_or_assign("default_runtime_name", kRuntimeName);
    if (deep && set_default)
      for (const std::string& f : after)
        if (file_sets_default(f))
          fail(f + " is read after " + dropin_ + " and sets default_runtime_name: --set-default would not take effect, "
               "so nothing was changed");
    toml::table root{{"version", version}};
    root.insert("plugins", toml::table{{key, std::move(plugin)}});
    const std::string dropin_text = std::string(kDropinMarker) + " (" + (deep ? "containerd 2.x" : "containerd 1.x") +
                                    "): the gpu-numa runtime, a copy of '" + edit.runtimes.base_runtime +
                                    "'.\n# `gpu-numa-hook install --uninstall --runtime containerd` removes this file.\n" +
                                    emit_toml(root);
    edit.changes.push_back({main_, main_text_, main_after});
    edit.changes.push_back({dropin_, dropin_text_, dropin_text, true, true});
    r.dropin = dropin_;
    r.import_added = earlier && !earlier->import_added.empty() ? earlier->import_added : entry;
    r.import_line_added = earlier && !earlier->import_added.empty() ? earlier->import_line_added : added_line;
    r.created_config = earlier ? earlier->created_config : !main_text_;
    r.previous_default = earlier ? earlier->previous_default
                                 : (edit.runtimes.default_runtime == kRuntimeName ? "" : edit.runtimes.default_runtime);
    return edit;
  }

  EngineEdit remove_runtime(const InstallOptions& o, const std::optional<InstallRecord>& record) const override {
    EngineEdit edit;
    // Our drop-in goes when it is ours: recorded, or marked as written by us.
    if (dropin_text_ && ((record && record->dropin == dropin_) || dropin_text_->rfind(kDropinMarker, 0) == 0))
      edit.changes.push_back({dropin_, dropin_text_, std::nullopt, true, true});
    if (!main_text_) return edit;
    std::string main_after = *main_text_;
    const std::string entry = record && !record->import_added.empty() ? record->import_added : kContainerdDropin;
    main_after = containerd_remove_import(main_after, main_, entry, !record || record->import_line_added);
    // An entry in the main file itself (version 1, or an earlier gpu-numa-hook's install).
    if (holds_our_runtime(parse_toml_file(main_after, main_), o.runtime_path)) {
      InstallOptions u = o;
      u.restore_default = record ? record->previous_default : "";
      main_after = edit_containerd_config(main_after, main_, u);
      edit.notes.push_back("note: " + main_ + " held gpu-numa itself: removed in place, the file re-emitted (comments "
                           "are not kept; the first backup has them)");
    }
    if (record && record->created_config) {
      toml::table rest = parse_toml_file(main_after, main_);
      if (rest.empty() || (rest.size() == 1 && rest.contains("version"))) {  // ours alone: it goes as it came
        edit.changes.push_back({main_, main_text_, std::nullopt, true});
        return edit;
      }
    }
    edit.changes.push_back({main_, main_text_, main_after});
    return edit;
  }

  std::string restart_hint() const override { return "restart containerd to apply: systemctl restart containerd"; }

 private:
  struct View {
    EngineRuntimes runtimes;     // default_runtime: as configured ("" = containerd's built-in runc)
    std::string default_name;    // the effective default
    toml::table runtimes_table;  // the effective containerd.runtimes
    std::string base;            // "" = containerd's built-in runc
    bool has_runtimes = false;   // some file defines containerd.runtimes
    toml::table cri_table;       // 1.x: the effective CRI plugin table
    std::string cri_source;      // 1.x: the file it comes from
  };

  // The files containerd reads, in its order (containerd_load_order.h); ours where it would be
  // read when `with_dropin`, left out otherwise. `unseen`: absolute imports naming nothing here.
  std::vector<std::string> load_order(const std::string& main_text, bool with_dropin,
                                      std::set<std::string>* unseen = nullptr) const {
    ContainerdLoadOrder order = containerd_load_order(main_, PlannedFiles(*this, main_text, with_dropin), root_);
    if (unseen) *unseen = std::move(order.unseen);
    return order.files;
  }

  // The files as the edit would leave them: the main file's text as given, our drop-in there or
  // not whatever is on disk now (it holds no imports of its own), every other file as it is.
  class PlannedFiles final : public ConfigReader {
   public:
    PlannedFiles(const ContainerdConfig& c, const std::string& main_text, bool with_dropin)
        : c_(c), main_text_(main_text), with_dropin_(with_dropin) {}
    std::optional<std::string> read(const std::string& path) const override {
      if (path == c_.main_) return main_text_;
      if (path == c_.dropin_) return with_dropin_ ? std::optional<std::string>("") : std::nullopt;
      return c_.reader_.read(path);
    }
    bool exists(const std::string& path) const override { return c_.reader_.exists(path); }
    std::vector<std::string> glob(const std::string& pattern) const override {
      std::vector<std::string> m = c_.reader_.glob(pattern);
      m.erase(std::remove(m.begin(), m.end(), c_.dropin_), m.end());
      if (with_dropin_ && ::fnmatch(pattern.c_str(), c_.dropin_.c_str(), FNM_PATHNAME) == 0) m.push_back(c_.dropin_);
      return m;
    }

   private:
    const ContainerdConfig& c_;
    const std::string& main_text_;
    bool with_dropin_;
  };

  bool reads_dropin(const std::string& main_text) const {
    std::vector<std::string> order = load_order(main_text, true);
    return std::find(order.begin(), order.end(), dropin_) != order.end();
  }

  const toml::table* table(const std::string& path) const {
    auto it = cache_.find(path);
    if (it == cache_.end()) {
      std::optional<std::string> text = reader_.read(path);
      std::optional<toml::table> t;
      if (text) t = parse_toml_file(*text, path);
      it = cache_.emplace(path, std::move(t)).first;
    }
    return it->second ? &*it->second : nullptr;
  }

  const toml::table& file_table(const std::string& path) const {
    static const toml::table empty;
    if (path == main_) {
      if (!main_parsed_) main_parsed_ = parse_toml_file(main_text_.value_or(""), main_);
      return *main_parsed_;
    }
    const toml::table* t = table(path);
    return t ? *t : empty;
  }

  bool file_defines(const std::string& path, const std::string& key) const {
    return file_table(path)["plugins"][key].is_table();
  }
  bool file_sets_default(const std::string& path) const {
    const toml::table& t = file_table(path);
    return !!t["plugins"][containerd_cri_plugin(t["version"].value_or(1LL))]["containerd"]["default_runtime_name"];
  }

  // The version containerd ends up with: the last non-zero `version` (mergo's override); 1 when a
  // file with keys has none; for no keys at all (a missing or empty main file), the version of
  // the containerd installed (2 for 1.x, 3 for 2.x).
  long long effective_version() const {
    long long v = 0;
    bool any_keys = false;
    for (const std::string& f : load_order(main_text_.value_or(""), false)) {
      const toml::table& t = file_table(f);
      any_keys |= !t.empty();
      if (long long fv = t["version"].value_or(0LL)) v = fv;
    }
    if (v) return v;
    if (any_keys) return 1;
    return release_.major >= 2 ? 3 : 2;
  }

  bool merges_deeply(long long version) const {
    if (release_.major == 1 && version >= 3)
      fail(main_ + ": config version " + std::to_string(version) + " is containerd 2.x's, but containerd " +
           std::to_string(release_.major) + "." + std::to_string(release_.minor) + " is installed (" + release_.source +
           "): left untouched");
    // containerd 2.0-2.2 refuse a file above version 3 at start ("expected containerd config version
    // equal to or less than `3`"): editing it would leave a containerd that does not start.
    if (release_.major == 2 && release_.minor < 3 && version > 3)
      fail(main_ + ": config version " + std::to_string(version) + " is not read by containerd " +
           std::to_string(release_.major) + "." + std::to_string(release_.minor) + " (" + release_.source +
           "), which reads versions up to 3: left untouched");
    return release_.major >= 2 || (release_.major == 0 && version >= 3);
  }

  std::string release_text(long long version) const {
    if (release_.major == 0)
      return "containerd version not known (no containerd here, no --containerd-version), taken from config version " +
             std::to_string(version) + ": containerd " + (version >= 3 ? "2.x" : "1.x (safe on 2.x too)");
    return "containerd " + std::to_string(release_.major) + "." + std::to_string(release_.minor) + " (" + release_.source + ")";
  }

  // What containerd makes of `files` (ours left out): 1.x takes each plugin's table from the last
  // file that defines it; 2.x merges each file's containerd table, under its own version's key.
  View view(const std::vector<std::string>& files, bool deep, long long version) const {
    View v;
    const std::string key = containerd_cri_plugin(version);
    toml::table ctd;
    for (const std::string& f : files) {
      if (f == dropin_) continue;
      const toml::table& t = file_table(f);
      if (deep) {
        const long long fv = t["version"].value_or(1LL);
        if (const toml::table* c = t["plugins"][containerd_cri_plugin(fv)]["containerd"].as_table()) {
          deep_merge(ctd, *c);
          v.has_runtimes |= (*c)["runtimes"].is_table();
        }
      } else if (const toml::table* cri = t["plugins"][key].as_table()) {
        v.cri_table = *cri;
        v.cri_source = f;
        ctd = (*cri)["containerd"].is_table() ? *(*cri)["containerd"].as_table() : toml::table{};
        v.has_runtimes = ctd["runtimes"].is_table();
      }
    }
    if (const toml::table* r = ctd["runtimes"].as_table()) v.runtimes_table = *r;
    const std::string configured = ctd["default_runtime_name"].value_or(std::string());
    v.default_name = configured.empty() ? "runc" : configured;
    v.base = base_runtime_of(v.runtimes_table, v.default_name);
    v.runtimes = {configured, v.base.empty() ? "runc (built-in)" : v.base, nvidia_binary_of(v.runtimes_table, v.default_name)};
    return v;
  }

  EngineEdit add_in_place(const InstallOptions& o, const std::optional<InstallRecord>& earlier, EngineEdit edit) const {
    // containerd 1.x replaces the CRI table with an imported file's: an entry here would be lost.
    for (const std::string& f : load_order(main_text_.value_or(""), false))
      if (f != main_ && file_defines(f, "cri"))
        fail(main_ + " imports " + f + ", which defines the CRI plugin table: containerd would replace the main file's "
             "CRI table with it and ignore our runtime, so nothing was changed. Add the runtime to " + f + " by hand: "
             "[plugins.cri.containerd.runtimes." + kRuntimeName + "] with runtime_type = \"" + kBuiltinRuntimeType +
             "\" and options BinaryName = \"" + o.runtime_path + "\"");
    InstallOptions io = o;
    io.set_default = edit.record.set_default;
    std::string after = edit_containerd_config(main_text_.value_or(""), main_, io, &edit.runtimes);
    edit.notes.push_back("strategy: config version 1 (no `version` key): no drop-in, " + main_ +
                         " edited in place and re-emitted (its comments are not kept; the first backup has them)");
    edit.changes.push_back({main_, main_text_, after});
    edit.record.previous_default = earlier ? earlier->previous_default
                                           : (edit.runtimes.default_runtime == kRuntimeName ? "" : edit.runtimes.default_runtime);
    return edit;
  }

  std::string main_;
  std::string dropin_;
  const ConfigReader& reader_;
  ContainerdRelease release_;
  std::string root_;
  std::optional<std::string> main_text_;
  std::optional<std::string> dropin_text_;
  mutable std::map<std::string, std::optional<toml::table>> cache_;
  mutable std::optional<toml::table> main_parsed_;
};

}  // namespace

std::unique_ptr<EngineConfig> containerd_config(const std::string& main_file, const ConfigReader& reader,
                                                const ContainerdRelease& release, const std::string& root) {
  return std::make_unique<ContainerdConfig>(main_file, reader, release, root);
}

}  // namespace gnh
