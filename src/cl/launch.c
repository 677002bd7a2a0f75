/* Kernel launches, argument tables and the launch profile: see launch.h. */
#include "cl/launch.h"

#include <stdlib.h>
#include <string.h>

struct dr_cl_prof_rec {
  cl_event ev;
  int stage, colour, part;
};

/* ---- kernels ---- */

static void free_names(dr_cl_kern *k) {
  if (k->arg_names)
    for (cl_uint i = 0; i < k->n_args; i++) free(k->arg_names[i]);
  free(k->arg_names);
  k->arg_names = NULL;
}

/* The argument names, or none at all: a program built without
 * -cl-kernel-arg-info (or a platform that keeps no names) answers
 * CL_KERNEL_ARG_INFO_NOT_AVAILABLE, and then only the count is checked. */
static void read_names(dr_cl_kern *k) {
  k->arg_names = calloc(k->n_args ? k->n_args : 1, sizeof *k->arg_names);
  if (!k->arg_names) return;
  for (cl_uint i = 0; i < k->n_args; i++) {
    size_t sz = 0;
    if (clGetKernelArgInfo(k->k, i, CL_KERNEL_ARG_NAME, 0, NULL, &sz) != CL_SUCCESS || sz == 0 ||
        !(k->arg_names[i] = malloc(sz + 1)) ||
        clGetKernelArgInfo(k->k, i, CL_KERNEL_ARG_NAME, sz, k->arg_names[i], NULL) != CL_SUCCESS) {
      free_names(k);
      return;
    }
    k->arg_names[i][sz] = 0;
  }
}

int dr_cl_kern_wrap(cl_kernel kernel, const char *name, dr_cl_kern *out, drape_err *e) {
  memset(out, 0, sizeof *out);
  out->k = kernel;
  out->name = name;
  cl_int rc = clGetKernelInfo(kernel, CL_KERNEL_NUM_ARGS, sizeof out->n_args, &out->n_args, NULL);
  if (rc != CL_SUCCESS) {
    dr_cl_kern_release(out);
    return drape_fail(e, DRAPE_ECL, "clGetKernelInfo(%s, CL_KERNEL_NUM_ARGS): %s", name,
                      drape_cl_errstr(rc));
  }
  read_names(out);
  return DRAPE_OK;
}

int dr_cl_kern_create(drape_cl *cl, const char *name, dr_cl_kern *out, drape_err *e) {
  cl_kernel k;
  memset(out, 0, sizeof *out);
  int rc = dr_cl_kernel(cl, name, &k, e);
  return rc ? rc : dr_cl_kern_wrap(k, name, out, e);
}

void dr_cl_kern_release(dr_cl_kern *k) {
  free_names(k);
  if (k->k) clReleaseKernel(k->k);
  k->k = NULL;
}

/* ---- arguments ---- */

int dr_cl_bind(dr_cl_kern *k, cl_uint first, const dr_cl_arg *args, int n,
                  drape_err *e) {
  if (n <= 0) return DRAPE_OK;
  if (first + (cl_uint)n > k->n_args)
    return drape_fail(e, DRAPE_ECL,
                      "kernel %s takes %u arguments: a table of %d from position %u runs past "
                      "the last (\"%s\" at position %u)",
                      k->name, k->n_args, n, first, args[n - 1].name, first + (cl_uint)n - 1);
  for (int i = 0; i < n; i++) {
    const cl_uint pos = first + (cl_uint)i;
    if (k->arg_names && strcmp(k->arg_names[pos], args[i].name) != 0)
      return drape_fail(e, DRAPE_ECL,
                        "kernel %s, argument %u: the kernel expects \"%s\" there, the table "
                        "gives \"%s\" (arguments out of order?)",
                        k->name, pos, k->arg_names[pos], args[i].name);
    cl_int rc = clSetKernelArg(k->k, pos, args[i].size, args[i].value);
    if (rc != CL_SUCCESS)
      return drape_fail(e, DRAPE_ECL, "clSetKernelArg(%s, argument %u \"%s\", %zu bytes): %s",
                        k->name, pos, args[i].name, args[i].size, drape_cl_errstr(rc));
  }
  return DRAPE_OK;
}

/* ---- buffers ---- */

int dr_cl_buffer(drape_cl *cl, size_t bytes, const void *init, const char *what,
                    uint64_t *held, uint64_t *uploaded, cl_mem *out, drape_err *e) {
  cl_int rc;
  if (bytes == 0) { /* zero-size buffers are invalid: a placeholder, nothing to copy */
    bytes = 16;
    init = NULL;
  }
  *out = clCreateBuffer(cl->ctx, CL_MEM_READ_WRITE | (init ? CL_MEM_COPY_HOST_PTR : 0), bytes,
                        (void *)init, &rc);
  if (rc != CL_SUCCESS) {
    *out = NULL;
    return drape_fail(e, DRAPE_ECL, "clCreateBuffer(%s, %zu bytes): %s", what, bytes,
                      drape_cl_errstr(rc));
  }
  if (held) *held += bytes;
  if (init && uploaded) *uploaded += bytes;
  return DRAPE_OK;
}

void dr_cl_buffer_release(cl_mem *m) {
  if (*m) clReleaseMemObject(*m);
  *m = NULL;
}

/* ---- the profile ---- */

void dr_cl_prof_init(dr_cl_prof *p) {
  memset(p, 0, sizeof *p);
  p->colour = -1;
  p->part = -1;
}

