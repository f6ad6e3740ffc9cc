// What operators and tools see from explain and topology (the hook's own lines: decide/verdict.h).
#pragma once

#include <string>

#include "decide/evaluation.h"
#include "gpu/gpu.h"
#include "base/node_set.h"

namespace gnh {

// explain --json: one object (see README for the fields).
std::string explain_json(const Evaluation& ev);
std::string explain_text(const Evaluation& ev);

std::string topology_json(const Inventory& inv, const NodeSet& memory_nodes);
std::string topology_text(const Inventory& inv, const NodeSet& memory_nodes);

}  // namespace gnh
