/* gpu-numa-nvml-probe: asks the host's NVML what the driver's procfs does not say (MIG devices,
 * their UUIDs and indices, each GPU instance's memory node) and prints it as the NVML cache's JSON
 * (hook/core/gpu/nvml_cache.h, docs/platforms/mig.md) on stdout. `gpu-numa-hook topology --refresh` runs it
 * and writes the cache; the hook itself never loads NVML (it is a static PIE under seccomp, and a
 * container start must not wait for NVML's initialization).
 *
 * A separate, dynamically linked C program (libc only) because dlopen needs the dynamic loader.
 *
 *   gpu-numa-nvml-probe [--nvml /abs/path/libnvidia-ml.so.1] [--boot-id-file FILE]
 * Exit 0: the JSON was printed. Exit 2: one line on stderr saying what failed. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "nvml_api.h"

/* The host's library directories, in the order distributions use them. Only absolute paths are
 * ever given to dlopen: with a '/' in the name the loader searches nothing, so neither
 * LD_LIBRARY_PATH, nor a RUNPATH, nor ld.so.cache, nor the current directory can substitute a
 * library; and no path here is inside a container's root filesystem, whose files a container's
 * creator controls and which this program (run as root) must never load. */
static const char* const kLibraryDirs[] = {
    "/usr/lib/x86_64-linux-gnu", "/usr/lib/aarch64-linux-gnu", "/usr/lib/powerpc64le-linux-gnu", "/usr/lib64",
    "/usr/lib",
};
static const char kLibraryName[] = "libnvidia-ml.so.1";

#define DECLARE_FN(name, params, args) static nvmlReturn_t(*p_##name) params;
GNH_NVML_FUNCTIONS(DECLARE_FN)
GNH_NVML_OPTIONAL_FUNCTIONS(DECLARE_FN)
static gnh_nvmlErrorString_fn p_nvmlErrorString;

static void die(const char* fmt, ...) __attribute__((format(printf, 1, 2), noreturn));
static void die(const char* fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  fputs("gpu-numa-nvml-probe: ", stderr);
  vfprintf(stderr, fmt, ap);
  fputc('\n', stderr);
  va_end(ap);
  exit(2);
}

static const char* nvml_error(nvmlReturn_t r) {
  const char* s = p_nvmlErrorString ? p_nvmlErrorString(r) : NULL;
  return s ? s : "unknown NVML error";
}

static void check(nvmlReturn_t r, const char* what) {
  if (r != NVML_SUCCESS) die("%s failed: %s (%d)", what, nvml_error(r), r);
}

/* `root`: the driver's user-space root, "" for the host's own. Under NVIDIA's GPU operator the driver
 * lives in a container whose root is /run/nvidia/driver on the host: its libraries are in that
 * root's library directories, never the host's. The root comes from our command line, which
 * `gpu-numa-hook topology --refresh` builds from files the administrator controls. */
static void* open_library(const char* explicit_path, const char* root, const char** used) {
  if (explicit_path) {
    if (explicit_path[0] != '/') die("--nvml %s: the library must be given by absolute path", explicit_path);
    void* h = dlopen(explicit_path, RTLD_NOW | RTLD_LOCAL);
    if (!h) die("cannot load %s: %s", explicit_path, dlerror());
    *used = explicit_path;
    return h;
  }
  static char path[4096];
  for (size_t i = 0; i < sizeof kLibraryDirs / sizeof kLibraryDirs[0]; ++i) {
    if ((size_t)snprintf(path, sizeof path, "%s%s/%s", root, kLibraryDirs[i], kLibraryName) >= sizeof path)
      die("--driver-root %.100s: the path is too long", root);
    if (access(path, R_OK) != 0) continue;
    void* h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (!h) die("cannot load %s: %s", path, dlerror());
    *used = path;
    return h;
  }
  if (root[0])
    die("no %s in the driver root %s's library directories (usr/lib/<multiarch>, usr/lib64, usr/lib): is the "
        "driver container running, and is this its root?",
        kLibraryName, root);
  die("no %s in the host's library directories (/usr/lib/<multiarch>, /usr/lib64, /usr/lib): is the NVIDIA "
      "driver's user-space part installed?",
      kLibraryName);
}

