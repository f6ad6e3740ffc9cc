// Strict typed access to nlohmann::json objects with errors that name the field path.
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "parse_error.h"

namespace oci::detail {

using nlohmann::json;

inline nlohmann::json parse_json(std::string_view text, const char* what) {
  try {
    return json::parse(text.begin(), text.end());
  } catch (const json::exception& e) {
    std::string why = e.what();
    // nlohmann prefixes "[json.exception.parse_error.101] parse error at ...": keep the useful tail.
    if (auto p = why.find("] "); p != std::string::npos) why = why.substr(p + 2);
    throw ParseError(std::string(what) + " is not valid JSON: " + why);
  }
}

inline const json* member(const json& obj, const char* key) {
  if (!obj.is_object()) return nullptr;
  auto it = obj.find(key);
  if (it == obj.end() || it->is_null()) return nullptr;
  return &*it;
}

inline std::string type_name(const json& v) { return v.type_name(); }

inline std::optional<std::string> opt_string(const json& obj, const char* key, const std::string& path) {
  const json* v = member(obj, key);
  if (!v) return std::nullopt;
  if (!v->is_string())
    throw ParseError(path + key + " must be a string, not " + type_name(*v));
  return v->get<std::string>();
}

inline const json* opt_object(const json& obj, const char* key, const std::string& path) {
  const json* v = member(obj, key);
  if (v && !v->is_object()) throw ParseError(path + key + " must be an object, not " + type_name(*v));
  return v;
}

inline const json* opt_array(const json& obj, const char* key, const std::string& path) {
  const json* v = member(obj, key);
  if (v && !v->is_array()) throw ParseError(path + key + " must be an array, not " + type_name(*v));
  return v;
}

inline std::optional<long long> opt_integer(const json& obj, const char* key, const std::string& path) {
  const json* v = member(obj, key);
  if (!v) return std::nullopt;
  if (!v->is_number_integer())
    throw ParseError(path + key + " must be an integer, not " + type_name(*v));
  return v->get<long long>();
}

inline std::map<std::string, std::string> string_map(const json& obj, const char* key,
                                                     const std::string& path) {
  std::map<std::string, std::string> out;
  const json* m = opt_object(obj, key, path);
  if (!m) return out;
  for (auto it = m->begin(); it != m->end(); ++it) {
    if (!it.value().is_string())
      throw ParseError(path + key + "." + it.key() + " must be a string, not " + type_name(it.value()));
    out.emplace(it.key(), it.value().get<std::string>());
  }
  return out;
}

inline std::vector<std::string> string_array(const json& obj, const char* key, const std::string& path) {
  std::vector<std::string> out;
  const json* a = opt_array(obj, key, path);
  if (!a) return out;
  for (size_t i = 0; i < a->size(); ++i) {
    const json& e = (*a)[i];
    if (!e.is_string())
      throw ParseError(path + key + "[" + std::to_string(i) + "] must be a string, not " + type_name(e));
    out.push_back(e.get<std::string>());
  }
  return out;
}

}  // namespace oci::detail
