/* The least any runtime shim can cost: a static program that execs its first argument with the
 * rest, nothing else. bench/run-bench.sh times `runc run` through it next to gpu-numa-runtime, so
 * the shim's cost inside runc can be split into "one more exec" and "our work"; bench/gpu-host-bench.sh
 * puts it in front of NVIDIA's runtime the same way. */
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

int main(int argc, char** argv) {
  /* In a chain whose caller passes only the runtime's arguments (bench/start_cycle.c), the next
   * program comes from EXEC_WRAPPER_NEXT and gets every argument. */
  const char* next = getenv("EXEC_WRAPPER_NEXT");
  if (next) {
    argv[0] = (char*)next;
    execv(next, argv);
    perror("exec_wrapper: execv");
    return 127;
  }
  if (argc < 2) {
    fputs("usage: exec_wrapper PROGRAM [ARGS...]\n", stderr);
    return 2;
  }
  execv(argv[1], argv + 1);
  perror("exec_wrapper: execv");
  return 127;
}
