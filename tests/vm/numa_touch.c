// numa_touch: stand-in for CUDA's first allocation on a GPU memory node.
//
//   numa_touch NODE [MIB]
//
// Binds an anonymous mapping to NODE with mbind(MPOL_BIND, MPOL_MF_STRICT), touches MIB MiB
// (default 8), checks with get_mempolicy(MPOL_F_NODE|MPOL_F_ADDR) that every page landed on NODE,
// and prints Mems_allowed_list from /proc/self/status plus one result line:
//   numa_touch: node N: OK (...)        exit 0
//   numa_touch: node N: FAILED: <why>   exit 1
// Raw syscalls only (no libnuma), so it links statically: gcc -static -O2 numa_touch.c.
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#define NT_MPOL_BIND 2
#define NT_MPOL_F_NODE (1u << 0)
#define NT_MPOL_F_ADDR (1u << 1)
#define NT_MPOL_MF_STRICT (1u << 0)
#define NT_MAX_NODES 1024
#define NT_BITS_PER_LONG (8 * sizeof(unsigned long))

static void print_mems_allowed(void)
{
    FILE *f = fopen("/proc/self/status", "r");
    char line[4096];
    if (!f) {
        printf("numa_touch: Mems_allowed_list: ? (%s)\n", strerror(errno));
        return;
    }
    while (fgets(line, sizeof line, f)) {
        if (strncmp(line, "Mems_allowed_list:", 18) == 0) {
            char *v = line + 18;
            while (*v == ' ' || *v == '\t')
                v++;
            printf("numa_touch: Mems_allowed_list: %s", v);
        }
    }
    fclose(f);
}

static int fail(int node, const char *what, int err)
{
    printf("numa_touch: node %d: FAILED: %s: %s\n", node, what, strerror(err));
    return 1;
}

int main(int argc, char **argv)
{
    if (argc < 2 || argc > 3) {
        fprintf(stderr, "usage: %s NODE [MIB]\n", argv[0]);
        return 2;
    }
    char *end;
    long node = strtol(argv[1], &end, 10);
    if (*end || node < 0 || node >= NT_MAX_NODES) {
        fprintf(stderr, "numa_touch: bad node '%s'\n", argv[1]);
        return 2;
    }
    long mib = 8;
    if (argc == 3) {
        mib = strtol(argv[2], &end, 10);
        if (*end || mib <= 0 || mib > 4096) {
            fprintf(stderr, "numa_touch: bad size '%s'\n", argv[2]);
            return 2;
        }
    }
    setvbuf(stdout, NULL, _IOLBF, 0);
    print_mems_allowed();

    size_t len = (size_t)mib << 20;
    long page = sysconf(_SC_PAGESIZE);
    char *buf = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (buf == MAP_FAILED)
        return fail((int)node, "mmap", errno);

    unsigned long mask[NT_MAX_NODES / NT_BITS_PER_LONG];
    memset(mask, 0, sizeof mask);
    mask[node / NT_BITS_PER_LONG] |= 1UL << (node % NT_BITS_PER_LONG);
    // The kernel reads maxnode-1 bits (libnuma passes size+1 the same way).
    if (syscall(SYS_mbind, buf, len, NT_MPOL_BIND, mask, (unsigned long)NT_MAX_NODES + 1,
                NT_MPOL_MF_STRICT) != 0)
        return fail((int)node, "mbind(MPOL_BIND)", errno);

    memset(buf, 0xa5, len); // first touch: allocation happens here, under the bind policy

    size_t pages = len / (size_t)page, on_node = 0;
    int first_bad = -1;
    for (size_t i = 0; i < pages; i++) {
        int where = -1;
        if (syscall(SYS_get_mempolicy, &where, NULL, 0UL, buf + i * (size_t)page,
                    NT_MPOL_F_NODE | NT_MPOL_F_ADDR) != 0)
            return fail((int)node, "get_mempolicy(MPOL_F_NODE|MPOL_F_ADDR)", errno);
        if (where == node)
            on_node++;
        else if (first_bad < 0)
            first_bad = where;
    }
    if (on_node != pages) {
        printf("numa_touch: node %ld: FAILED: only %zu of %zu pages on node %ld (one on node %d)\n",
               node, on_node, pages, node, first_bad);
        return 1;
    }
    printf("numa_touch: node %ld: OK (%ld MiB, %zu/%zu pages on node %ld)\n", node, mib, on_node,
           pages, node);
    munmap(buf, len);
    return 0;
}
