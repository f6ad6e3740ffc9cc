// What operators and tools see from explain and topology (the hook's own lines: decide/verdict.h).
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "decide/evaluation.h"
#include "gpu/gpu.h"
#include "gpu/memory_mode.h"
#include "base/node_set.h"
#include "report/container_names.h"
#include "report/json_schema.h"
#include "require/cuda_requirement.h"

namespace gnh {

// explain --json: one object (fields in docs/operate.md). names: the pod from config.json's
// annotations, when the engine set them.
std::string explain_json(const Evaluation& ev, const ContainerNames& names = {});
std::string explain_text(const Evaluation& ev, const ContainerNames& names = {});

// "driver memory mode: numa (CoherentGPUMemoryMode: \"numa\")"
std::string memory_mode_line(const DriverMemoryMode& mode);

// auto_online_blocks: read when a Grace GPU is not initialized yet (driver_reader.h), else "".
// cuda: the driver's version and the CUDA version it supports (docs/reference/cuda-requirements.md), or nullptr.
std::string topology_json(const Inventory& inv, const NodeSet& memory_nodes, const DriverMemoryMode& mode,
                          const std::string& auto_online_blocks = "", const HostFacts* cuda = nullptr);
std::string topology_text(const Inventory& inv, const NodeSet& memory_nodes, const DriverMemoryMode& mode,
                          const std::string& auto_online_blocks = "", const HostFacts* cuda = nullptr);

// {"driver_version": "580.159.04", "cuda_version": "13.0", "cuda_version_source": "NVML, ..."}
nlohmann::json cuda_facts_json(const HostFacts& host);

}  // namespace gnh
