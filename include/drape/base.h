/* drape — base types shared by every public header: errors and versions.
 *
 * Every function that can fail takes a `drape_err *` (may be NULL) and
 * returns 0 on success or one of the DRAPE_E* codes. The message names the
 * field, the value and what is allowed, so a command can print it as is. */
#ifndef DRAPE_BASE_H
#define DRAPE_BASE_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

enum {
  DRAPE_OK = 0,
  DRAPE_EINVAL = 2, /* bad input: scene, flag, definition (exit code 2)   */
  DRAPE_ECL = 3,    /* an OpenCL call failed                               */
  DRAPE_EIO = 4,    /* a file could not be read or written                 */
  DRAPE_ENOMEM = 5, /* an allocation failed                                */
  DRAPE_EGL = 6,    /* an OpenGL / EGL / GLFW call failed                  */
  DRAPE_EUNSTABLE = 7 /* the simulation diverged (NaN or blow-up detected) */
};

typedef struct drape_err {
  int code;
  char msg[1024];
} drape_err;

#if defined(__GNUC__)
#define DRAPE_PRINTF(a, b) __attribute__((format(printf, a, b)))
#else
#define DRAPE_PRINTF(a, b)
#endif

/* Sets e->code and formats e->msg; returns code so callers can
 * `return drape_fail(e, DRAPE_EINVAL, "...")`. e may be NULL. */
int drape_fail(drape_err *e, int code, const char *fmt, ...) DRAPE_PRINTF(3, 4);

/* Version string, "MAJOR.MINOR.PATCH". */
const char *drape_version(void);

/* Monotonic wall clock in seconds. */
double drape_now(void);

#ifdef __cplusplus
}
#endif
#endif
