#include "support.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include <math.h>

void drape_assert_near(double a, double b, double tol, const char *sa, const char *sb,
                       const char *file, int line) {
  if (!(fabs(a - b) <= tol)) {
    print_error("%s = %.17g and %s = %.17g differ by %.3g > %.3g\n", sa, a, sb, b, fabs(a - b),
                tol);
    _fail(file, line);
  }
}

static const char *env_or(const char *name, const char *fallback) {
  const char *v = getenv(name);
  return v && *v ? v : fallback;
}

const char *drape_test_source_dir(void) { return env_or("DRAPE_SOURCE_DIR", "."); }
const char *drape_test_binary_dir(void) { return env_or("DRAPE_BINARY_DIR", "build"); }
const char *drape_test_exe(void) { return env_or("DRAPE_EXE", "build/drape"); }

int drape_test_sh(char *out, size_t cap, const char *fmt, ...) {
  char cmd[8192];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(cmd, sizeof cmd, fmt, ap);
  va_end(ap);
  char full[8300];
  snprintf(full, sizeof full, "( %s ) 2>&1", cmd);
  FILE *f = popen(full, "r");
  if (!f) return -1;
  size_t n = 0;
  char buf[4096];
  size_t got;
  while ((got = fread(buf, 1, sizeof buf, f)) > 0) {
    if (out && n + 1 < cap) {
      size_t take = got < cap - 1 - n ? got : cap - 1 - n;
      memcpy(out + n, buf, take);
      n += take;
    }
  }
  if (out && cap) out[n] = 0;
  int st = pclose(f);
  return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

const char *drape_test_tmpdir(const char *tag) {
  static char path[4][1024];
  static int slot = 0;
  char *p = path[slot++ % 4];
  snprintf(p, 1024, "%s/test-tmp/%s-%d", drape_test_binary_dir(), tag, (int)getpid());
  char cmd[2200];
  snprintf(cmd, sizeof cmd, "rm -rf '%s' && mkdir -p '%s'", p, p);
  if (system(cmd) != 0) return NULL;
  return p;
}
