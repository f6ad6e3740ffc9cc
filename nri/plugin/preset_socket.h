// NRI_PLUGIN_SOCKET, the connection a runtime hands a pre-registered plugin: a file descriptor
// number in the environment. Pure: the text in, the number or why not out.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace gnh::nri {

// The descriptor NRI_PLUGIN_SOCKET names: decimal digits only, not stdin/stdout/stderr (the
// runtime passes 3). nullopt, with `why` set, for anything else.
std::optional<int> parse_preset_socket(std::string_view text, std::string* why);

}  // namespace gnh::nri
