/* The least any runtime shim can cost: a static program that execs its first argument with the
 * rest, nothing else. bench/run-bench.sh times `runc run` through it next to gpu-numa-runtime, so
 * the shim's cost inside runc can be split into "one more exec" and "our work". */
#include <stdio.h>
#include <unistd.h>

int main(int argc, char** argv) {
  if (argc < 2) {
    fputs("usage: exec_wrapper PROGRAM [ARGS...]\n", stderr);
    return 2;
  }
  execv(argv[1], argv + 1);
  perror("exec_wrapper: execv");
  return 127;
}