static void resolve_symbols(void* h, const char* path) {
#define RESOLVE_FN(name, params, args)                                                  \
  *(void**)(&p_##name) = dlsym(h, #name);                                               \
  if (!p_##name) die("%s has no %s: the driver is too old for this probe", path, #name);
  GNH_NVML_FUNCTIONS(RESOLVE_FN)
  *(void**)(&p_nvmlErrorString) = dlsym(h, "nvmlErrorString");
#define RESOLVE_OPTIONAL_FN(name, params, args) *(void**)(&p_##name) = dlsym(h, #name);
  GNH_NVML_OPTIONAL_FUNCTIONS(RESOLVE_OPTIONAL_FN)
}

/* Only text the cache format accepts is printed, so the JSON needs no escaping and a surprising
 * answer from the library is an error here rather than a broken cache. */
static const char* safe(const char* s, const char* extra, const char* what) {
  if (!*s) die("%s is empty", what);
  for (const char* c = s; *c; ++c)
    if (!((*c >= '0' && *c <= '9') || (*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') || strchr(extra, *c)))
      die("%s '%.100s' has an unexpected character", what, s);
  return s;
}

static int numa_node(nvmlDevice_t d, const char* what) {
  unsigned int node = 0;
  nvmlReturn_t r = p_nvmlDeviceGetNumaNodeId(d, &node);
  if (r == NVML_SUCCESS) {
    if (node > 1023) die("%s: nvmlDeviceGetNumaNodeId gave node %u", what, node);
    return (int)node;
  }
  /* NOT_SUPPORTED: the GPU's memory is not a NUMA node (PCIe GPUs, CDMM). */
  if (r != NVML_ERROR_NOT_SUPPORTED) fprintf(stderr, "gpu-numa-nvml-probe: %s: nvmlDeviceGetNumaNodeId: %s (%d); no node recorded\n", what, nvml_error(r), r);
  return -1;
}

/* The driver's CUDA version ("13.0"), or "" when the library cannot say (the field is then left
 * out and the hook falls back to NVIDIA's driver table). */
static void cuda_version(char* out, size_t size) {
  int v = 0;
  nvmlReturn_t r = NVML_ERROR_NOT_SUPPORTED;
  if (p_nvmlSystemGetCudaDriverVersion_v2) r = p_nvmlSystemGetCudaDriverVersion_v2(&v);
  if (r != NVML_SUCCESS && p_nvmlSystemGetCudaDriverVersion) r = p_nvmlSystemGetCudaDriverVersion(&v);
  out[0] = '\0';
  if (r != NVML_SUCCESS) {
    fprintf(stderr, "gpu-numa-nvml-probe: nvmlSystemGetCudaDriverVersion: %s (%d); no CUDA version recorded\n",
            nvml_error(r), r);
    return;
  }
  if (v <= 0 || v >= 1000000) die("nvmlSystemGetCudaDriverVersion gave %d", v);
  snprintf(out, size, "%d.%d", v / 1000, (v % 1000) / 10);
}

/* ,"brand":"tesla","compute_capability":"9.0" for one GPU: each only when NVML answers. */
static void print_gpu_requirement_facts(nvmlDevice_t d, unsigned index) {
  static const char* const brands[] = GNH_NVML_BRAND_NAMES;
  int brand = 0, major = 0, minor = 0;
  nvmlReturn_t r = p_nvmlDeviceGetBrand ? p_nvmlDeviceGetBrand(d, &brand) : NVML_ERROR_NOT_SUPPORTED;
  if (r == NVML_SUCCESS)
    printf(",\"brand\":\"%s\"", brand >= 0 && (size_t)brand < sizeof brands / sizeof brands[0] ? brands[brand] : "unknown");
  else
    fprintf(stderr, "gpu-numa-nvml-probe: GPU %u: nvmlDeviceGetBrand: %s (%d); no brand recorded\n", index, nvml_error(r), r);
  r = p_nvmlDeviceGetCudaComputeCapability ? p_nvmlDeviceGetCudaComputeCapability(d, &major, &minor)
                                           : NVML_ERROR_NOT_SUPPORTED;
  if (r == NVML_SUCCESS && major >= 0 && major < 1000 && minor >= 0 && minor < 1000)
    printf(",\"compute_capability\":\"%d.%d\"", major, minor);
  else
    fprintf(stderr, "gpu-numa-nvml-probe: GPU %u: nvmlDeviceGetCudaComputeCapability: %s (%d); none recorded\n", index,
            nvml_error(r), r);
}

static void read_boot_id(const char* file, char* out, size_t size) {
  FILE* f = fopen(file, "re");
  if (!f) die("cannot open %s: %s", file, strerror(errno));
  if (!fgets(out, (int)size, f)) die("cannot read %s", file);
  fclose(f);
  out[strcspn(out, "\n")] = '\0';
  safe(out, "-", "boot_id");
}

static void print_mig_devices(nvmlDevice_t gpu, unsigned gpu_index) {
  unsigned int max = 0;
  check(p_nvmlDeviceGetMaxMigDeviceCount(gpu, &max), "nvmlDeviceGetMaxMigDeviceCount");
  if (max > 64) die("GPU %u: nvmlDeviceGetMaxMigDeviceCount gave %u", gpu_index, max);
  const char* sep = "";
  for (unsigned int i = 0; i < max; ++i) {
    nvmlDevice_t mig;
    nvmlReturn_t r = p_nvmlDeviceGetMigDeviceHandleByIndex(gpu, i, &mig);
    /* Indices are sparse: a slot without a MIG device answers NOT_FOUND (or INVALID_ARGUMENT). */
    if (r == NVML_ERROR_NOT_FOUND || r == NVML_ERROR_INVALID_ARGUMENT) continue;
    check(r, "nvmlDeviceGetMigDeviceHandleByIndex");
    char uuid[NVML_DEVICE_UUID_V2_BUFFER_SIZE] = "";
    unsigned int gi = 0, ci = 0;
    char what[48];
    snprintf(what, sizeof what, "MIG device %u:%u", gpu_index, i);
    check(p_nvmlDeviceGetUUID(mig, uuid, sizeof uuid), "nvmlDeviceGetUUID (MIG device)");
    check(p_nvmlDeviceGetGpuInstanceId(mig, &gi), "nvmlDeviceGetGpuInstanceId");
    check(p_nvmlDeviceGetComputeInstanceId(mig, &ci), "nvmlDeviceGetComputeInstanceId");
    printf("%s{\"index\":%u,\"uuid\":\"%s\",\"gpu_instance_id\":%u,\"compute_instance_id\":%u,\"memory_node\":%d}", sep,
           i, safe(uuid, "-/", "MIG UUID"), gi, ci, numa_node(mig, what));
    sep = ",";
  }
}

int main(int argc, char** argv) {
  const char* nvml = NULL;
  const char* root = "";
  const char* boot_id_file = "/proc/sys/kernel/random/boot_id";
  for (int i = 1; i < argc; ++i) {
    if (strcmp(argv[i], "--nvml") == 0 && i + 1 < argc) nvml = argv[++i];
    else if (strcmp(argv[i], "--driver-root") == 0 && i + 1 < argc) {
      root = argv[++i];
      if (root[0] != '/') die("--driver-root %.100s: the root must be given by absolute path", root);
      if (strcmp(root, "/") == 0) root = "";
    }
    else if (strcmp(argv[i], "--boot-id-file") == 0 && i + 1 < argc) boot_id_file = argv[++i];
    else if (strcmp(argv[i], "--help") == 0) {
      puts("usage: gpu-numa-nvml-probe [--nvml /abs/path/libnvidia-ml.so.1 | --driver-root DIR] [--boot-id-file FILE]\n"
           "Prints the NVML cache (GPUs, MIG devices, memory nodes) as JSON; see docs/platforms/mig.md.");
      return 0;
    } else die("unknown argument '%.100s' (try --help)", argv[i]);
  }
  char boot_id[80];
  read_boot_id(boot_id_file, boot_id, sizeof boot_id);

  const char* path = NULL;
  void* h = open_library(nvml, root, &path);
  resolve_symbols(h, path);
  check(p_nvmlInit_v2(), "nvmlInit_v2");
  char version[NVML_SYSTEM_DRIVER_VERSION_BUFFER_SIZE] = "";
  check(p_nvmlSystemGetDriverVersion(version, sizeof version), "nvmlSystemGetDriverVersion");
  unsigned int count = 0;
  check(p_nvmlDeviceGetCount_v2(&count), "nvmlDeviceGetCount_v2");
  if (count > 64) die("nvmlDeviceGetCount_v2 gave %u GPUs", count);

  char cuda[32];
  cuda_version(cuda, sizeof cuda);
  printf("{\"format\":1,\"boot_id\":\"%s\",\"driver_version\":\"%s\",", boot_id, safe(version, ".-", "driver version"));
  if (cuda[0]) printf("\"cuda_version\":\"%s\",", cuda);
  printf("\"gpus\":[");
  for (unsigned int i = 0; i < count; ++i) {
    nvmlDevice_t d;
    check(p_nvmlDeviceGetHandleByIndex_v2(i, &d), "nvmlDeviceGetHandleByIndex_v2");
    char uuid[NVML_DEVICE_UUID_V2_BUFFER_SIZE] = "";
    unsigned int minor = 0, current = 0, pending = 0;
    nvmlPciInfo_t pci;
    memset(&pci, 0, sizeof pci);
    check(p_nvmlDeviceGetUUID(d, uuid, sizeof uuid), "nvmlDeviceGetUUID");
    check(p_nvmlDeviceGetMinorNumber(d, &minor), "nvmlDeviceGetMinorNumber");
    check(p_nvmlDeviceGetPciInfo_v3(d, &pci), "nvmlDeviceGetPciInfo_v3");
    /* NVML writes the domain with 8 digits ("00000000:01:00.0"); the driver's procfs with 4. */
    unsigned int dom = 0, bus = 0, dev = 0, fn = 0;
    pci.busId[sizeof pci.busId - 1] = '\0';
    if (sscanf(pci.busId, "%x:%x:%x.%x", &dom, &bus, &dev, &fn) != 4 || dom > 0xffff || bus > 0xff || dev > 0x1f || fn > 7)
      die("GPU %u: unexpected PCI bus id '%.32s'", i, pci.busId);
    char what[48];
    snprintf(what, sizeof what, "GPU %u", i);
    const char* mig_mode = "unsupported";
    nvmlReturn_t r = p_nvmlDeviceGetMigMode(d, &current, &pending);
    if (r == NVML_SUCCESS) mig_mode = current == NVML_DEVICE_MIG_ENABLE ? "enabled" : "disabled";
    else if (r != NVML_ERROR_NOT_SUPPORTED) check(r, "nvmlDeviceGetMigMode");
    printf("%s{\"index\":%u,\"uuid\":\"%s\",\"minor\":%u,\"bus_id\":\"%04x:%02x:%02x.%x\",\"memory_node\":%d,"
           "\"mig_mode\":\"%s\"",
           i ? "," : "", i, safe(uuid, "-", "GPU UUID"), minor, dom, bus, dev, fn, numa_node(d, what), mig_mode);
    print_gpu_requirement_facts(d, i);
    printf(",\"mig_devices\":[");
    if (current == NVML_DEVICE_MIG_ENABLE && r == NVML_SUCCESS) print_mig_devices(d, i);
    printf("]}");
  }
  printf("]}\n");
  p_nvmlShutdown();
  if (fflush(stdout) != 0 || ferror(stdout)) die("cannot write the output: %s", strerror(errno));
  return 0;
}
