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

bool is_nvidia_runtime(std::string_view name, std::string_view binary) {
  std::string_view base = binary.substr(binary.rfind('/') == std::string_view::npos ? 0 : binary.rfind('/') + 1);
  return name.rfind("nvidia", 0) == 0 || base.rfind("nvidia-container-runtime", 0) == 0;
}

namespace {

std::string toml_string(const std::string& v) {
  std::string q = "\"";
  for (char ch : v) {
    if (ch == '"' || ch == '\\') q += '\\';
    q += ch;
  }
  return q + "\"";
}

}  // namespace

std::string set_runtime_next(std::string_view text, const std::vector<std::string>& next) {
  std::string line = "next = [";
  for (size_t i = 0; i < next.size(); ++i) line += (i ? ", " : "") + toml_string(next[i]);
  line += "]";
  std::string out;
  bool in_runtime = false, done = false, saw_runtime = false, skipping_array = false;
  size_t pos = 0;
  while (pos < text.size()) {
    size_t nl = text.find('\n', pos);
    std::string_view l = text.substr(pos, nl == std::string_view::npos ? std::string_view::npos : nl - pos);
    pos = nl == std::string_view::npos ? text.size() : nl + 1;
    std::string t = trim(l);
    if (skipping_array) {  // the rest of a multi-line `next = [` we replaced
      if (t.find(']') != std::string::npos) skipping_array = false;
      continue;
    }
    if (!t.empty() && t.front() == '[') {
      if (in_runtime && !done) { out += line + "\n"; done = true; }
      in_runtime = t == "[runtime]";
      saw_runtime |= in_runtime;
    } else if (in_runtime && !done && t.rfind("next", 0) == 0 && t.find('=') != std::string::npos &&
               trim(t.substr(4, t.find('=') - 4)).empty()) {
      out += line + "\n";
      done = true;
      skipping_array = t.find('[') != std::string::npos && t.find(']') == std::string::npos;
      continue;
    }
    out += std::string(l) + "\n";
  }
  if (in_runtime && !done) { out += line + "\n"; done = true; }
  if (!saw_runtime) out += "\n[runtime]\n" + line + "\n";
  return out;
}

std::vector<std::string> runtime_next(std::string_view text, const std::string& file) {
  std::vector<std::string> out;
  try {
    toml::table t = toml::parse(text, file);
    if (const toml::array* a = t["runtime"]["next"].as_array())
      for (const auto& e : *a)
        if (auto v = e.value<std::string>()) out.push_back(*v);
  } catch (const toml::parse_error& e) {
    fail(file + ": line " + std::to_string(e.source().begin.line) + ": cannot parse, left untouched: " +
         std::string(e.description()));
  }
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
