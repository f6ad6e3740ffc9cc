// How many container starts the hook did not simply allow, by what it did, since the node booted:
// the counter file the hook updates and `check --prometheus` exports as
// gpu_numa_hook_decisions_total{action=...}. Pure: which verdicts count, the file's text.
//
// Why a file of counts and not the log: the log may be syslog or the journal, kept at level warn,
// or rotated (a count read from its tail goes back, and what was rotated away between two scrapes
// is lost). Why only these verdicts: "allow" is the fast path of every non-GPU container and must
// not gain file I/O; patch, refuse, warn and error are rare, and the hook writes anyway for them.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "decide/verdict.h"

namespace gnh {

// On /run: counts since boot (a counter's reset at reboot is normal for Prometheus).
constexpr const char* kDecisionCountsPath = "/run/gpu-numa-hook/decisions";

// What is counted, in the file's order and the metric's label values: a patch carried out; a
// refused start (the policy's, a failed patch's, an error under on-error=refuse, a failed next
// hook); a warning (started as it was); an error of the hook that let the container start.
constexpr std::array<const char*, 4> kCountedDecisions = {"patch", "refuse", "warn", "error"};

struct DecisionCounts {
  std::array<uint64_t, kCountedDecisions.size()> n{};
  // Counts `action` (one of kCountedDecisions); false for any other.
  bool add(std::string_view action);
  uint64_t of(std::string_view action) const;
};

// The label a verdict is counted under; nullopt for a plain allow (not counted).
std::optional<std::string> counted_decision(const Verdict& v);

// Every count on its own line, fixed width (20 digits, uint64's widest), so the text never changes
// length: the hook rewrites it in place, as its sandbox allows neither rename nor truncate.
std::string format_decision_counts(const DecisionCounts& c);
// nullopt when the text is not such a file. Blank lines are skipped (a shorter text written over a
// longer one is padded with them); names this build does not count are ignored.
std::optional<DecisionCounts> parse_decision_counts(std::string_view text);

// The file's new text after one more `action`: what the hook writes under the file's lock. A text
// that is not such a file (damaged) starts the counts again from zero, as a reboot would.
std::string counted_once_more(std::string_view old_text, std::string_view action);

}  // namespace gnh
