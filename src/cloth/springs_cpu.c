/* CPU reference of kernels/springs.cl and kernels/verlet.cl (see the
 * comments there for the physics). Same expressions, same order, single
 * precision, no FMA contraction (-ffp-contract=off), so the OpenCL path
 * can be compared with it. */
#include <math.h>

#include "cloth/cpu_stages.h"

void cpu_springs_forces(const dr_float4 *x, dr_float4 *p, const dr_float4 *v, dr_float4 *vn,
                        const dr_int *obj, const dr_object *objects, const dr_int *adj_off,
                        const dr_int *adj_j, const dr_float4 *adj_prm, dr_int *diverged,
                        const dr_step_params *sp, float blowup) {
  for (int i = 0; i < sp->n_particles; i++) {
    const dr_float4 xi = x[i], vi = v[i];
    p[i] = xi;
    float fx = 0.0f, fy = 0.0f, fz = 0.0f;
    int bad = 0;
    for (int q = adj_off[i]; q < adj_off[i + 1]; q++) {
      const int j = adj_j[q];
      const dr_float4 prm = adj_prm[q];
      const dr_float4 xj = x[j], vj = v[j];
      const float dx = xi.x - xj.x;
      const float dy = xi.y - xj.y;
      const float dz = xi.z - xj.z;
      const float len2 = dx * dx + dy * dy + dz * dz;
      const float lim = prm.x * blowup;
      if (!(len2 <= lim * lim)) bad = 1;
      if (!(len2 > 0.0f)) continue;
      const float len = sqrtf(len2);
      const float inv = 1.0f / len;
      const float nx = dx * inv, ny = dy * inv, nz = dz * inv;
      const float c = len - prm.x;
      const float rv = (vi.x - vj.x) * nx + (vi.y - vj.y) * ny + (vi.z - vj.z) * nz;
      const float f = -prm.y * c - prm.z * rv;
      fx = fx + f * nx;
      fy = fy + f * ny;
      fz = fz + f * nz;
    }
    if (bad && i < *diverged) *diverged = i;
    dr_float4 o = vi;
    if (xi.w != 0.0f) {
      const float d = objects[obj[i]].damping;
      o.x = (vi.x + sp->h * (fx * xi.w + sp->gravity.x)) * d;
      o.y = (vi.y + sp->h * (fy * xi.w + sp->gravity.y)) * d;
      o.z = (vi.z + sp->h * (fz * xi.w + sp->gravity.z)) * d;
    }
    o.w = 0.0f;
    vn[i] = o;
  }
}

void cpu_springs_advance(dr_float4 *x, dr_float4 *v, const dr_float4 *vn, dr_int *diverged,
                         const dr_step_params *sp) {
  for (int i = 0; i < sp->n_particles; i++) {
    dr_float4 xi = x[i];
    const dr_float4 o = vn[i];
    if (xi.w != 0.0f) {
      xi.x = xi.x + sp->h * o.x;
      xi.y = xi.y + sp->h * o.y;
      xi.z = xi.z + sp->h * o.z;
      x[i] = xi;
    }
    v[i] = o;
    if (!(isfinite(xi.x) && isfinite(xi.y) && isfinite(xi.z) && isfinite(o.x) && isfinite(o.y) &&
          isfinite(o.z)) &&
        i < *diverged)
      *diverged = i;
  }
}

void cpu_verlet_predict(dr_float4 *x, dr_float4 *p, const dr_int *obj, const dr_object *objects,
                        const dr_step_params *sp) {
  for (int i = 0; i < sp->n_particles; i++) {
    dr_float4 xi = x[i];
    const dr_float4 xp = p[i];
    p[i] = xi;
    if (xi.w == 0.0f) continue;
    const float d = objects[obj[i]].damping;
    const float h2 = sp->h * sp->h;
    xi.x = xi.x + (xi.x - xp.x) * d + sp->gravity.x * h2;
    xi.y = xi.y + (xi.y - xp.y) * d + sp->gravity.y * h2;
    xi.z = xi.z + (xi.z - xp.z) * d + sp->gravity.z * h2;
    x[i] = xi;
  }
}
