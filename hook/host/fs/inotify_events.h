// Reading inotify(7) events: whether a batch read from the descriptor names a given file.
#pragma once

#include <sys/inotify.h>
#include <sys/types.h>

#include <string_view>

namespace gnh {

// True when one of the events in buf[0, n) is about `name` in the watched folder.
inline bool inotify_events_name(const char* buf, ssize_t n, std::string_view name) {
  for (ssize_t at = 0; at + ssize_t(sizeof(inotify_event)) <= n;) {
    const auto* e = reinterpret_cast<const inotify_event*>(buf + at);
    if (e->len > 0 && std::string_view(e->name) == name) return true;
    at += ssize_t(sizeof(inotify_event)) + e->len;
  }
  return false;
}

}  // namespace gnh
