/* OpenCL runtime: device choice, one context and in-order queue, the
 * embedded program, and error names.
 *
 * Devices are numbered globally across platforms in the order the ICD
 * loader reports them; `drape devices` prints that numbering and
 * `--device N` / DRAPE_DEVICE select by it. */
#ifndef DRAPE_CL_RUNTIME_H
#define DRAPE_CL_RUNTIME_H

#include <CL/cl.h>
#include <stdio.h>

#include "drape/base.h"

typedef struct drape_cl {
  cl_platform_id platform;
  cl_device_id device;
  cl_context ctx;
  cl_command_queue queue;
  cl_program program;
  int device_index;
  int profiling;            /* queue created with CL_QUEUE_PROFILING_ENABLE */
  int has_gl_sharing;       /* cl_khr_gl_sharing in the device extensions    */
  cl_device_type type;
  cl_uint compute_units;
  cl_ulong global_mem;
  size_t max_wg;
  char device_name[256];
  char platform_name[256];
  char *build_log;          /* the kernels' build log (warnings), or NULL     */
} drape_cl;

/* Name of an OpenCL error code, e.g. "CL_INVALID_WORK_GROUP_SIZE". */
const char *drape_cl_errstr(cl_int code);

/* Checks an OpenCL status; on failure fills e with the call text and the
 * error name and returns DRAPE_ECL from the enclosing function. */
#define DRAPE_CL_TRY(e, call)                                                   \
  do {                                                                          \
    cl_int drape_cl_rc_ = (call);                                               \
    if (drape_cl_rc_ != CL_SUCCESS)                                             \
      return drape_fail((e), DRAPE_ECL, "%s failed: %s (%s:%d)", #call,         \
                        drape_cl_errstr(drape_cl_rc_), __FILE__, __LINE__);     \
  } while (0)

/* Number of devices over all platforms (0 when no ICD/platform exists). */
int drape_cl_device_count(void);

/* Prints every platform and device (type, compute units, memory, OpenCL C
 * version, cl_khr_gl_sharing) with its global index. */
int drape_cl_list(FILE *out, drape_err *e);

/* The device index asked for: `flag_value` if >= 0, else DRAPE_DEVICE, else
 * -1 (meaning: first GPU, else first device). Bad DRAPE_DEVICE text is an
 * error naming the variable. */
int drape_cl_requested_device(int flag_value, int *out, drape_err *e);

/* Kernel forms (drape_kernel_form, docs/solver.md): "auto" 0, "gpu" 1,
 * "cpu" 2 (the vector form); -1 for any other text. */
int drape_cl_kernel_form_parse(const char *text);
/* The form auto picks for a device of this type: GPU for GPU and
 * accelerator devices, CPU (vector) otherwise. */
int drape_cl_kernel_form_auto(cl_device_type type);
/* The form to run: `requested` unless it is AUTO; then DRAPE_KERNEL_FORM
 * when set (bad text is an error naming the variable), else by the device
 * type. *out is DRAPE_KERNEL_FORM_GPU or _CPU. */
int drape_cl_kernel_form_choose(int requested, cl_device_type type, int *out, drape_err *e);
/* "gpu" or "vector". */
const char *drape_cl_kernel_form_name(int form);

/* Options for drape_cl_init. Zero-initialised means defaults. */
typedef struct drape_cl_opts {
  int device_index;                  /* -1: default choice                  */
  int profiling;                     /* enable event profiling              */
  const cl_context_properties *extra_props; /* e.g. GL sharing; 0-ended    */
  const char *build_options;         /* appended to the default options     */
} drape_cl_opts;

drape_cl_opts drape_cl_default_opts(void);

/* Chooses the device, creates context + queue and builds the embedded
 * program (build log and file name on failure). */
int drape_cl_init(drape_cl *cl, const drape_cl_opts *opts, drape_err *e);
void drape_cl_release(drape_cl *cl);

/* A kernel from the program, with the error named on failure. */
int drape_cl_kernel(drape_cl *cl, const char *name, cl_kernel *out, drape_err *e);

/* Builds an OpenCL program from the shared header plus the given source
 * (used by tests to check that a broken kernel is reported with its file
 * name and log). */
int drape_cl_build_source(drape_cl *cl, const char *file_name, const char *source,
                          const char *options, cl_program *out, drape_err *e);

/* Buffers, argument tables, launches and their profile: cl/launch.h. */

#endif
