// A runtime document (config.json, runc's state.json, update --resources) parsed as a JSON object,
// or a Failure naming the document: the shim reads several, always with the same two refusals.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

#include "base/error.h"

namespace gnh {

// Json: nlohmann::json, or nlohmann::ordered_json where the document is written back in its order.
template <typename Json>
Json parse_json_object(std::string_view text, const std::string& what) {
  Json doc;
  try {
    doc = Json::parse(text);
  } catch (const nlohmann::json::parse_error& e) {
    fail(what + " is not valid JSON: " + e.what());
  }
  if (!doc.is_object()) fail(what + " is not a JSON object");
  return doc;
}

}  // namespace gnh
