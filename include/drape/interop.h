/* drape — opt-in CL/GL interop (the render library): the transfer of the
 * solver's float4 positions and normals (drape_cl.h: drape_sim_cl_buffers)
 * into a render mesh's GL buffers, once per drawn frame. Includes OpenCL's
 * headers through drape_cl.h; no GL header.
 *
 * Paths (chosen at start-up, logged, overridable with --interop):
 *   share    cl_khr_gl_sharing: the GL buffers are wrapped as cl_mem
 *            (clCreateFromGLBuffer); per frame acquire, a device-side
 *            clEnqueueCopyBuffer from the solver's buffers, release. No
 *            host round trip. Needs a CL context created with the GL
 *            context's properties (drape_interop_cl_init does that).
 *   hostptr  both sides in host memory (a CPU OpenCL device such as PoCL
 *            and a GL that supports persistent mapping): the GL buffers are
 *            mapped persistently and wrapped as CL_MEM_USE_HOST_PTR
 *            buffers; CL copies straight into GL's memory.
 *   map      everything else: map the solver's buffer for reading, hand
 *            the pointer to glBufferSubData, unmap.
 * `copy` (the flag value) means: the best of hostptr and map. */
#ifndef DRAPE_INTEROP_H
#define DRAPE_INTEROP_H

#include "drape/drape_cl.h"
#include "drape/render.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum {
  DRAPE_INTEROP_AUTO = 0,  /* share when possible, else copy            */
  DRAPE_INTEROP_COPY = 1,  /* never share                               */
  DRAPE_INTEROP_SHARE = 2  /* share or fail                             */
} drape_interop_mode;

typedef enum {
  DRAPE_XFER_SHARE = 1,
  DRAPE_XFER_HOSTPTR = 2,
  DRAPE_XFER_MAP = 3
} drape_xfer_path;

/* "auto", "copy", "share"; anything else is DRAPE_EINVAL naming --interop. */
int drape_interop_parse_mode(const char *text, drape_interop_mode *out, drape_err *e);
const char *drape_interop_mode_name(drape_interop_mode m);
const char *drape_xfer_path_name(drape_xfer_path p); /* "share", "hostptr", "map" */

/* Creates the OpenCL runtime for use with gl: with the GL-sharing context
 * properties when the mode allows sharing and the device offers
 * cl_khr_gl_sharing, else a plain one. *shared says which; `why` (may be
 * NULL) receives the reason sharing is off. Mode share without support is
 * DRAPE_EINVAL with a message that names the device and suggests
 * --interop copy. */
int drape_interop_cl_init(drape_gl *gl, drape_interop_mode mode, const drape_cl_opts *base,
                          drape_cl *cl, int *shared, char *why, size_t why_cap, drape_err *e);

typedef struct drape_interop drape_interop;

/* Sets up the transfer into mesh m (n = its vertex count). shared: the
 * runtime came from drape_interop_cl_init with sharing on. force_path 0 =
 * choose; else one of drape_xfer_path (tests and benchmarks). */
int drape_interop_create(drape_cl *cl, int shared, drape_render_mesh *m, int force_path,
                         drape_interop **out, drape_err *e);
void drape_interop_destroy(drape_interop *ip);
drape_xfer_path drape_interop_path(const drape_interop *ip);

/* Copies vertices [0, n) of the float4 buffers positions and normals
 * (normals may be NULL) into the mesh. Runs after the solver's last kernel
 * on the same queue; returns when GL may draw them. */
int drape_interop_update(drape_interop *ip, cl_mem positions, cl_mem normals, drape_err *e);
/* Wall time of the last update in ms. */
double drape_interop_last_ms(const drape_interop *ip);

#ifdef __cplusplus
}
#endif
#endif
