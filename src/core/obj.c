/* The one OBJ writer (core/obj.h). */
#include "core/obj.h"

#include <errno.h>
#include <math.h>
#include <string.h>
#include <unistd.h>

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
  /* vt indices are numbered apart from v indices: objects without UVs
   * (grids, ropes) write none, so the two counts differ after them */
  if (uv)
    for (int i = 0; i < n; i++)
      fprintf(f, "vt %.9g %.9g\n", (double)uv[2 * i], (double)uv[2 * i + 1]);
  const unsigned b = (unsigned)o->base + 1, bt = (unsigned)o->base_vt + 1;
  for (int t = 0; t < n_tris; t++) {
    const uint32_t *q = tris + 3 * t;
    if (q[0] == q[1] && q[1] == q[2]) continue; /* torn */
    if (uv)
      fprintf(f, "f %u/%u %u/%u %u/%u\n", q[0] + b, q[0] + bt, q[1] + b, q[1] + bt, q[2] + b,
              q[2] + bt);
    else
      fprintf(f, "f %u %u %u\n", q[0] + b, q[1] + b, q[2] + b);
  }
  /* One `l a b` per link, not one polyline: Blender 3.4's importer reads
   * only the first two vertices of an `l` line. */
  for (int l = 0; l < n_links; l++)
    fprintf(f, "l %u %u\n", links[2 * l] + b, links[2 * l + 1] + b);
  o->base += n;
  if (uv) o->base_vt += n;
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
