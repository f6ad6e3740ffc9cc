// The scanner behind parse_spec and the runtime shim (oci-spec/json_scan.h): whatever it accepts,
// nlohmann must accept, and each value it locates must be the value nlohmann's document holds at
// that path (duplicate keys: the last wins there). Declining is always allowed: callers then parse
// the whole document.
#include <nlohmann/json.hpp>

#include <cstddef>
#include <cstdint>
#include <string_view>

#include "json_scan.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  static const std::vector<oci::MemberPath> wanted = {
      {"a"}, {"a", "b"}, {"a", "b", "c"}, {"hooks"}, {"hooks", "prestart"}, {"process", "env"}, {"linux"},
      {"linux", "devices"}, {"linux", "resources", "cpu", "mems"}, {""}, {"a", ""}};
  auto found = oci::locate_members(text, wanted);
  if (!found) return 0;
  nlohmann::json doc;
  try {
    doc = nlohmann::json::parse(text.begin(), text.end());
  } catch (const nlohmann::json::exception&) {
    __builtin_trap();  // accepted what nlohmann refuses
  }
  if (!doc.is_object()) __builtin_trap();
  if (text[found->root_close] != '}' || found->root_empty != doc.empty()) __builtin_trap();
  for (size_t k = 0; k < wanted.size(); ++k) {
    const nlohmann::json* v = &doc;
    for (auto key : wanted[k]) {
      if (!v->is_object()) { v = nullptr; break; }
      auto it = v->find(std::string(key));
      if (it == v->end()) { v = nullptr; break; }
      v = &*it;
    }
    const auto& got = found->values[k];
    if (!v) {
      if (got) __builtin_trap();
      continue;
    }
    if (!got || nlohmann::json::parse(got->begin(), got->end()) != *v) __builtin_trap();
  }
  return 0;
}
