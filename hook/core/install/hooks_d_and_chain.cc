#include <nlohmann/json.hpp>
#include <toml++/toml.h>

#include "base/error.h"
#include "install/config_edit.h"

namespace gnh {

std::string hooks_d_file_text(const InstallOptions& o) {
  if (o.uninstall) return "";
  // The shipped config/registration/hooks.d/gpu-numa-hook.json, with the hook's path.
  nlohmann::ordered_json j = {
      {"version", "1.0.0"},
      {"hook", {{"path", o.hook_path}, {"args", {"gpu-numa-hook", "prestart"}},
                {"env", {"PATH=/usr/sbin:/usr/bin:/sbin:/bin"}}, {"timeout", 60}}},
      {"when", {{"always", true}}},
      {"stages", {"prestart"}}};
  return j.dump(2) + "\n";
}

namespace {

std::string trim(std::string_view s) {
  size_t b = s.find_first_not_of(" \t\r");
  if (b == std::string_view::npos) return "";
  size_t e = s.find_last_not_of(" \t\r");
  return std::string(s.substr(b, e - b + 1));
}

}  // namespace

std::string set_chain_next_hook(std::string_view text, const std::string& next_hook) {
  std::string quoted;
  for (char ch : next_hook) {
    if (ch == '"' || ch == '\\') quoted += '\\';
    quoted += ch;
  }
  const std::string line = "next-hook = \"" + quoted + "\"";
  std::string out;
  bool in_chain = false, done = false, saw_chain = false;
  size_t pos = 0;
  while (pos < text.size()) {
    size_t nl = text.find('\n', pos);
    std::string_view l = text.substr(pos, nl == std::string_view::npos ? std::string_view::npos : nl - pos);
    pos = nl == std::string_view::npos ? text.size() : nl + 1;
    std::string t = trim(l);
    if (!t.empty() && t.front() == '[') {
      if (in_chain && !done) { out += line + "\n"; done = true; }
      in_chain = t == "[chain]";
      saw_chain |= in_chain;
    } else if (in_chain && !done && t.rfind("next-hook", 0) == 0 && t.find('=') != std::string::npos) {
      out += line + "\n";
      done = true;
      continue;
    }
    out += std::string(l) + "\n";
  }
  if (in_chain && !done) { out += line + "\n"; done = true; }
  if (!saw_chain) out += "\n[chain]\n" + line + "\n";
  return out;
}

std::string chain_next_hook(std::string_view text, const std::string& file) {
  try {
    toml::table t = toml::parse(text, file);
    return t["chain"]["next-hook"].value_or(std::string());
  } catch (const toml::parse_error& e) {
    fail(file + ": line " + std::to_string(e.source().begin.line) + ": cannot parse, left untouched: " +
         std::string(e.description()));
  }
}

}  // namespace gnh
