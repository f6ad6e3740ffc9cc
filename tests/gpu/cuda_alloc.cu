// cuda_alloc: the smallest proof that CUDA works inside a container: cudaMalloc, cudaMemset,
// a copy back to check one byte, cudaFree. Prints `cuda_alloc: OK <bytes>` and exits 0, or
// `cuda_alloc: FAIL <step>: <error>` and exits 1. Also prints the device, its PCI bus id and the
// process's Mems_allowed_list, so a log shows which GPU and which memory nodes the process had.
//
// Build (static CUDA runtime, the nvcc default, so a container needs only the driver's libraries):
//   nvcc -O2 -cudart static -o cuda_alloc cuda_alloc.cu
// Usage: cuda_alloc [MiB]   (default 256)
#include <cuda_runtime.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>

static int fail(const char* step, cudaError_t e) {
    std::printf("cuda_alloc: FAIL %s: %s (%s, %d)\n", step, cudaGetErrorString(e), cudaGetErrorName(e), int(e));
    return 1;
}

static void print_mems_allowed() {
    FILE* f = std::fopen("/proc/self/status", "r");
    if (!f) return;
    char line[512];
    while (std::fgets(line, sizeof line, f))
        if (std::strncmp(line, "Mems_allowed_list:", 18) == 0) std::printf("cuda_alloc: %s", line);
    std::fclose(f);
}

int main(int argc, char** argv) {
    size_t mib = argc > 1 ? std::strtoull(argv[1], nullptr, 10) : 256;
    size_t bytes = mib << 20;
    print_mems_allowed();

    int count = 0;
    cudaError_t e = cudaGetDeviceCount(&count);
    if (e != cudaSuccess) return fail("cudaGetDeviceCount", e);
    int driver = 0, runtime = 0;
    cudaDriverGetVersion(&driver);
    cudaRuntimeGetVersion(&runtime);
    cudaDeviceProp prop;
    if ((e = cudaGetDeviceProperties(&prop, 0)) != cudaSuccess) return fail("cudaGetDeviceProperties", e);
    char bus[32] = "";
    cudaDeviceGetPCIBusId(bus, sizeof bus, 0);
    std::printf("cuda_alloc: %d device(s); device 0: %s, bus %s, driver API %d, runtime %d\n", count, prop.name, bus,
                driver, runtime);

    void* p = nullptr;
    if ((e = cudaMalloc(&p, bytes)) != cudaSuccess) return fail("cudaMalloc", e);
    if ((e = cudaMemset(p, 0x5a, bytes)) != cudaSuccess) return fail("cudaMemset", e);
    if ((e = cudaDeviceSynchronize()) != cudaSuccess) return fail("cudaDeviceSynchronize", e);
    unsigned char probe[2] = {0, 0};
    if ((e = cudaMemcpy(&probe[0], p, 1, cudaMemcpyDeviceToHost)) != cudaSuccess) return fail("cudaMemcpy", e);
    if ((e = cudaMemcpy(&probe[1], static_cast<char*>(p) + bytes - 1, 1, cudaMemcpyDeviceToHost)) != cudaSuccess)
        return fail("cudaMemcpy", e);
    if (probe[0] != 0x5a || probe[1] != 0x5a) {
        std::printf("cuda_alloc: FAIL check: read back 0x%02x 0x%02x, want 0x5a\n", probe[0], probe[1]);
        return 1;
    }
    if ((e = cudaFree(p)) != cudaSuccess) return fail("cudaFree", e);
    std::printf("cuda_alloc: OK %zu\n", bytes);
    return 0;
}