void dr_cl_prof_free(dr_cl_prof *p) {
  for (int i = 0; i < p->n; i++) clReleaseEvent(p->rec[i].ev);
  free(p->rec);
  p->rec = NULL;
  p->n = p->cap = 0;
}

int dr_cl_prof_keep(dr_cl_prof *p, cl_event ev, drape_err *e) {
  if (p->n == p->cap) {
    int cap = p->cap ? 2 * p->cap : 1024;
    struct dr_cl_prof_rec *r = realloc(p->rec, sizeof *r * (size_t)cap);
    if (!r) {
      clReleaseEvent(ev);
      return drape_fail(e, DRAPE_ENOMEM, "out of memory (profiling events)");
    }
    p->rec = r;
    p->cap = cap;
  }
  p->rec[p->n++] = (struct dr_cl_prof_rec){ev, p->stage, p->colour, p->part};
  return DRAPE_OK;
}

/* Device time of a finished, profiled command (start to end). */
static int event_ms(cl_event ev, double *ms, drape_err *e) {
  cl_ulong t0 = 0, t1 = 0;
  cl_int r0 = clGetEventProfilingInfo(ev, CL_PROFILING_COMMAND_START, sizeof t0, &t0, NULL);
  cl_int r1 = clGetEventProfilingInfo(ev, CL_PROFILING_COMMAND_END, sizeof t1, &t1, NULL);
  *ms = 0.0;
  if (r0 != CL_SUCCESS || r1 != CL_SUCCESS)
    return drape_fail(e, DRAPE_ECL, "clGetEventProfilingInfo: %s",
                      drape_cl_errstr(r0 != CL_SUCCESS ? r0 : r1));
  *ms = 1e-6 * (double)(t1 - t0);
  return DRAPE_OK;
}

int dr_cl_prof_collect(dr_cl_prof *p, drape_timings *tm, double *part_ms,
                          double *total_ms, drape_err *e) {
  int rc = DRAPE_OK;
  double total = 0.0;
  for (int i = 0; i < p->n; i++) {
    const struct dr_cl_prof_rec *r = &p->rec[i];
    double ms;
    drape_err later = {0}; /* the first failure's message is the one kept */
    if (event_ms(r->ev, &ms, rc ? &later : e)) {
      rc = DRAPE_ECL;
    } else {
      total += ms;
      if (tm && r->stage >= 0 && r->stage < DRAPE_STAGE_COUNT) tm->ms[r->stage] += ms;
      if (tm && r->colour >= 0 && r->colour < DRAPE_TIMING_COLOURS) tm->colour_ms[r->colour] += ms;
      if (r->part >= 0 && r->part < DRAPE_SELFCOL_PART_COUNT) {
        if (tm) tm->selfcol_ms[r->part] += ms;
        if (part_ms) part_ms[r->part] += ms;
      }
    }
    clReleaseEvent(r->ev);
  }
  p->n = 0;
  if (total_ms) *total_ms = total;
  return rc;
}

/* ---- launches ---- */

size_t dr_cl_kern_local(const drape_cl *cl, const dr_cl_kern *k) {
  size_t multiple = 0, kernel_max = 0;
  if (clGetKernelWorkGroupInfo(k->k, cl->device, CL_KERNEL_PREFERRED_WORK_GROUP_SIZE_MULTIPLE,
                               sizeof multiple, &multiple, NULL) != CL_SUCCESS)
    multiple = 0;
  if (clGetKernelWorkGroupInfo(k->k, cl->device, CL_KERNEL_WORK_GROUP_SIZE, sizeof kernel_max,
                               &kernel_max, NULL) != CL_SUCCESS)
    kernel_max = 0;
  size_t cap = DRAPE_CL_GPU_LOCAL;
  if (kernel_max && kernel_max < cap) cap = kernel_max;
  if (cl->max_wg && cl->max_wg < cap) cap = cl->max_wg;
  if (!multiple || multiple > cap) return cap ? cap : 1;
  return cap / multiple * multiple;
}

int dr_cl_launch(drape_cl *cl, const dr_cl_kern *k, size_t n, size_t local,
                    dr_cl_prof *prof, drape_err *e) {
  if (n == 0) return DRAPE_OK;
  if (!local) {
    local = 64;
    if (cl->max_wg && cl->max_wg < local) local = cl->max_wg;
  }
  const size_t global = (n + local - 1) / local * local;
  cl_event ev = NULL;
  const int keep = prof && cl->profiling;
  cl_int rc = clEnqueueNDRangeKernel(cl->queue, k->k, 1, NULL, &global, &local, 0, NULL,
                                     keep ? &ev : NULL);
  if (rc != CL_SUCCESS)
    return drape_fail(e, DRAPE_ECL, "clEnqueueNDRangeKernel(%s, %zu items): %s", k->name, n,
                      drape_cl_errstr(rc));
  return keep ? dr_cl_prof_keep(prof, ev, e) : DRAPE_OK;
}

int dr_cl_fill0(drape_cl *cl, cl_mem m, size_t bytes, dr_cl_prof *prof, drape_err *e) {
  const cl_uint zero = 0;
  cl_event ev = NULL;
  const int keep = prof && cl->profiling;
  DRAPE_CL_TRY(e, clEnqueueFillBuffer(cl->queue, m, &zero, sizeof zero, 0, bytes, 0, NULL,
                                      keep ? &ev : NULL));
  return keep ? dr_cl_prof_keep(prof, ev, e) : DRAPE_OK;
}
