// For tests of the host layer: the errno a failing call's gnh::Error carries (0 when it succeeds).
#pragma once

#include <functional>

#include "base/error.h"

inline int errno_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const gnh::Error& e) {
    return e.error_number();
  }
  return 0;
}
