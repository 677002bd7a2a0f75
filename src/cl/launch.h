/* One way to run OpenCL kernels, used by every backend (backend_cl.c,
 * selfcol_cl.c): buffers with byte accounting, arguments bound through a
 * table of (name, size, pointer) checked against the kernel's own argument
 * names, 1-D launches, and the events' device times collected into the
 * solver's one profile (drape_timings: per stage, per colour of the
 * projection, per self-collision part).
 *
 * Why names: clSetKernelArg binds by position, so two buffers of the same
 * type given in the wrong order compile, run and give wrong physics. The
 * program is built with -cl-kernel-arg-info (runtime.c), so
 * clGetKernelArgInfo(CL_KERNEL_ARG_NAME) tells each position's name; a
 * table entry whose name differs fails with the kernel, the position, the
 * kernel's name and the table's. Where a platform gives no names
 * (CL_KERNEL_ARG_INFO_NOT_AVAILABLE) only the count is checked
 * (CL_KERNEL_NUM_ARGS): a table must not run past the last argument. */
#ifndef DRAPE_CL_LAUNCH_H
#define DRAPE_CL_LAUNCH_H

#include <stdint.h>

#include "cl/runtime.h"
#include "drape/cloth.h"

/* A kernel and what it says about its arguments. */
typedef struct dr_cl_kern {
  cl_kernel k;
  const char *name;   /* the kernel's function name (static string)      */
  cl_uint n_args;     /* CL_KERNEL_NUM_ARGS                               */
  char **arg_names;   /* n_args names, or NULL when the platform has none */
} dr_cl_kern;

/* Creates kernel `name` from the runtime's program and reads its argument
 * names. */
int dr_cl_kern_create(drape_cl *cl, const char *name, dr_cl_kern *out, drape_err *e);
/* The same for a kernel the caller made (e.g. from another program); takes
 * ownership of k, also on failure. */
int dr_cl_kern_wrap(cl_kernel k, const char *name, dr_cl_kern *out, drape_err *e);
void dr_cl_kern_release(dr_cl_kern *k);

/* One kernel argument: the name the kernel gives it, and its value
 * (size bytes at value; value NULL with a size: __local memory). */
typedef struct dr_cl_arg {
  const char *name;
  size_t size;
  const void *value;
} dr_cl_arg;

#define DRAPE_CL_ARG(name, v) ((dr_cl_arg){(name), sizeof(v), (const void *)&(v)})
#define DRAPE_CL_LOCAL(name, bytes) ((dr_cl_arg){(name), (bytes), NULL})

/* Sets arguments first, first + 1, ... from args[0, n). Fails (DRAPE_ECL)
 * naming the kernel and the position when a name is not the kernel's name
 * at that position, when the table runs past the kernel's last argument,
 * or when clSetKernelArg refuses a value. */
int dr_cl_bind(dr_cl_kern *k, cl_uint first, const dr_cl_arg *args, int n,
                  drape_err *e);
/* dr_cl_bind with the table written in place:
 *   DRAPE_CL_BIND(&k, 0, e, DRAPE_CL_ARG("x", x), DRAPE_CL_ARG("n", n)) */
#define DRAPE_CL_BIND(kern, first, e, ...)                                             \
  dr_cl_bind((kern), (first), (const dr_cl_arg[]){__VA_ARGS__},                 \
                (int)(sizeof((const dr_cl_arg[]){__VA_ARGS__}) / sizeof(dr_cl_arg)), \
                (e))

/* A device buffer of `bytes` (a zero size gets a 16-byte placeholder, never
 * read: OpenCL has no empty buffers), copied from init when init is not
 * NULL. The bytes are added to *held and, when copied, to *uploaded (either
 * may be NULL). `what` names the buffer in the error message. */
int dr_cl_buffer(drape_cl *cl, size_t bytes, const void *init, const char *what,
                    uint64_t *held, uint64_t *uploaded, cl_mem *out, drape_err *e);
void dr_cl_buffer_release(cl_mem *m);

/* Launch events waiting to be timed, each tagged with what it did. The
 * tags of the next launch are set by whoever issues it: the orchestrator
 * (stage, colour) and the self-collision stage (part). */
typedef struct dr_cl_prof {
  int stage;          /* drape_stage of the next launches                 */
  int colour;         /* colour being projected, else -1                  */
  int part;           /* drape_selfcol_part, else -1                      */
  struct dr_cl_prof_rec *rec; /* events kept, with their tags       */
  int n, cap;
} dr_cl_prof;

void dr_cl_prof_init(dr_cl_prof *p);
/* Releases the events not yet collected and the lists. */
void dr_cl_prof_free(dr_cl_prof *p);
/* Keeps ev (owned from now on) with the current tags. */
int dr_cl_prof_keep(dr_cl_prof *p, cl_event ev, drape_err *e);
/* After the queue has finished them: adds each event's device time to
 * tm->ms[stage], tm->colour_ms[colour] and tm->selfcol_ms[part] (tm may
 * be NULL), the self-collision parts also to part_ms (may be NULL), the
 * sum of all to *total_ms (may be NULL), and releases the events. The
 * first failure is reported; the rest are still released. */
int dr_cl_prof_collect(dr_cl_prof *p, drape_timings *tm, double *part_ms,
                          double *total_ms, drape_err *e);

/* The work-group size for kernel k in the GPU kernel form (one constraint
 * or particle per work item, docs/solver.md): the largest multiple of the
 * kernel's CL_KERNEL_PREFERRED_WORK_GROUP_SIZE_MULTIPLE (the warp or
 * wavefront: 32 on NVIDIA, 64 on AMD) up to DRAPE_CL_GPU_LOCAL, capped by
 * CL_KERNEL_WORK_GROUP_SIZE and the device's CL_DEVICE_MAX_WORK_GROUP_SIZE.
 * Why 256: several warps per group let the scheduler hide the latency of
 * the gathers, and small groups still fill every compute unit at the sizes
 * where speed matters. Never 0 (1 when the device tells nothing). */
#define DRAPE_CL_GPU_LOCAL 256
size_t dr_cl_kern_local(const drape_cl *cl, const dr_cl_kern *k);

/* Enqueues n work items of k, rounded up to a multiple of the local size
 * (`local`, or 0 for the default of 64 capped by the device; PoCL has no
 * non-uniform work-groups, so every kernel guards i < n). Nothing happens
 * for n = 0. With a profiling queue and prof not NULL, the event is kept
 * in prof. */
int dr_cl_launch(drape_cl *cl, const dr_cl_kern *k, size_t n, size_t local,
                    dr_cl_prof *prof, drape_err *e);
/* Fills bytes of m with zeros (a command like a launch: its time goes to
 * prof the same way). */
int dr_cl_fill0(drape_cl *cl, cl_mem m, size_t bytes, dr_cl_prof *prof, drape_err *e);

#endif
