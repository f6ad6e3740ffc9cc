#include "failure.h"

#include <cstring>

namespace gnh {

std::string errno_text(int err) {
  const char* name = strerrorname_np(err);
  std::string text = name ? name : ("errno " + std::to_string(err));
  return text + " (" + strerror(err) + ")";
}

}  // namespace gnh
