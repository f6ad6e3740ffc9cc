// A small file that several processes update at once (the hook's decision counts): rewritten in
// place under an exclusive flock of the file itself, read under a shared one, so no reader sees
// half a write and no update is lost between two hooks. In place, not renamed: the hook's sandbox
// allows neither rename nor truncate after start-up (host/sandbox/sandbox_rules.cc).
#pragma once

#include <chrono>
#include <functional>
#include <optional>
#include <string>
#include <string_view>

namespace gnh {

// Opens `path` (a path on this machine; created 0644, and its parent directory 0755, when absent;
// no symlink followed), locks it, and writes update(old text) over it from offset 0. A new text
// shorter than the old is padded with '\n' to the old length. Failure naming the file and errno, or
// when the lock is not had within `wait` (a holder stopped mid-update); the file is then unchanged.
void update_in_place(const std::string& path, std::chrono::milliseconds wait,
                     const std::function<std::string(std::string_view old_text)>& update);

// The whole file, read under a shared lock; nullopt when absent. Failure as above, or when it is
// larger than max_bytes.
std::optional<std::string> read_in_place(const std::string& path, std::chrono::milliseconds wait,
                                         size_t max_bytes = 4096);

}  // namespace gnh
