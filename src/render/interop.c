/* OpenCL -> OpenGL transfer (interop.h). */
#include "drape/interop.h"
#include "cl/runtime.h"

#include <CL/cl_gl.h>
#include <epoxy/gl.h>
#include <stdlib.h>
#include <string.h>

#include "render/render_internal.h"

struct drape_interop {
  drape_cl *cl;
  drape_render_mesh *mesh;
  drape_xfer_path path;
  size_t bytes;            /* n_vertices * 16                              */
  cl_mem gl_pos, gl_nrm;   /* share: wrapped GL buffers; hostptr: wrapped
                              persistent mappings                          */
  float *map_pos, *map_nrm;/* hostptr: GL's persistent mappings            */
  double last_ms;
};

int drape_interop_parse_mode(const char *text, drape_interop_mode *out, drape_err *e) {
  if (text && !strcmp(text, "auto")) *out = DRAPE_INTEROP_AUTO;
  else if (text && !strcmp(text, "copy")) *out = DRAPE_INTEROP_COPY;
  else if (text && !strcmp(text, "share")) *out = DRAPE_INTEROP_SHARE;
  else
    return drape_fail(e, DRAPE_EINVAL, "--interop \"%s\": expected auto, copy or share",
                      text ? text : "");
  return DRAPE_OK;
}

const char *drape_interop_mode_name(drape_interop_mode m) {
  return m == DRAPE_INTEROP_COPY ? "copy" : m == DRAPE_INTEROP_SHARE ? "share" : "auto";
}

const char *drape_xfer_path_name(drape_xfer_path p) {
  return p == DRAPE_XFER_SHARE ? "share" : p == DRAPE_XFER_HOSTPTR ? "hostptr" : "map";
}

int drape_interop_cl_init(drape_gl *gl, drape_interop_mode mode, const drape_cl_opts *base,
                          drape_cl *cl, int *shared, char *why, size_t why_cap, drape_err *e) {
  *shared = 0;
  char note[1024] = "";
  drape_cl_opts o = base ? *base : drape_cl_default_opts();
  int rc = drape_cl_init(cl, &o, e);
  if (rc) return rc;
  if (mode == DRAPE_INTEROP_COPY) {
    snprintf(note, sizeof note, "--interop copy");
    goto copy;
  }
  intptr_t gp[7];
  int npairs = drape_gl_cl_share_props(gl, gp);
  if (!cl->has_gl_sharing || npairs == 0) {
    if (!cl->has_gl_sharing)
      snprintf(note, sizeof note, "OpenCL device %d (%.200s, %.200s) has no cl_khr_gl_sharing",
               cl->device_index, cl->device_name, cl->platform_name);
    else
      snprintf(note, sizeof note, "this OpenGL context (%.300s) cannot be shared with OpenCL",
               drape_gl_describe(gl));
    if (mode == DRAPE_INTEROP_SHARE) {
      drape_cl_release(cl);
      return drape_fail(e, DRAPE_EINVAL,
                        "--interop share: %s; use --interop copy (or auto) to copy the "
                        "buffers through host memory", note);
    }
    goto copy;
  }
  {
    /* Sharing is a property of the CL context: make it again, with the GL
     * context's properties, on the device chosen above. */
    int dev = cl->device_index;
    drape_cl_release(cl);
    cl_context_properties props[8];
    for (int i = 0; i < 2 * npairs; i++) props[i] = (cl_context_properties)gp[i];
    props[2 * npairs] = 0;
    o.device_index = dev;
    o.extra_props = props;
    drape_err e2 = {0};
    rc = drape_cl_init(cl, &o, &e2);
    if (rc == DRAPE_OK) {
      *shared = 1;
      if (why && why_cap) why[0] = 0;
      return DRAPE_OK;
    }
    snprintf(note, sizeof note, "a GL-sharing OpenCL context failed: %.400s", e2.msg);
    if (mode == DRAPE_INTEROP_SHARE)
      return drape_fail(e, rc == DRAPE_EINVAL ? DRAPE_EINVAL : DRAPE_ECL,
                        "--interop share: %s; use --interop copy (or auto)", note);
    o.extra_props = NULL;
    if ((rc = drape_cl_init(cl, &o, e))) return rc;
  }
copy:
  if (why && why_cap) snprintf(why, why_cap, "%s", note);
  return DRAPE_OK;
}

