#include "cli/install/file_claims.h"

#include <cstdint>
#include <cstdio>
#include <map>
#include <set>
#include <string_view>

#include "cli/install/install_paths.h"

namespace gnh::install_cli {

namespace {

// A digest of a file's text (FNV-1a, 64 bits): enough to tell whether anyone changed what install
// wrote; nothing here is adversarial (the operator owns both the file and the state).
std::string digest(std::string_view text) {
  uint64_t h = 14695981039346656037ull;
  for (unsigned char c : text) h = (h ^ c) * 1099511628211ull;
  char out[17];
  std::snprintf(out, sizeof out, "%016llx", static_cast<unsigned long long>(h));
  return out;
}

// This machine's paths: the digest recorded (self's where it has one), who else claims it, and
// what this run wrote.
std::map<std::string, std::string> g_digest;
std::set<std::string> g_others;
std::map<std::string, std::string> g_written;

}  // namespace

void load_claims(const InstallState& state, const std::string& self) {
  g_digest.clear();
  g_others.clear();
  g_written.clear();
  for (const std::string& e : state.engines()) {
    const InstallRecord r = *state.get(e);  // a copy: get() returns by value
    for (const auto& [host_path, d] : r.wrote) {
      const std::string path = g_root.machine(host_path);
      if (e != self) g_others.insert(path);
      if (e == self || !g_digest.count(path)) g_digest[path] = d;
    }
  }
}

bool claimed(const std::string& path) { return g_digest.count(path) > 0; }

bool claimed_by_others(const std::string& path) { return g_others.count(path) > 0; }

bool still_as_written(const std::string& path, const std::string& text) {
  auto it = g_digest.find(path);
  return it != g_digest.end() && it->second == digest(text);
}

void note_written(const std::string& path, const std::string& text) { g_written[path] = digest(text); }

bool record_writes(InstallState& state, const std::string& self, bool uninstall) {
  bool changed = false;
  for (const std::string& e : state.engines()) {
    InstallRecord r = *state.get(e);
    bool mine = false;
    for (const auto& [path, d] : g_written) {
      const std::string host = g_root.host(path);
      auto it = r.wrote.find(host);
      const bool claims = it != r.wrote.end() || (e == self && !uninstall);
      if (!claims || (it != r.wrote.end() && it->second == d)) continue;
      r.wrote[host] = d;
      mine = true;
    }
    if (mine) {
      state.put(e, r);
      changed = true;
    }
  }
  for (const auto& [path, d] : g_written) g_digest[path] = d;
  g_written.clear();
  return changed;
}

}  // namespace gnh::install_cli
