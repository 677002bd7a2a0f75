/* Small helpers of the commands and the renderer's output: strict number
 * parsing for flags, folders, JSON and gnuplot strings (io.h). */
#include "io/io.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int dr_parse_long(const char *text, long lo, long hi, long *out) {
  if (!text || !*text) return 0;
  char *end = NULL;
  errno = 0;
  long v = strtol(text, &end, 10);
  if (*end != 0 || errno == ERANGE || v < lo || v > hi) return 0;
  *out = v;
  return 1;
}

int dr_parse_int(const char *text, long lo, long hi, int *out) {
  long v;
  if (!dr_parse_long(text, lo, hi, &v)) return 0;
  *out = (int)v;
  return 1;
}

int dr_parse_size(const char *text, long lo, long hi, int *w, int *h) {
  if (!text) return 0;
  const char *x = strpbrk(text, "xX");
  if (!x) return 0;
  char a[32], b[32];
  size_t la = (size_t)(x - text), lb = strlen(x + 1);
  if (la == 0 || la >= sizeof a || lb == 0 || lb >= sizeof b) return 0;
  memcpy(a, text, la);
  a[la] = 0;
  memcpy(b, x + 1, lb + 1);
  long lw, lh;
  if (!dr_parse_long(a, lo, hi, &lw) || !dr_parse_long(b, lo, hi, &lh)) return 0;
  *w = (int)lw;
  *h = (int)lh;
  return 1;
}

int dr_mkdir_p(const char *path) {
  char buf[4096];
  if (snprintf(buf, sizeof buf, "%s", path) >= (int)sizeof buf) {
    errno = ENAMETOOLONG;
    return -1;
  }
  size_t n = strlen(buf);
  while (n > 1 && buf[n - 1] == '/') buf[--n] = 0;
  for (char *s = buf + 1; *s; s++) {
    if (*s != '/') continue;
    *s = 0;
    if (mkdir(buf, 0777) != 0 && errno != EEXIST) return -1;
    *s = '/';
  }
  if (mkdir(buf, 0777) != 0 && errno != EEXIST) return -1;
  return 0;
}

int dr_make_dirs(const char *path, const char *flag, drape_err *e) {
  if (dr_mkdir_p(path) != 0)
    return drape_fail(e, DRAPE_EINVAL, "%s \"%s\": cannot create the folder: %s", flag, path,
                      strerror(errno));
  struct stat st;
  if (stat(path, &st) != 0 || !S_ISDIR(st.st_mode))
    return drape_fail(e, DRAPE_EINVAL, "%s \"%s\": not a directory", flag, path);
  if (access(path, W_OK) != 0)
    return drape_fail(e, DRAPE_EINVAL, "%s \"%s\": not writable", flag, path);
  return DRAPE_OK;
}

void dr_json_num(FILE *f, double v) {
  if (isfinite(v)) fprintf(f, "%.9g", v);
  else fputs("null", f);
}

void dr_json_str(FILE *f, const char *s) {
  fputc('"', f);
  for (; *s; s++) {
    unsigned char c = (unsigned char)*s;
    if (c == '"' || c == '\\') fprintf(f, "\\%c", c);
    else if (c < 0x20) fprintf(f, "\\u%04x", c);
    else fputc(c, f);
  }
  fputc('"', f);
}

void dr_gp_str(FILE *f, const char *s) {
  fputc('\'', f);
  for (; *s; s++) {
    if (*s == '\'') fputc('\'', f);
    if (*s != '\n' && *s != '\r') fputc(*s, f); /* a newline would end the command */
  }
  fputc('\'', f);
}
