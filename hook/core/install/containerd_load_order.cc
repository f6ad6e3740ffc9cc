#include "install/containerd_load_order.h"

#include <algorithm>
#include <deque>

#include "install/toml_text.h"

namespace gnh {

namespace {

std::string parent_dir(const std::string& path) {
  const size_t slash = path.rfind('/');
  return slash == std::string::npos ? "." : slash == 0 ? "/" : path.substr(0, slash);
}

// filepath.Clean's lexical rules, enough for import entries.
std::string clean_path(const std::string& p) {
  const bool abs = !p.empty() && p.front() == '/';
  std::vector<std::string> parts;
  size_t i = 0;
  while (i <= p.size()) {
    size_t j = p.find('/', i);
    if (j == std::string::npos) j = p.size();
    std::string c = p.substr(i, j - i);
    if (c == "..") {
      if (!parts.empty() && parts.back() != "..") parts.pop_back();
      else if (!abs) parts.push_back(c);
    } else if (!c.empty() && c != ".") {
      parts.push_back(c);
    }
    i = j + 1;
  }
  std::string out = abs ? "/" : "";
  for (size_t k = 0; k < parts.size(); ++k) out += (k ? "/" : "") + parts[k];
  return out.empty() ? "." : out;
}

std::vector<std::string> imports_of(const toml::table& t) {
  std::vector<std::string> out;
  if (const toml::array* a = t["imports"].as_array())
    for (const auto& e : *a)
      if (auto v = e.value<std::string>()) out.push_back(*v);
  return out;
}

// The files one entry names: the path itself (read or skipped later), or a glob's matches sorted
// (Go's filepath.Glob sorts).
std::vector<std::string> resolve(const std::string& importer, const std::string& entry, const ConfigReader& files,
                                 const std::string& root, std::set<std::string>* unseen) {
  const std::string path = containerd_import_path(importer, entry, root);
  const bool glob = path.find('*') != std::string::npos;
  if (clean_path(entry).front() == '/' && !files.exists(glob ? parent_dir(path) : path)) unseen->insert(entry);
  if (!glob) return {path};
  std::vector<std::string> m = files.glob(path);
  std::sort(m.begin(), m.end());
  return m;
}

}  // namespace

std::string containerd_import_path(const std::string& importer, const std::string& entry, const std::string& root) {
  const std::string path = clean_path(entry);
  return path.front() == '/' ? clean_path(root + path) : clean_path(parent_dir(importer) + "/" + path);
}

ContainerdLoadOrder containerd_load_order(const std::string& main, const ConfigReader& files, const std::string& root) {
  ContainerdLoadOrder out;
  std::set<std::string> seen;
  std::deque<std::string> pending{main};
  while (!pending.empty()) {
    const std::string p = pending.front();
    pending.pop_front();
    if (!seen.insert(p).second) continue;
    const std::optional<std::string> text = files.read(p);
    if (!text) continue;  // an absent import: nothing of it to read
    const toml::table t = parse_toml_file(*text, p);
    out.files.push_back(p);
    for (const std::string& entry : imports_of(t))
      for (const std::string& path : resolve(p, entry, files, root, &out.unseen)) pending.push_back(path);
  }
  return out;
}

}  // namespace gnh
