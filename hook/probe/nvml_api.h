/* The few NVML declarations gpu-numa-nvml-probe uses, written from the facts of NVIDIA's public
 * nvml.h (types, constants and signatures; no header is vendored): the probe and the tests' fake
 * libnvidia-ml.so.1 share them, so both keep the real signatures. */
#ifndef GNH_NVML_API_H
#define GNH_NVML_API_H

typedef int nvmlReturn_t; /* an enum in nvml.h: int-sized */
typedef struct nvmlDevice_st* nvmlDevice_t;

enum {
  NVML_SUCCESS = 0,
  NVML_ERROR_UNINITIALIZED = 1,
  NVML_ERROR_INVALID_ARGUMENT = 2,
  NVML_ERROR_NOT_SUPPORTED = 3,
  NVML_ERROR_NOT_FOUND = 6,
  NVML_ERROR_UNKNOWN = 999,
};

#define NVML_DEVICE_MIG_DISABLE 0x0
#define NVML_DEVICE_MIG_ENABLE 0x1
#define NVML_DEVICE_UUID_V2_BUFFER_SIZE 96
#define NVML_SYSTEM_DRIVER_VERSION_BUFFER_SIZE 80
#define NVML_DEVICE_PCI_BUS_ID_BUFFER_SIZE 32
#define NVML_DEVICE_PCI_BUS_ID_BUFFER_V2_SIZE 16

typedef struct nvmlPciInfo_st {
  char busIdLegacy[NVML_DEVICE_PCI_BUS_ID_BUFFER_V2_SIZE];
  unsigned int domain;
  unsigned int bus;
  unsigned int device;
  unsigned int pciDeviceId;
  unsigned int pciSubSystemId;
  char busId[NVML_DEVICE_PCI_BUS_ID_BUFFER_SIZE]; /* "00000000:01:00.0" */
} nvmlPciInfo_t;

/* One X-macro list: the probe resolves each with dlsym, the fake library defines each. */
#define GNH_NVML_FUNCTIONS(X)                                                                         \
  X(nvmlInit_v2, (void), ())                                                                         \
  X(nvmlShutdown, (void), ())                                                                        \
  X(nvmlSystemGetDriverVersion, (char* version, unsigned int length), (version, length))             \
  X(nvmlDeviceGetCount_v2, (unsigned int* deviceCount), (deviceCount))                               \
  X(nvmlDeviceGetHandleByIndex_v2, (unsigned int index, nvmlDevice_t* device), (index, device))      \
  X(nvmlDeviceGetUUID, (nvmlDevice_t device, char* uuid, unsigned int length), (device, uuid, length)) \
  X(nvmlDeviceGetMinorNumber, (nvmlDevice_t device, unsigned int* minorNumber), (device, minorNumber)) \
  X(nvmlDeviceGetPciInfo_v3, (nvmlDevice_t device, nvmlPciInfo_t* pci), (device, pci))               \
  X(nvmlDeviceGetNumaNodeId, (nvmlDevice_t device, unsigned int* node), (device, node))              \
  X(nvmlDeviceGetMigMode, (nvmlDevice_t device, unsigned int* currentMode, unsigned int* pendingMode), \
    (device, currentMode, pendingMode))                                                              \
  X(nvmlDeviceGetMaxMigDeviceCount, (nvmlDevice_t device, unsigned int* count), (device, count))     \
  X(nvmlDeviceGetMigDeviceHandleByIndex, (nvmlDevice_t device, unsigned int index, nvmlDevice_t* migDevice), \
    (device, index, migDevice))                                                                      \
  X(nvmlDeviceGetGpuInstanceId, (nvmlDevice_t device, unsigned int* id), (device, id))               \
  X(nvmlDeviceGetComputeInstanceId, (nvmlDevice_t device, unsigned int* id), (device, id))

/* Asked for NVIDIA_REQUIRE_* (docs/reference/cuda-requirements.md), each optional: a library without one
 * leaves its field out of the cache. nvmlBrandType_t is an enum (int-sized); the CUDA version is
 * 1000 * major + 10 * minor (13000 for 13.0). */
#define GNH_NVML_OPTIONAL_FUNCTIONS(X)                                                              \
  X(nvmlSystemGetCudaDriverVersion_v2, (int* cudaDriverVersion), (cudaDriverVersion))                \
  X(nvmlSystemGetCudaDriverVersion, (int* cudaDriverVersion), (cudaDriverVersion))                   \
  X(nvmlDeviceGetBrand, (nvmlDevice_t device, int* type), (device, type))                            \
  X(nvmlDeviceGetCudaComputeCapability, (nvmlDevice_t device, int* major, int* minor), (device, major, minor))

/* nvmlBrandType_t's values as the requirement names them (libnvidia-container and nvidia/cuda's
 * brand= clauses): index = the enum's value, NVML_BRAND_UNKNOWN (0) .. NVML_BRAND_TITAN_RTX (16). */
#define GNH_NVML_BRAND_NAMES                                                                        \
  {"unknown", "quadro", "tesla", "nvs", "grid", "geforce", "titan", "nvidiavapps", "nvidiavpc", "nvidiavcs", \
   "nvidiavws", "nvidiacloudgaming", "quadrortx", "nvidiartx", "nvidia", "geforcertx", "titanrtx"}

/* nvmlErrorString returns a string, not an nvmlReturn_t: declared apart. */
typedef const char* (*gnh_nvmlErrorString_fn)(nvmlReturn_t result);

#endif
