/* A fake libnvidia-ml.so.1 for the tests: the NVML entry points gpu-numa-nvml-probe uses, with
 * NVML's real signatures (hook/probe/nvml_api.h), answering from a small topology file so that one
 * library models several hosts. The only thing faked (NVML cannot exist on this machine).
 *
 * The file is $FAKE_NVML_TOPOLOGY, else fake-nvml-topology.txt beside the library (the probe runs
 * with a minimal environment when `topology --refresh` starts it). One entry per line:
 *   driver 570.124.06
 *   gpu <uuid> <minor> <NVML bus id> <node|-1> <enabled|disabled|unsupported>
 *   mig <index> <uuid> <gpu instance id> <compute instance id> <node|-1>   (of the gpu line above)
 *   fail <function name> <nvmlReturn_t>                                      (that call fails)
 *   cuda <version as NVML gives it, 1000 * major + 10 * minor, e.g. 13000>
 *   gpuinfo <nvmlBrandType_t value> <compute capability major> <minor>         (of the gpu line above)
 * Without a cuda line nvmlSystemGetCudaDriverVersion(_v2) answer NOT_SUPPORTED; without gpuinfo the
 * GPU's brand and compute capability do.
 * NUMA node -1 answers NVML_ERROR_NOT_SUPPORTED, as on the real H200 host. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nvml_api.h"

#define API __attribute__((visibility("default")))
#define MAX_GPUS 16
#define MAX_MIGS 16

struct nvmlDevice_st {
  int gpu;
  int mig; /* -1: the GPU itself */
};

struct fake_mig {
  unsigned index, gi, ci;
  int node;
  char uuid[96];
  struct nvmlDevice_st handle;
};
struct fake_gpu {
  char uuid[96], bus[32], mig_mode[16];
  unsigned minor;
  int node;
  int migs;
  struct fake_mig mig[MAX_MIGS];
  int has_info, brand, cc_major, cc_minor;
  struct nvmlDevice_st handle;
};

static struct fake_gpu gpus[MAX_GPUS];
static int ngpus = -1;
static int initialized;
static char driver[64] = "0.0";
static int cuda_version = -1;
static char fail_name[64];
static int fail_code;

static const char* topology_path(void) {
  const char* env = getenv("FAKE_NVML_TOPOLOGY");
  if (env && *env) return env;
  static char path[4096];
  Dl_info info;
  if (!dladdr((void*)&topology_path, &info) || !info.dli_fname) return NULL;
  char dir[4096];
  snprintf(dir, sizeof dir, "%s", info.dli_fname);
  snprintf(path, sizeof path, "%s/fake-nvml-topology.txt", dirname(dir));
  return path;
}

static int load(void) {
  if (ngpus >= 0) return 0;
  const char* path = topology_path();
  FILE* f = path ? fopen(path, "re") : NULL;
  if (!f) return -1;
  ngpus = 0;
  char line[512];
  while (fgets(line, sizeof line, f)) {
    struct fake_gpu* g = ngpus > 0 ? &gpus[ngpus - 1] : NULL;
    if (sscanf(line, "driver %63s", driver) == 1) continue;
    if (sscanf(line, "fail %63s %d", fail_name, &fail_code) == 2) continue;
    if (sscanf(line, "cuda %d", &cuda_version) == 1) continue;
    if (g && sscanf(line, "gpuinfo %d %d %d", &g->brand, &g->cc_major, &g->cc_minor) == 3) {
      g->has_info = 1;
      continue;
    }
    if (ngpus < MAX_GPUS && strncmp(line, "gpu ", 4) == 0) {
      struct fake_gpu* n = &gpus[ngpus];
      if (sscanf(line, "gpu %95s %u %31s %d %15s", n->uuid, &n->minor, n->bus, &n->node, n->mig_mode) == 5) {
        n->handle.gpu = ngpus;
        n->handle.mig = -1;
        ++ngpus;
      }
      continue;
    }
    if (g && g->migs < MAX_MIGS && strncmp(line, "mig ", 4) == 0) {
      struct fake_mig* m = &g->mig[g->migs];
      if (sscanf(line, "mig %u %95s %u %u %d", &m->index, m->uuid, &m->gi, &m->ci, &m->node) == 5) {
        m->handle.gpu = ngpus - 1;
        m->handle.mig = g->migs;
        ++g->migs;
      }
    }
  }
  fclose(f);
  return 0;
}

static int failing(const char* name) { return fail_name[0] && strcmp(fail_name, name) == 0; }
#define FAIL_IF_ASKED(name) \
  if (failing(name)) return fail_code

