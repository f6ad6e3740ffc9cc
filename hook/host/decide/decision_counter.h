// The hook's decision counts on the host (decide/decision_counts.h): counted by the hook after it
// decided, read by `check --prometheus`.
#pragma once

#include <optional>
#include <string_view>

#include "decide/decision_counts.h"
#include "host/fs/host_fs.h"

namespace gnh {

// One more `action` in kDecisionCountsPath beneath fs's root. Failure when it cannot be counted
// (a read-only /run, the file's lock held past a short wait): the caller's verdict stands.
void count_decision(const HostFs& fs, std::string_view action);

// All zeros when there is no file (nothing counted since boot); nullopt when it is not such a
// file. Failure when it cannot be read.
std::optional<DecisionCounts> read_decision_counts(const HostFs& fs);

}  // namespace gnh
