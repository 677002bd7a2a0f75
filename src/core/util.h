/* Small helpers shared by the commands and the renderer's run hook:
 * strict number parsing for flags and creating output folders. */
#ifndef DRAPE_CORE_UTIL_H
#define DRAPE_CORE_UTIL_H

#include <stdio.h>

#include "drape/base.h"

/* A whole decimal number in [lo, hi] and nothing else; 1 on success. */
int drape_parse_long(const char *text, long lo, long hi, long *out);
int drape_parse_int(const char *text, long lo, long hi, int *out);
/* "WxH" (or "WXH") with both sides in [lo, hi]; 1 on success. */
int drape_parse_size(const char *text, long lo, long hi, int *w, int *h);

/* mkdir -p: 0, or -1 with errno set. */
int drape_mkdir_p(const char *path);
/* mkdir -p, then requires a writable directory; errors are DRAPE_EINVAL
 * naming `flag` (e.g. "--obj-dir"), the path and the reason. */
int drape_make_dirs(const char *path, const char *flag, drape_err *e);

/* JSON output: a number as %.9g, or null when it is not finite (JSON has
 * no NaN/Infinity); a string with quotes, backslashes and control
 * characters escaped. */
void drape_json_num(FILE *f, double v);
void drape_json_str(FILE *f, const char *s);

#endif
