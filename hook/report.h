// What operators and tools see: the one-line refusal, explain's and topology's output.
#pragma once

#include <string>

#include "evaluation.h"
#include "gpu.h"
#include "node_set.h"

namespace gnh {

// "gpu-numa-hook: container <id>: refusing start: <message>"
std::string refusal_line(const std::string& container_id, const std::string& message);
// "gpu-numa-hook: container <id>: error: <message>"
std::string error_line(const std::string& container_id, const std::string& message);

// explain --json: one object (see README for the fields).
std::string explain_json(const Evaluation& ev);
std::string explain_text(const Evaluation& ev);

std::string topology_json(const Inventory& inv, const NodeSet& memory_nodes);
std::string topology_text(const Inventory& inv, const NodeSet& memory_nodes);

}  // namespace gnh
