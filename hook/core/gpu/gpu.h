// What we know about one NVIDIA GPU: identity from the driver, its own memory node (coherent GPUs:
// AC922 NVLink2, Grace Hopper/Blackwell) and its nearest node (PCIe affinity).
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace gnh {

// A MIG device the container gets, from the NVML cache (gpu/nvml_cache.h).
struct MigInstance {
  std::string uuid;                // "MIG-<uuid>"
  std::string index;               // "<gpu>:<mig>", NVML's indices
  unsigned gpu_instance_id = 0;
  unsigned compute_instance_id = 0;
  std::optional<int> memory_node;  // the GPU instance's memory node; nullopt = none
};

struct Gpu {
  unsigned minor = 0;          // /dev/nvidia<minor>
  std::string bus_id;          // "0000:00:06.0", lower case, as the driver's directory name
  std::string uuid;            // "GPU-f0586c67-..."
  std::string model;
  // Grace: the driver adds this GPU's memory itself at GPU initialization (gpu/self_onlining.h).
  // Read only for a GPU whose numa_status says offline, the one state where it changes the meaning.
  bool self_onlining = false;
  std::string driver_dir;      // its directory in /proc/driver/nvidia/gpus (the bus id as the driver wrote it)
  std::optional<int> memory_node;            // numa_status Node, when the GPU's memory is a node
  std::optional<std::string> memory_status;  // numa_status Status ("online", "offline", ...)
  // numa_status exists but could not be read: its errno and the error (file and errno) for the
  // operator. EIO is what the driver returns while MIG instances are active (no node then).
  int memory_read_errno = 0;
  std::string memory_read_error;
  std::optional<int> affinity_node;          // sysfs numa_node; nullopt for -1
  bool overridden = false;                   // a config override changed a node
  // MIG state (numa_status EIO) with a current NVML cache: the instances the container gets, whose
  // memory nodes it then needs. Empty otherwise.
  std::vector<MigInstance> mig_instances;

  std::string device_path() const { return "/dev/nvidia" + std::to_string(minor); }
  // "/dev/nvidia3 (0004:05:00.0)" for messages.
  std::string label() const { return device_path() + " (" + bus_id + ")"; }
  bool memory_online() const { return memory_status && *memory_status == "online"; }
};

// All GPUs the driver shows, in PCI bus id order (the order NVML enumerates indices in,
// docs/reference/gpus-and-nodes.md).
struct Inventory {
  std::vector<Gpu> gpus;
};

}  // namespace gnh
