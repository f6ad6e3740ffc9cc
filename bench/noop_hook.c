/* noop_hook: the runtimes' baseline prestart hook. It reads the OCI state on stdin to EOF and
 * exits 0, as every hook must: /bin/true, which does not read, made crun fail about half the runs
 * (crun writes the state into a pipe whose reader has gone: SIGPIPE, exit 141, "read from the init
 * process"). */
#include <unistd.h>

int main(void) {
  char buf[4096];
  while (read(0, buf, sizeof buf) > 0) {
  }
  return 0;
}