/* Both sides keep their buffers in host memory: a CPU OpenCL device, and
 * a GL that can map persistently (llvmpipe is a software rasteriser, so its
 * buffers are host memory too; a GPU's are not, and it takes `map`). */
static int hostptr_possible(const drape_cl *cl) {
  if (!(cl->type & CL_DEVICE_TYPE_CPU)) return 0;
  if (!(epoxy_gl_version() >= 44 || epoxy_has_gl_extension("GL_ARB_buffer_storage"))) return 0;
  const char *r = (const char *)glGetString(GL_RENDERER);
  return r && (strstr(r, "llvmpipe") || strstr(r, "softpipe") || strstr(r, "Software"));
}

int drape_interop_create(drape_cl *cl, int shared, drape_render_mesh *m, int force_path,
                         drape_interop **out, drape_err *e) {
  *out = NULL;
  drape_interop *ip = calloc(1, sizeof *ip);
  if (!ip) return drape_fail(e, DRAPE_ENOMEM, "out of memory (interop)");
  ip->cl = cl;
  ip->mesh = m;
  ip->bytes = (size_t)drape_render_mesh_vertex_count(m) * 16;
  drape_xfer_path p = (drape_xfer_path)force_path;
  if (!p) p = shared ? DRAPE_XFER_SHARE : hostptr_possible(cl) ? DRAPE_XFER_HOSTPTR : DRAPE_XFER_MAP;
  if (p == DRAPE_XFER_SHARE && !shared) {
    free(ip);
    return drape_fail(e, DRAPE_EINVAL, "interop: the share path needs a GL-sharing CL context");
  }
  ip->path = p;
  cl_int rc = CL_SUCCESS;
  if (p == DRAPE_XFER_SHARE) {
    ip->gl_pos = clCreateFromGLBuffer(cl->ctx, CL_MEM_WRITE_ONLY,
                                      drape_render_mesh_positions_gl(m), &rc);
    if (rc == CL_SUCCESS)
      ip->gl_nrm = clCreateFromGLBuffer(cl->ctx, CL_MEM_WRITE_ONLY,
                                        drape_render_mesh_normals_gl(m), &rc);
    if (rc != CL_SUCCESS) {
      drape_interop_destroy(ip);
      return drape_fail(e, DRAPE_ECL, "clCreateFromGLBuffer failed: %s", drape_cl_errstr(rc));
    }
  } else if (p == DRAPE_XFER_HOSTPTR) {
    int grc = dr_render_mesh_persistent(m, &ip->map_pos, &ip->map_nrm, e);
    if (grc) {
      drape_interop_destroy(ip);
      return grc;
    }
    ip->gl_pos = clCreateBuffer(cl->ctx, CL_MEM_USE_HOST_PTR | CL_MEM_WRITE_ONLY, ip->bytes,
                                ip->map_pos, &rc);
    if (rc == CL_SUCCESS)
      ip->gl_nrm = clCreateBuffer(cl->ctx, CL_MEM_USE_HOST_PTR | CL_MEM_WRITE_ONLY, ip->bytes,
                                  ip->map_nrm, &rc);
    if (rc != CL_SUCCESS) {
      drape_interop_destroy(ip);
      return drape_fail(e, DRAPE_ECL, "clCreateBuffer(CL_MEM_USE_HOST_PTR over GL's mapping) "
                        "failed: %s", drape_cl_errstr(rc));
    }
  }
  *out = ip;
  return DRAPE_OK;
}

void drape_interop_destroy(drape_interop *ip) {
  if (!ip) return;
  if (ip->gl_pos) clReleaseMemObject(ip->gl_pos);
  if (ip->gl_nrm) clReleaseMemObject(ip->gl_nrm);
  free(ip);
}

drape_xfer_path drape_interop_path(const drape_interop *ip) { return ip->path; }
double drape_interop_last_ms(const drape_interop *ip) { return ip->last_ms; }

