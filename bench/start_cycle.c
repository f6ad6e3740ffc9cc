/* One container start as a containerd shim drives the runtime: RUNTIME create, start, then
 * delete --force, each a child process waited for. nvidia-container-runtime edits the spec only on
 * create, so `run` would time it doing nothing; this is how bench/gpu-host-bench.sh times a start
 * through a chain of runtimes (ours, NVIDIA's, runc).
 *
 *   start_cycle [-c ETC_DIR] [-e VAR=VALUE]... RUNTIME STATE_ROOT BUNDLE ID
 *
 * -c: in a private mount namespace of its own, ETC_DIR bound over /etc/gpu-numa-hook first (the
 * shim reads only that config; each row of one interleaved run can then have its own). -e: set in
 * the runtimes' environment (NVIDIA_CTK_CONFIG_FILE_PATH: which NVIDIA config, so which mode).
 * Exit 0 only when all three succeeded; otherwise the failing step's status, said on stderr. */
#define _GNU_SOURCE
#include <sched.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/wait.h>
#include <unistd.h>

extern char** environ;

static int step(const char* runtime, char* const argv[]) {
  pid_t pid;
  int err = posix_spawn(&pid, runtime, NULL, NULL, argv, environ);
  if (err != 0) {
    fprintf(stderr, "start_cycle: cannot run %s: %s\n", runtime, strerror(err));
    return 127;
  }
  int status;
  if (waitpid(pid, &status, 0) < 0) return 127;
  if (WIFEXITED(status)) return WEXITSTATUS(status);
  return 128 + WTERMSIG(status);
}

int main(int argc, char** argv) {
  const char* etc = NULL;
  int opt;
  while ((opt = getopt(argc, argv, "+c:e:")) != -1) {
    if (opt == 'c') {
      etc = optarg;
    } else if (opt == 'e') {
      char* eq = strchr(optarg, '=');
      if (!eq) return 2;
      *eq = '\0';
      setenv(optarg, eq + 1, 1);
    } else {
      return 2;
    }
  }
  if (argc - optind != 4) {
    fputs("usage: start_cycle [-c ETC_DIR] [-e VAR=VALUE]... RUNTIME STATE_ROOT BUNDLE ID\n", stderr);
    return 2;
  }
  char* runtime = argv[optind];
  char* root = argv[optind + 1];
  char* bundle = argv[optind + 2];
  char* id = argv[optind + 3];
  if (etc && (unshare(CLONE_NEWNS) != 0 || mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) != 0 ||
              mount(etc, "/etc/gpu-numa-hook", NULL, MS_BIND, NULL) != 0)) {
    perror("start_cycle: binding the config directory");
    return 97;
  }
  char* create[] = {runtime, "--root", root, "create", "--bundle", bundle, id, NULL};
  char* start[] = {runtime, "--root", root, "start", id, NULL};
  char* del[] = {runtime, "--root", root, "delete", "--force", id, NULL};
  int rc = step(runtime, create);
  if (rc != 0) {
    fprintf(stderr, "start_cycle: create of %s exited %d\n", id, rc);
    step(runtime, del);
    return rc;
  }
  rc = step(runtime, start);
  if (rc != 0) fprintf(stderr, "start_cycle: start of %s exited %d\n", id, rc);
  int drc = step(runtime, del);
  if (rc == 0 && drc != 0) fprintf(stderr, "start_cycle: delete of %s exited %d\n", id, drc);
  return rc != 0 ? rc : drc;
}
