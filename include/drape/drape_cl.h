/* drape — opt-in OpenCL access: the solver's device buffers, for a
 * renderer or a user kernel that works on them in place (CL/GL interop).
 * Only this public header includes OpenCL's; link OpenCL yourself when you
 * use it (find_package(drape) and drape.pc already do).
 *
 * The buffers live as long as the sim and are complete after
 * drape_sim_step returns; order further work on the sim's queue. */
#ifndef DRAPE_DRAPE_CL_H
#define DRAPE_DRAPE_CL_H

#ifndef CL_TARGET_OPENCL_VERSION
#define CL_TARGET_OPENCL_VERSION 120
#endif
#include <CL/cl.h>
#include <stdio.h>

#include "drape/cloth.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- the OpenCL runtime drape runs on ----
 * One platform and device, a context, one in-order queue and the embedded
 * kernels. Devices are numbered globally across platforms in the order the
 * ICD loader reports them; `drape devices` prints that numbering and
 * `--device N` / DRAPE_DEVICE select by it. A runtime made here (for
 * example with a GL context's sharing properties in extra_props, see
 * drape_gl_cl_share_props in render.h) can be given to a world
 * (drape_world_def.cl) or a sim (drape_sim_opts.cl), which then run on it. */
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
  int correct_div_sqrt;     /* built with -cl-fp32-correctly-rounded-divide-
                               sqrt (the device has CL_FP_CORRECTLY_ROUNDED_
                               DIVIDE_SQRT): division and sqrt round as in C */
  char driver_version[128]; /* CL_DRIVER_VERSION                              */
  char device_version[128]; /* CL_DEVICE_VERSION                              */
} drape_cl;

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

/* Name of an OpenCL error code, e.g. "CL_INVALID_WORK_GROUP_SIZE". */
const char *drape_cl_errstr(cl_int code);

/* Number of devices over all platforms (0 when no ICD/platform exists). */
int drape_cl_device_count(void);

/* Prints every platform and device (type, compute units, memory, OpenCL C
 * version, cl_khr_gl_sharing, driver and device version, whether division
 * and sqrt are correctly rounded) with its global index. */
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

/* ---- device buffers (OpenCL backend; NULL / an error on the CPU backend) ----
 * float4 per particle as drape_sim_read_positions (drape/cloth.h). The buffers live as long as the sim; they
 * are complete after drape_sim_step returns (use the queue of
 * drape_sim_cl to order further work). A renderer either reads them back
 * (drape_sim_read_*) or copies them into GL buffers on the device. */
typedef struct drape_sim_buffers {
  cl_mem positions;          /* n_particles float4                            */
  cl_mem normals;            /* n_particles float4                            */
  cl_mem tris;               /* n_tris x 3 uint32 (degenerate when torn)      */
  cl_command_queue queue;
  cl_context context;
} drape_sim_buffers;

int drape_sim_cl_buffers(const drape_sim *sim, drape_sim_buffers *out);
struct drape_cl *drape_sim_cl(const drape_sim *sim); /* NULL on CPU       */

#ifdef __cplusplus
}
#endif
#endif
