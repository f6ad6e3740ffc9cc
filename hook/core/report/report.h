// What operators and tools see from explain and topology (the hook's own lines: decide/verdict.h).
#pragma once

#include <string>

#include "decide/evaluation.h"
#include "gpu/gpu.h"
#include "gpu/memory_mode.h"
#include "base/node_set.h"
#include "report/container_names.h"
#include "report/json_schema.h"

namespace gnh {

// explain --json: one object (fields in docs/operate.md). names: the pod from config.json's
// annotations, when the engine set them.
std::string explain_json(const Evaluation& ev, const ContainerNames& names = {});
std::string explain_text(const Evaluation& ev, const ContainerNames& names = {});

// "driver memory mode: numa (CoherentGPUMemoryMode: \"numa\")"
std::string memory_mode_line(const DriverMemoryMode& mode);

// auto_online_blocks: read when a Grace GPU is not initialized yet (driver_reader.h), else "".
std::string topology_json(const Inventory& inv, const NodeSet& memory_nodes, const DriverMemoryMode& mode,
                          const std::string& auto_online_blocks = "");
std::string topology_text(const Inventory& inv, const NodeSet& memory_nodes, const DriverMemoryMode& mode,
                          const std::string& auto_online_blocks = "");

}  // namespace gnh
