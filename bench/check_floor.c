/* check_floor: the physical limit of `gpu-numa-hook check`'s walk, for the benchmark's "check vs
 * floor" row. It does only what check cannot avoid: open every directory of the cpuset hierarchy
 * once, list it, and open and read the same per-cgroup file check reads (cpuset.mems), relative to
 * the directory; no parsing, no sorting, no checks, no output but a count.
 *
 *   check_floor MOUNT_DIR [FILE]     (FILE defaults to cpuset.mems)
 *
 * Prints "<cgroups> cgroups, <bytes> bytes" and exits 0. */
#define _GNU_SOURCE
#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

static const char* file = "cpuset.mems";
static long cgroups, bytes;

struct linux_dirent64 {
  unsigned long long d_ino;
  long long d_off;
  unsigned short d_reclen;
  unsigned char d_type;
  char d_name[];
};

static void walk(int dir) {
  char buf[4096];
  int f = openat(dir, file, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
  if (f >= 0) {
    ssize_t n;
    while ((n = read(f, buf, sizeof buf)) > 0) bytes += n;
    close(f);
  }
  ++cgroups;
  char ents[32768];
  long n;
  while ((n = syscall(SYS_getdents64, dir, ents, sizeof ents)) > 0) {
    for (long off = 0; off < n;) {
      struct linux_dirent64* e = (struct linux_dirent64*)(ents + off);
      off += e->d_reclen;
      if (e->d_type != DT_DIR || !strcmp(e->d_name, ".") || !strcmp(e->d_name, "..")) continue;
      int sub = openat(dir, e->d_name, O_RDONLY | O_DIRECTORY | O_CLOEXEC | O_NOFOLLOW);
      if (sub < 0) continue;
      walk(sub);
      close(sub);
    }
  }
}

int main(int argc, char** argv) {
  if (argc < 2) {
    fprintf(stderr, "usage: check_floor MOUNT_DIR [FILE]\n");
    return 2;
  }
  if (argc > 2) file = argv[2];
  int root = open(argv[1], O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (root < 0) {
    perror(argv[1]);
    return 1;
  }
  walk(root);
  printf("%ld cgroups, %ld bytes\n", cgroups, bytes);
  return 0;
}
