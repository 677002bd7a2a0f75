/* Starting helper programs (gnuplot, ffmpeg) without a shell (util.h;
 * issue 13 item 7).
 *
 * Why: with system("gnuplot '" DIR "/x.gp'"), a folder named `x';touch
 * PWNED;'` ran `touch`, and one named `it's` broke the quoting so no plot
 * was made while drape said nothing. An argument vector is passed to the
 * program as it is: no character in a file name means anything.
 * posix_spawn is also safe in drape's threaded processes (encoder threads,
 * PoCL's workers), where fork + arbitrary work in the child is not. */
#define _GNU_SOURCE /* posix_spawn_file_actions_addchdir_np (glibc >= 2.29) */
#include "io/io.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

dr_spawn_opts dr_spawn_opts_default(void) {
  dr_spawn_opts o;
  memset(&o, 0, sizeof o);
  o.stdin_fd = -1;
  o.stdout_fd = -1;
  return o;
}

int dr_spawn(const char *const *argv, const dr_spawn_opts *o, pid_t *pid, drape_err *e) {
  dr_spawn_opts def = dr_spawn_opts_default();
  if (!o) o = &def;
  posix_spawn_file_actions_t fa;
  posix_spawnattr_t at;
  int rc = posix_spawn_file_actions_init(&fa);
  if (rc) return drape_fail(e, DRAPE_EIO, "cannot start %s: %s", argv[0], strerror(rc));
  if ((rc = posix_spawnattr_init(&at))) {
    posix_spawn_file_actions_destroy(&fa);
    return drape_fail(e, DRAPE_EIO, "cannot start %s: %s", argv[0], strerror(rc));
  }
  if (o->stdin_fd >= 0 && o->stdin_fd != STDIN_FILENO) {
    if (!rc) rc = posix_spawn_file_actions_adddup2(&fa, o->stdin_fd, STDIN_FILENO);
    if (!rc) rc = posix_spawn_file_actions_addclose(&fa, o->stdin_fd);
  }
  if (o->stdout_fd >= 0 && o->stdout_fd != STDOUT_FILENO && !rc) {
    rc = posix_spawn_file_actions_adddup2(&fa, o->stdout_fd, STDOUT_FILENO);
    if (!rc) rc = posix_spawn_file_actions_addclose(&fa, o->stdout_fd);
  } else if (o->stdout_null && !rc) {
    rc = posix_spawn_file_actions_addopen(&fa, STDOUT_FILENO, "/dev/null", O_WRONLY, 0);
  }
  if (o->stderr_null && !rc)
    rc = posix_spawn_file_actions_addopen(&fa, STDERR_FILENO, "/dev/null", O_WRONLY, 0);
  if (o->cwd && !rc) rc = posix_spawn_file_actions_addchdir_np(&fa, o->cwd);
  /* drape may ignore SIGPIPE (capture.c) and catches SIGINT/SIGTERM
   * (interrupt.c); the helper gets the defaults and no blocked signals. */
  sigset_t def_sigs, none;
  sigemptyset(&def_sigs);
  sigaddset(&def_sigs, SIGPIPE);
  sigaddset(&def_sigs, SIGINT);
  sigaddset(&def_sigs, SIGTERM);
  sigemptyset(&none);
  short flags = POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK;
  if (!rc) rc = posix_spawnattr_setsigdefault(&at, &def_sigs);
  if (!rc) rc = posix_spawnattr_setsigmask(&at, &none);
  if (o->own_group && !rc) {
    flags |= POSIX_SPAWN_SETPGROUP;
    rc = posix_spawnattr_setpgroup(&at, 0);
  }
  if (!rc) rc = posix_spawnattr_setflags(&at, flags);
  if (!rc) rc = posix_spawnp(pid, argv[0], &fa, &at, (char *const *)argv, environ);
  posix_spawn_file_actions_destroy(&fa);
  posix_spawnattr_destroy(&at);
  if (rc) return drape_fail(e, DRAPE_EIO, "cannot start %s: %s", argv[0], strerror(rc));
  return DRAPE_OK;
}

int dr_spawn_wait(pid_t pid) {
  int st = 0;
  while (waitpid(pid, &st, 0) < 0)
    if (errno != EINTR) return -1;
  return st;
}

int dr_spawn_run(const char *const *argv, const dr_spawn_opts *o, const char *what,
                    drape_err *e) {
  pid_t pid;
  drape_err se = {0};
  int rc = dr_spawn(argv, o, &pid, &se);
  if (rc) return drape_fail(e, rc, "%s: %s", what, se.msg);
  int st = dr_spawn_wait(pid);
  if (st < 0)
    return drape_fail(e, DRAPE_EIO, "%s: waiting for %s failed: %s", what, argv[0],
                      strerror(errno));
  if (WIFEXITED(st) && WEXITSTATUS(st) == 0) return DRAPE_OK;
  if (WIFEXITED(st))
    return drape_fail(e, DRAPE_EIO, "%s: %s exited with status %d (its message is above)", what,
                      argv[0], WEXITSTATUS(st));
  return drape_fail(e, DRAPE_EIO, "%s: %s was killed by signal %d", what, argv[0],
                    WIFSIGNALED(st) ? WTERMSIG(st) : 0);
}
