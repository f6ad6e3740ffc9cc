#include "check/fix_outcome.h"

#include <algorithm>

namespace gnh {

size_t FixOutcome::fixed() const {
  return static_cast<size_t>(std::count_if(results.begin(), results.end(), [](const FixResult& r) { return r.written; }));
}

size_t FixOutcome::failed() const {
  return static_cast<size_t>(
      std::count_if(results.begin(), results.end(), [](const FixResult& r) { return !r.error.empty(); }));
}

size_t FixOutcome::removed() const {
  return static_cast<size_t>(std::count_if(results.begin(), results.end(), [](const FixResult& r) { return r.removed; }));
}

size_t FixOutcome::busy() const {
  return static_cast<size_t>(std::count_if(results.begin(), results.end(), [](const FixResult& r) { return r.busy_tasks > 0; }));
}

}  // namespace gnh
