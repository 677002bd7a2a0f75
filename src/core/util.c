#include "core/util.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "drape/scene.h" /* drape_fmt_double */

#define NUM_BUFS 8
const char *dr_num(double v) {
  static _Thread_local char buf[NUM_BUFS][40];
  static _Thread_local unsigned next;
  char *b = buf[next++ % NUM_BUFS];
  drape_fmt_double(b, sizeof buf[0], v);
  return b;
}

const char *dr_num_f(float v) {
  static _Thread_local char buf[NUM_BUFS][32];
  static _Thread_local unsigned next;
  char *b = buf[next++ % NUM_BUFS];
  for (int p = 6; p <= 9; p++) {
    snprintf(b, sizeof buf[0], "%.*g", p, (double)v);
    if (strtof(b, NULL) == v) break;
  }
  return b;
}

void dr_pathf(char *dst, size_t cap, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(dst, cap, fmt, ap);
  va_end(ap);
}