static nvmlReturn_t copy(char* out, unsigned int length, const char* s) {
  if (!out) return NVML_ERROR_INVALID_ARGUMENT;
  if (strlen(s) + 1 > length) return 7; /* NVML_ERROR_INSUFFICIENT_SIZE */
  strcpy(out, s);
  return NVML_SUCCESS;
}

static struct fake_gpu* gpu_of(nvmlDevice_t d) {
  return d && d->gpu >= 0 && d->gpu < ngpus ? &gpus[d->gpu] : NULL;
}

API nvmlReturn_t nvmlInit_v2(void) {
  if (load() != 0) return NVML_ERROR_UNKNOWN;
  FAIL_IF_ASKED("nvmlInit_v2");
  initialized = 1;
  return NVML_SUCCESS;
}
API nvmlReturn_t nvmlShutdown(void) {
  if (!initialized) return NVML_ERROR_UNINITIALIZED;
  initialized = 0;
  return NVML_SUCCESS;
}
API const char* nvmlErrorString(nvmlReturn_t r) {
  switch (r) {
    case NVML_SUCCESS: return "Success";
    case NVML_ERROR_UNINITIALIZED: return "Uninitialized";
    case NVML_ERROR_INVALID_ARGUMENT: return "Invalid Argument";
    case NVML_ERROR_NOT_SUPPORTED: return "Not Supported";
    case NVML_ERROR_NOT_FOUND: return "Not Found";
    case 9: return "Driver Not Loaded";
    default: return "Unknown Error";
  }
}
API nvmlReturn_t nvmlSystemGetDriverVersion(char* version, unsigned int length) {
  if (!initialized) return NVML_ERROR_UNINITIALIZED;
  return copy(version, length, driver);
}
API nvmlReturn_t nvmlDeviceGetCount_v2(unsigned int* count) {
  if (!initialized) return NVML_ERROR_UNINITIALIZED;
  if (!count) return NVML_ERROR_INVALID_ARGUMENT;
  *count = (unsigned)ngpus;
  return NVML_SUCCESS;
}
API nvmlReturn_t nvmlDeviceGetHandleByIndex_v2(unsigned int index, nvmlDevice_t* device) {
  if (!initialized) return NVML_ERROR_UNINITIALIZED;
  if (!device || index >= (unsigned)ngpus) return NVML_ERROR_INVALID_ARGUMENT;
  *device = &gpus[index].handle;
  return NVML_SUCCESS;
}
API nvmlReturn_t nvmlDeviceGetUUID(nvmlDevice_t d, char* uuid, unsigned int length) {
  struct fake_gpu* g = gpu_of(d);
  if (!g) return NVML_ERROR_INVALID_ARGUMENT;
  return copy(uuid, length, d->mig < 0 ? g->uuid : g->mig[d->mig].uuid);
}
API nvmlReturn_t nvmlDeviceGetMinorNumber(nvmlDevice_t d, unsigned int* minor) {
  struct fake_gpu* g = gpu_of(d);
  if (!g || !minor || d->mig >= 0) return NVML_ERROR_INVALID_ARGUMENT;
  *minor = g->minor;
  return NVML_SUCCESS;
}
API nvmlReturn_t nvmlDeviceGetPciInfo_v3(nvmlDevice_t d, nvmlPciInfo_t* pci) {
  struct fake_gpu* g = gpu_of(d);
  if (!g || !pci) return NVML_ERROR_INVALID_ARGUMENT;
  memset(pci, 0, sizeof *pci);
  snprintf(pci->busId, sizeof pci->busId, "%s", g->bus);
  sscanf(g->bus, "%x:%x:%x", &pci->domain, &pci->bus, &pci->device);
  return NVML_SUCCESS;
}
API nvmlReturn_t nvmlDeviceGetNumaNodeId(nvmlDevice_t d, unsigned int* node) {
  struct fake_gpu* g = gpu_of(d);
  if (!g || !node) return NVML_ERROR_INVALID_ARGUMENT;
  FAIL_IF_ASKED("nvmlDeviceGetNumaNodeId");
  int n = d->mig < 0 ? g->node : g->mig[d->mig].node;
  if (n < 0) return NVML_ERROR_NOT_SUPPORTED;
  *node = (unsigned)n;
  return NVML_SUCCESS;
}
API nvmlReturn_t nvmlDeviceGetMigMode(nvmlDevice_t d, unsigned int* current, unsigned int* pending) {
  struct fake_gpu* g = gpu_of(d);
  if (!g || !current || !pending) return NVML_ERROR_INVALID_ARGUMENT;
  if (strcmp(g->mig_mode, "unsupported") == 0) return NVML_ERROR_NOT_SUPPORTED;
  *current = *pending = strcmp(g->mig_mode, "enabled") == 0 ? NVML_DEVICE_MIG_ENABLE : NVML_DEVICE_MIG_DISABLE;
  return NVML_SUCCESS;
}
API nvmlReturn_t nvmlDeviceGetMaxMigDeviceCount(nvmlDevice_t d, unsigned int* count) {
  struct fake_gpu* g = gpu_of(d);
  if (!g || !count) return NVML_ERROR_INVALID_ARGUMENT;
  *count = 7; /* A100/H100/GB200: at most 7 GPU instances */
  return NVML_SUCCESS;
}
API nvmlReturn_t nvmlDeviceGetMigDeviceHandleByIndex(nvmlDevice_t d, unsigned int index, nvmlDevice_t* mig) {
  struct fake_gpu* g = gpu_of(d);
  if (!g || !mig || d->mig >= 0) return NVML_ERROR_INVALID_ARGUMENT;
  for (int i = 0; i < g->migs; ++i)
    if (g->mig[i].index == index) {
      *mig = &g->mig[i].handle;
      return NVML_SUCCESS;
    }
  return NVML_ERROR_NOT_FOUND; /* indices are sparse */
}
API nvmlReturn_t nvmlDeviceGetGpuInstanceId(nvmlDevice_t d, unsigned int* id) {
  struct fake_gpu* g = gpu_of(d);
  if (!g || !id) return NVML_ERROR_INVALID_ARGUMENT;
  if (d->mig < 0) return NVML_ERROR_NOT_SUPPORTED;
  *id = g->mig[d->mig].gi;
  return NVML_SUCCESS;
}
API nvmlReturn_t nvmlDeviceGetComputeInstanceId(nvmlDevice_t d, unsigned int* id) {
  struct fake_gpu* g = gpu_of(d);
  if (!g || !id) return NVML_ERROR_INVALID_ARGUMENT;
  if (d->mig < 0) return NVML_ERROR_NOT_SUPPORTED;
  *id = g->mig[d->mig].ci;
  return NVML_SUCCESS;
}

