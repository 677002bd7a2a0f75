/* OpenCL runtime, the internal part: the embedded program's kernels and
 * the error macro. The runtime itself (drape_cl, device choice, one context
 * and in-order queue, error names) is public: include/drape/drape_cl.h.
 *
 * Devices are numbered globally across platforms in the order the ICD
 * loader reports them; `drape devices` prints that numbering and
 * `--device N` / DRAPE_DEVICE select by it. */
#ifndef DRAPE_CL_RUNTIME_H
#define DRAPE_CL_RUNTIME_H

#include <CL/cl.h>
#include <stdio.h>

#include "drape/base.h"
#include "drape/drape_cl.h" /* the public part: drape_cl, init, devices, error names */



/* Checks an OpenCL status; on failure fills e with the call text and the
 * error name and returns DRAPE_ECL from the enclosing function. */
#define DRAPE_CL_TRY(e, call)                                                   \
  do {                                                                          \
    cl_int drape_cl_rc_ = (call);                                               \
    if (drape_cl_rc_ != CL_SUCCESS)                                             \
      return drape_fail((e), DRAPE_ECL, "%s failed: %s (%s:%d)", #call,         \
                        drape_cl_errstr(drape_cl_rc_), __FILE__, __LINE__);     \
  } while (0)




/* A kernel from the program, with the error named on failure. */
int dr_cl_kernel(drape_cl *cl, const char *name, cl_kernel *out, drape_err *e);

/* Builds an OpenCL program from the shared header plus the given source
 * (used by tests to check that a broken kernel is reported with its file
 * name and log). */
int dr_cl_build_source(drape_cl *cl, const char *file_name, const char *source,
                          const char *options, cl_program *out, drape_err *e);

/* Buffers, argument tables, launches and their profile: cl/launch.h. */

#endif
