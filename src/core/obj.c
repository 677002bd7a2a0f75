/* The one OBJ writer (core/obj.h). */
#include "core/obj.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* ---- unique texture coordinates: an open-addressing table of the (u, v)
 * bit patterns seen, each with its vt number (first seen, first numbered) */

typedef struct {
  uint64_t *key; /* u bits << 32 | v bits */
  int *id;       /* -1: empty */
  size_t cap;
} uv_table;

static uint64_t uv_key(const float *uv) {
  uint32_t a, b;
  memcpy(&a, uv, 4), memcpy(&b, uv + 1, 4);
  return (uint64_t)a << 32 | b;
}

/* The vt number of uv, a new one (*n, then incremented) when first seen. */
static int uv_id(uv_table *t, const float *uv, int *n, int *is_new) {
  const uint64_t k = uv_key(uv);
  size_t s = (size_t)((k * 0x9E3779B97F4A7C15ull) >> 17) & (t->cap - 1);
  while (t->id[s] >= 0 && t->key[s] != k) s = (s + 1) & (t->cap - 1);
  *is_new = t->id[s] < 0;
  if (*is_new) t->key[s] = k, t->id[s] = (*n)++;
  return t->id[s];
}

int dr_obj_open(dr_obj *o, const char *path, int frame, double time, drape_err *e) {
  memset(o, 0, sizeof *o);
  o->path = path;
  if (snprintf(o->tmp, sizeof o->tmp, "%s.tmp%ld", path, (long)getpid()) >= (int)sizeof o->tmp)
    return o->rc = drape_fail(e, DRAPE_EINVAL, "OBJ path too long: %s", path);
  o->f = fopen(o->tmp, "w");
  if (!o->f)
    return o->rc = drape_fail(e, DRAPE_EIO, "cannot write %s: %s", o->tmp, strerror(errno));
  fprintf(o->f, "# drape %s: frame %d, t = %.9g s\n", drape_version(), frame, time);
  return DRAPE_OK;
}

int dr_obj_object(dr_obj *o, const char *kind, const char *name, const float *xyz, int stride,
                  int n, const float *uv, const uint32_t *tris, int n_tris,
                  const uint32_t *links, int n_links, drape_err *e) {
  if (o->rc) return o->rc;
  /* never a file of NaN (cloth.h, "Divergence"): the step's check stops a
   * diverged run first; this catches a state written in through the API */
  for (int i = 0; i < n; i++) {
    const float *p = xyz + (size_t)stride * i;
    if (!isfinite(p[0]) || !isfinite(p[1]) || !isfinite(p[2]))
      return o->rc = drape_fail(e, DRAPE_EUNSTABLE, "%s: not written: %s \"%s\" point %d is not "
                                "finite (%g, %g, %g)", o->path, kind, name, i, (double)p[0],
                                (double)p[1], (double)p[2]);
  }
  FILE *f = o->f;
  fprintf(f, "o %s\n", name);
  for (int i = 0; i < n; i++) {
    const float *p = xyz + (size_t)stride * i;
    fprintf(f, "v %.9g %.9g %.9g\n", (double)p[0], (double)p[1], (double)p[2]);
  }
  /* Texture coordinates per corner: one `vt` per distinct (u, v) of the
   * triangles written (same bits, same line), numbered in the order the
   * corners first use them; vt indices are numbered apart from v indices:
   * objects without UVs (grids, ropes) write none, so the two counts
   * differ after them. A seam's vertex is one `v` with a `vt` per side. */
  int *vt = NULL, n_vt = 0;
  if (uv) {
    uv_table ut = {0};
    ut.cap = 16;
    while (ut.cap < 6 * (size_t)n_tris) ut.cap <<= 1;
    ut.key = malloc(sizeof *ut.key * ut.cap);
    ut.id = malloc(sizeof *ut.id * ut.cap);
    vt = malloc(sizeof *vt * (3 * (size_t)n_tris + 1));
    if (!ut.key || !ut.id || !vt) {
      free(ut.key), free(ut.id), free(vt);
      return o->rc = drape_fail(e, DRAPE_ENOMEM, "%s: out of memory for %s \"%s\"'s texture "
                                "coordinates", o->path, kind, name);
    }
    for (size_t i = 0; i < ut.cap; i++) ut.id[i] = -1;
    for (int t = 0; t < n_tris; t++) {
      const uint32_t *q = tris + 3 * t;
      if (q[0] == q[1] && q[1] == q[2]) continue; /* torn: no face, no vt */
      for (int c = 3 * t; c < 3 * t + 3; c++) {
        int is_new;
        vt[c] = uv_id(&ut, uv + 2 * (size_t)c, &n_vt, &is_new);
        if (is_new) fprintf(f, "vt %.9g %.9g\n", (double)uv[2 * c], (double)uv[2 * c + 1]);
      }
    }
    free(ut.key), free(ut.id);
  }
  const unsigned b = (unsigned)o->base + 1, bt = (unsigned)o->base_vt + 1;
  for (int t = 0; t < n_tris; t++) {
    const uint32_t *q = tris + 3 * t;
    if (q[0] == q[1] && q[1] == q[2]) continue; /* torn */
    if (uv)
      fprintf(f, "f %u/%u %u/%u %u/%u\n", q[0] + b, (unsigned)vt[3 * t] + bt, q[1] + b,
              (unsigned)vt[3 * t + 1] + bt, q[2] + b, (unsigned)vt[3 * t + 2] + bt);
    else
      fprintf(f, "f %u %u %u\n", q[0] + b, q[1] + b, q[2] + b);
  }
  free(vt);
  /* One `l a b` per link, not one polyline: Blender 3.4's importer reads
   * only the first two vertices of an `l` line. */
  for (int l = 0; l < n_links; l++)
    fprintf(f, "l %u %u\n", links[2 * l] + b, links[2 * l + 1] + b);
  o->base += n;
  o->base_vt += n_vt;
  return DRAPE_OK;
}

int dr_obj_close(dr_obj *o, int ok, drape_err *e) {
  if (!o->f) return o->rc;
  const int bad = ferror(o->f);
  if (fclose(o->f) != 0 || bad) {
    if (!o->rc) o->rc = drape_fail(e, DRAPE_EIO, "writing %s failed: %s", o->tmp, strerror(errno));
  }
  o->f = NULL;
  if (!o->rc && ok && rename(o->tmp, o->path) != 0)
    o->rc = drape_fail(e, DRAPE_EIO, "cannot rename %s to %s: %s", o->tmp, o->path,
                       strerror(errno));
  if (o->rc || !ok) remove(o->tmp); /* the temporary is ours; the target is never touched */
  return o->rc;
}