static nvmlReturn_t cuda_driver_version(int* v) {
  if (!initialized) return NVML_ERROR_UNINITIALIZED;
  if (!v) return NVML_ERROR_INVALID_ARGUMENT;
  if (cuda_version < 0) return NVML_ERROR_NOT_SUPPORTED;
  *v = cuda_version;
  return NVML_SUCCESS;
}
API nvmlReturn_t nvmlSystemGetCudaDriverVersion_v2(int* v) {
  FAIL_IF_ASKED("nvmlSystemGetCudaDriverVersion_v2");
  return cuda_driver_version(v);
}
API nvmlReturn_t nvmlSystemGetCudaDriverVersion(int* v) {
  FAIL_IF_ASKED("nvmlSystemGetCudaDriverVersion");
  return cuda_driver_version(v);
}
API nvmlReturn_t nvmlDeviceGetBrand(nvmlDevice_t d, int* type) {
  struct fake_gpu* g = gpu_of(d);
  if (!g || !type || d->mig >= 0) return NVML_ERROR_INVALID_ARGUMENT;
  if (!g->has_info) return NVML_ERROR_NOT_SUPPORTED;
  *type = g->brand;
  return NVML_SUCCESS;
}
API nvmlReturn_t nvmlDeviceGetCudaComputeCapability(nvmlDevice_t d, int* major, int* minor) {
  struct fake_gpu* g = gpu_of(d);
  if (!g || !major || !minor) return NVML_ERROR_INVALID_ARGUMENT;
  if (!g->has_info) return NVML_ERROR_NOT_SUPPORTED;
  *major = g->cc_major;
  *minor = g->cc_minor;
  return NVML_SUCCESS;
}

/* Each definition above must have NVML's signature as nvml_api.h declares it: assigning it to a
 * pointer of that type fails to compile otherwise (-Werror=incompatible-pointer-types). */
#define SIGNATURE_CHECK(name, params, args) \
  __attribute__((unused)) static nvmlReturn_t(*const check_##name) params = name;
GNH_NVML_FUNCTIONS(SIGNATURE_CHECK)
GNH_NVML_OPTIONAL_FUNCTIONS(SIGNATURE_CHECK)
__attribute__((unused)) static const gnh_nvmlErrorString_fn check_nvmlErrorString = nvmlErrorString;