static int update_share(drape_interop *ip, cl_mem pos, cl_mem nrm, drape_err *e) {
  cl_command_queue q = ip->cl->queue;
  cl_mem objs[2] = {ip->gl_pos, ip->gl_nrm};
  /* cl_khr_gl_sharing: GL must be done with the buffers before CL acquires
   * them (without cl_khr_gl_event, glFinish is the portable way). */
  glFinish();
  DRAPE_CL_TRY(e, clEnqueueAcquireGLObjects(q, 2, objs, 0, NULL, NULL));
  cl_int rc = clEnqueueCopyBuffer(q, pos, ip->gl_pos, 0, 0, ip->bytes, 0, NULL, NULL);
  if (rc == CL_SUCCESS && nrm)
    rc = clEnqueueCopyBuffer(q, nrm, ip->gl_nrm, 0, 0, ip->bytes, 0, NULL, NULL);
  /* Release even when a copy failed, so GL gets its buffers back. */
  cl_int rr = clEnqueueReleaseGLObjects(q, 2, objs, 0, NULL, NULL);
  if (rc != CL_SUCCESS)
    return drape_fail(e, DRAPE_ECL, "clEnqueueCopyBuffer into a GL buffer failed: %s",
                      drape_cl_errstr(rc));
  if (rr != CL_SUCCESS)
    return drape_fail(e, DRAPE_ECL, "clEnqueueReleaseGLObjects failed: %s",
                      drape_cl_errstr(rr));
  DRAPE_CL_TRY(e, clFinish(q));
  return DRAPE_OK;
}

static int update_hostptr(drape_interop *ip, cl_mem pos, cl_mem nrm, drape_err *e) {
  cl_command_queue q = ip->cl->queue;
  /* GL may still read last frame's vertices (llvmpipe draws lazily). */
  glFinish();
  DRAPE_CL_TRY(e, clEnqueueCopyBuffer(q, pos, ip->gl_pos, 0, 0, ip->bytes, 0, NULL, NULL));
  if (nrm)
    DRAPE_CL_TRY(e, clEnqueueCopyBuffer(q, nrm, ip->gl_nrm, 0, 0, ip->bytes, 0, NULL, NULL));
  /* A map of a USE_HOST_PTR buffer is where OpenCL guarantees the host
   * memory holds the data; for a CPU device it costs nothing. */
  cl_mem bufs[2] = {ip->gl_pos, ip->gl_nrm};
  for (int k = 0; k < (nrm ? 2 : 1); k++) {
    cl_int rc;
    void *p = clEnqueueMapBuffer(q, bufs[k], CL_TRUE, CL_MAP_READ, 0, ip->bytes, 0, NULL, NULL,
                                 &rc);
    if (rc != CL_SUCCESS)
      return drape_fail(e, DRAPE_ECL, "clEnqueueMapBuffer(host-pointer buffer) failed: %s",
                        drape_cl_errstr(rc));
    DRAPE_CL_TRY(e, clEnqueueUnmapMemObject(q, bufs[k], p, 0, NULL, NULL));
  }
  DRAPE_CL_TRY(e, clFinish(q));
  return DRAPE_OK;
}

static int update_map(drape_interop *ip, cl_mem pos, cl_mem nrm, drape_err *e) {
  cl_command_queue q = ip->cl->queue;
  cl_mem src[2] = {pos, nrm};
  for (int k = 0; k < (nrm ? 2 : 1); k++) {
    cl_int rc;
    void *p = clEnqueueMapBuffer(q, src[k], CL_TRUE, CL_MAP_READ, 0, ip->bytes, 0, NULL, NULL,
                                 &rc);
    if (rc != CL_SUCCESS)
      return drape_fail(e, DRAPE_ECL, "clEnqueueMapBuffer(solver buffer) failed: %s",
                        drape_cl_errstr(rc));
    int n = drape_render_mesh_vertex_count(ip->mesh);
    int grc = drape_render_mesh_upload(ip->mesh, k == 0 ? p : NULL, k == 1 ? p : NULL, 0, n, e);
    cl_int urc = clEnqueueUnmapMemObject(q, src[k], p, 0, NULL, NULL);
    if (grc) return grc;
    if (urc != CL_SUCCESS)
      return drape_fail(e, DRAPE_ECL, "clEnqueueUnmapMemObject failed: %s",
                        drape_cl_errstr(urc));
  }
  DRAPE_CL_TRY(e, clFinish(q));
  return DRAPE_OK;
}

int drape_interop_update(drape_interop *ip, cl_mem positions, cl_mem normals, drape_err *e) {
  double t0 = drape_now();
  int rc = ip->path == DRAPE_XFER_SHARE     ? update_share(ip, positions, normals, e)
           : ip->path == DRAPE_XFER_HOSTPTR ? update_hostptr(ip, positions, normals, e)
                                            : update_map(ip, positions, normals, e);
  ip->last_ms = (drape_now() - t0) * 1e3;
  return rc;
}
