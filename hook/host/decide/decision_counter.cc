#include "host/decide/decision_counter.h"

#include <chrono>

#include "host/fs/in_place_file.h"

namespace gnh {

// Another hook holds the lock for microseconds; a wait this short cannot delay a container start
// noticeably even when a holder is stopped mid-update.
constexpr std::chrono::milliseconds kCountWait{50};
constexpr std::chrono::milliseconds kReadWait{1000};

void count_decision(const HostFs& fs, std::string_view action) {
  update_in_place(fs.resolve(kDecisionCountsPath), kCountWait,
                  [&](std::string_view old_text) { return counted_once_more(old_text, action); });
}

std::optional<DecisionCounts> read_decision_counts(const HostFs& fs) {
  auto text = read_in_place(fs.resolve(kDecisionCountsPath), kReadWait);
  if (!text) return DecisionCounts{};
  return parse_decision_counts(*text);
}

}  // namespace gnh
