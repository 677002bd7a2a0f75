/* CPU reference stages: see cpu_stages.h. Keep each function in step with
 * the kernel of the same name; the comments there explain the physics. */
#include "cloth/cpu_stages.h"

#include <math.h>

#include "dihedral.cl" /* kernels/: edge_unit1, the kernel's own code */
#include "membrane.cl" /* kernels/: the material cloths' kernels, as C */

void cpu_predict(dr_float4 *x, dr_float4 *p, const dr_float4 *v, const dr_int *obj,
                 const dr_object *objects, const dr_step_params *sp) {
  const float h = sp->h;
  for (int i = 0; i < sp->n_particles; i++) {
    dr_float4 xi = x[i], vi = v[i];
    p[i] = xi;
    if (xi.w == 0.0f) continue;
    const float d = objects[obj[i]].damping;
    vi.x = (vi.x + h * sp->gravity.x) * d;
    vi.y = (vi.y + h * sp->gravity.y) * d;
    vi.z = (vi.z + h * sp->gravity.z) * d;
    xi.x = xi.x + h * vi.x;
    xi.y = xi.y + h * vi.y;
    xi.z = xi.z + h * vi.z;
    x[i] = xi;
  }
}

void cpu_drive_kinematic(dr_float4 *x, const dr_kinematic *kin, int n_kin, float alpha) {
  for (int k = 0; k < n_kin; k++) {
    const dr_kinematic *km = &kin[k];
    dr_float4 xi = x[km->particle];
    float beta = 1.0f - alpha;
    xi.x = beta * km->from.x + alpha * km->to.x;
    xi.y = beta * km->from.y + alpha * km->to.y;
    xi.z = beta * km->from.z + alpha * km->to.z;
    x[km->particle] = xi;
  }
}

void cpu_project_distance(dr_float4 *x, const dr_distance *c, float *lambda, int first, int count,
                          float inv_h2, int lambda_mode) {
  for (int k = first; k < first + count; k++) {
    dr_distance cs = c[k];
    if (cs.compliance < 0.0f) continue;
    dr_float4 xa = x[cs.a], xb = x[cs.b];
    float alpha = cs.compliance * inv_h2;
    float denom = xa.w + xb.w + alpha;
    float dx = xa.x - xb.x;
    float dy = xa.y - xb.y;
    float dz = xa.z - xb.z;
    float len2 = dx * dx + dy * dy + dz * dz;
    if (denom == 0.0f || len2 == 0.0f) continue;
    float len = sqrtf(len2);
    float C = len - fabsf(cs.rest);
    if (cs.rest < 0.0f && C < 0.0f) { /* tension-only and slack: no force, lambda 0 */
      if (lambda_mode != DR_LAMBDA_NONE) lambda[k] = 0.0f;
      continue;
    }
    float lam = lambda_mode == DR_LAMBDA_KEEP ? lambda[k] : 0.0f;
    float num = -C - alpha * lam;
    float s = num / (denom * len);
    if (lambda_mode != DR_LAMBDA_NONE) lambda[k] = lam + num / denom;
    float gx = dx * s, gy = dy * s, gz = dz * s;
    xa.x = xa.x + xa.w * gx;
    xa.y = xa.y + xa.w * gy;
    xa.z = xa.z + xa.w * gz;
    xb.x = xb.x - xb.w * gx;
    xb.y = xb.y - xb.w * gy;
    xb.z = xb.z - xb.w * gz;
    x[cs.a] = xa;
    x[cs.b] = xb;
  }
}

void cpu_project_dihedral(dr_float4 *x, const dr_dihedral *bend, const dr_distance *cons,
                          float *blambda, float *dlambda, int first, int count, float inv_h2,
                          int lambda_mode) {
  for (int k = first; k < first + count; k++) {
    const dr_dihedral q = bend[k];
    edge_unit1(x, q, cons[q.edge].rest, cons[q.edge].compliance, blambda, dlambda, k, inv_h2,
               lambda_mode);
  }
}

void cpu_tethers(dr_float4 *x, const dr_int *pin, const float *rest, int slots, int n) {
  for (int i = 0; i < n; i++) {
    dr_float4 xi = x[i];
    if (xi.w == 0.0f) continue;
    int changed = 0;
    for (int s = 0; s < slots; s++) {
      int j = pin[i * slots + s];
      if (j < 0) break;
      float r = rest[i * slots + s];
      dr_float4 xp = x[j];
      float dx = xi.x - xp.x;
      float dy = xi.y - xp.y;
      float dz = xi.z - xp.z;
      float len2 = dx * dx + dy * dy + dz * dz;
      if (len2 > r * r) {
        float scale = r / sqrtf(len2);
        xi.x = xp.x + dx * scale;
        xi.y = xp.y + dy * scale;
        xi.z = xp.z + dz * scale;
        changed = 1;
      }
    }
    if (changed) x[i] = xi;
  }
}

void cpu_collide(dr_float4 *x, const dr_float4 *p, const dr_int *obj, const dr_object *objects,
                 const dr_sphere *spheres, const dr_step_params *sp, float t_end) {
  for (int i = 0; i < sp->n_particles; i++) {
    dr_float4 xi = x[i];
    if (xi.w == 0.0f) continue;
    dr_float4 pi = p[i];
    float margin = objects[obj[i]].thickness;
    int hit = 0;
    for (int s = 0; s < sp->n_spheres; s++) {
      dr_sphere sph = spheres[s];
      float cx = sph.center_radius.x + sph.velocity_friction.x * t_end;
      float cy = sph.center_radius.y + sph.velocity_friction.y * t_end;
      float cz = sph.center_radius.z + sph.velocity_friction.z * t_end;
      float r = sph.center_radius.w + margin;
      float dx = xi.x - cx, dy = xi.y - cy, dz = xi.z - cz;
      float len2 = dx * dx + dy * dy + dz * dz;
      /* written so that NaN takes the `continue`: a NaN particle is left
       * NaN for the finiteness check, as the kernel's (len2 < r*r) does */
      if (!(len2 < r * r)) continue;
      float len = sqrtf(len2);
      float nx = 0.0f, ny = 1.0f, nz = 0.0f;
      if (len > 0.0f) { nx = dx / len; ny = dy / len; nz = dz / len; }
      float depth = r - len;
      float mx = xi.x - pi.x - sph.velocity_friction.x * sp->h;
      float my = xi.y - pi.y - sph.velocity_friction.y * sp->h;
      float mz = xi.z - pi.z - sph.velocity_friction.z * sp->h;
      float mn = mx * nx + my * ny + mz * nz;
      float tx = mx - mn * nx, ty = my - mn * ny, tz = mz - mn * nz;
      float tl = sqrtf(tx * tx + ty * ty + tz * tz);
      float lim = sph.velocity_friction.w * depth;
      float f = tl <= lim ? 1.0f : lim / tl;
      xi.x = xi.x - tx * f;
      xi.y = xi.y - ty * f;
      xi.z = xi.z - tz * f;
      dx = xi.x - cx; dy = xi.y - cy; dz = xi.z - cz;
      len2 = dx * dx + dy * dy + dz * dz;
      if (len2 != 0.0f) { /* NaN scales to NaN (collide.cl: `away`) */
        float k = r / sqrtf(len2);
        xi.x = cx + dx * k; xi.y = cy + dy * k; xi.z = cz + dz * k;
      } else {
        xi.x = cx; xi.y = cy + r; xi.z = cz;
      }
      hit = 1;
    }
    if (sp->has_floor) {
      float fy = sp->floor_y + margin;
      if (xi.y < fy) {
        float depth = fy - xi.y;
        float tx = xi.x - pi.x, tz = xi.z - pi.z;
        float tl = sqrtf(tx * tx + tz * tz);
        float lim = sp->floor_friction * depth;
        float f = tl <= lim ? 1.0f : lim / tl;
        xi.x = xi.x - tx * f;
        xi.z = xi.z - tz * f;
        xi.y = fy;
        hit = 1;
      }
    }
    if (hit) x[i] = xi;
  }
}

void cpu_update_velocities(const dr_float4 *x, const dr_float4 *p, dr_float4 *v,
                           const dr_step_params *sp, dr_int *bad) {
  for (int i = 0; i < sp->n_particles; i++) {
    dr_float4 xi = x[i], pi = p[i], vi;
    vi.x = (xi.x - pi.x) * sp->inv_h;
    vi.y = (xi.y - pi.y) * sp->inv_h;
    vi.z = (xi.z - pi.z) * sp->inv_h;
    vi.w = 0.0f;
    v[i] = vi;
    if (bad && i < *bad &&
        !(isfinite(xi.x) && isfinite(xi.y) && isfinite(xi.z) && isfinite(xi.w) &&
          isfinite(vi.x) && isfinite(vi.y) && isfinite(vi.z) && fabsf(xi.x) <= DR_MAX_COORD &&
          fabsf(xi.y) <= DR_MAX_COORD && fabsf(xi.z) <= DR_MAX_COORD))
      *bad = i;
  }
}

void cpu_wind_triangles(const dr_float4 *x, const dr_float4 *v, const dr_uint *tri,
                        dr_float4 *tri_force, const dr_step_params *sp, int n_tris) {
  for (int t = 0; t < n_tris; t++) {
    dr_uint i0 = tri[3 * t], i1 = tri[3 * t + 1], i2 = tri[3 * t + 2];
    dr_float4 x0 = x[i0], x1 = x[i1], x2 = x[i2];
    float ax = x1.x - x0.x, ay = x1.y - x0.y, az = x1.z - x0.z;
    float bx = x2.x - x0.x, by = x2.y - x0.y, bz = x2.z - x0.z;
    float cx = ay * bz - az * by;
    float cy = az * bx - ax * bz;
    float cz = ax * by - ay * bx;
    float len = sqrtf(cx * cx + cy * cy + cz * cz);
    dr_float4 f = {0, 0, 0, 0};
    if (len > 0.0f) {
      dr_float4 v0 = v[i0], v1 = v[i1], v2 = v[i2];
      float third = 1.0f / 3.0f;
      float rx = sp->wind.x - (v0.x + v1.x + v2.x) * third;
      float ry = sp->wind.y - (v0.y + v1.y + v2.y) * third;
      float rz = sp->wind.z - (v0.z + v1.z + v2.z) * third;
      float nx = cx / len, ny = cy / len, nz = cz / len;
      float vn = rx * nx + ry * ny + rz * nz;
      float s = sp->wind.w * (0.5f * len) * vn * third;
      f.x = s * nx; f.y = s * ny; f.z = s * nz;
    }
    tri_force[t] = f;
  }
}

void cpu_wind_gather(const dr_float4 *x, dr_float4 *v, const dr_float4 *tri_force,
                     const dr_int *vt_off, const dr_int *vt_list, const dr_step_params *sp) {
  for (int i = 0; i < sp->n_particles; i++) {
    int b = vt_off[i], e = vt_off[i + 1];
    float w = x[i].w;
    if (b == e || w == 0.0f) continue;
    float fx = 0.0f, fy = 0.0f, fz = 0.0f;
    for (int k = b; k < e; k++) {
      dr_float4 f = tri_force[vt_list[k]];
      fx += f.x; fy += f.y; fz += f.z;
    }
    float s = sp->h * w;
    dr_float4 vi = v[i];
    vi.x = vi.x + s * fx;
    vi.y = vi.y + s * fy;
    vi.z = vi.z + s * fz;
    v[i] = vi;
  }
}

void cpu_vertex_normals(const dr_float4 *x, dr_float4 *nrm, const dr_uint *tri,
                        const dr_int *vt_off, const dr_int *vt_list, int n) {
  for (int i = 0; i < n; i++) {
    float sx = 0.0f, sy = 0.0f, sz = 0.0f;
    for (int k = vt_off[i]; k < vt_off[i + 1]; k++) {
      int t = vt_list[k];
      dr_float4 x0 = x[tri[3 * t]], x1 = x[tri[3 * t + 1]], x2 = x[tri[3 * t + 2]];
      float ax = x1.x - x0.x, ay = x1.y - x0.y, az = x1.z - x0.z;
      float bx = x2.x - x0.x, by = x2.y - x0.y, bz = x2.z - x0.z;
      sx += ay * bz - az * by;
      sy += az * bx - ax * bz;
      sz += ax * by - ay * bx;
    }
    float len = sqrtf(sx * sx + sy * sy + sz * sz);
    dr_float4 r = {0, 0, 0, 0};
    if (len > 0.0f) { r.x = sx / len; r.y = sy / len; r.z = sz / len; }
    nrm[i] = r;
  }
}

void cpu_tear_constraints(const dr_float4 *x, dr_distance *c, const dr_int *obj,
                          const dr_object *objects, int n_cons) {
  for (int k = 0; k < n_cons; k++) {
    dr_distance cs = c[k];
    if (cs.compliance < 0.0f) continue;
    float ratio = objects[obj[cs.a]].tear_ratio;
    if (ratio <= 0.0f) continue;
    dr_float4 xa = x[cs.a], xb = x[cs.b];
    float dx = xa.x - xb.x, dy = xa.y - xb.y, dz = xa.z - xb.z;
    float lim = ratio * cs.rest; /* squared below: a tension-only rest < 0 is fine */
    if (dx * dx + dy * dy + dz * dz > lim * lim) c[k].compliance = -1.0f;
  }
}

void cpu_tear_triangles(const dr_distance *c, dr_uint *tri, const dr_int *tri_edge, int n_tris) {
  for (int t = 0; t < n_tris; t++) {
    int e0 = tri_edge[3 * t], e1 = tri_edge[3 * t + 1], e2 = tri_edge[3 * t + 2];
    if (c[e0].compliance < 0.0f || c[e1].compliance < 0.0f || c[e2].compliance < 0.0f) {
      dr_uint i0 = tri[3 * t];
      tri[3 * t + 1] = i0;
      tri[3 * t + 2] = i0;
    }
  }
}

/* kernels/membrane.cl's warm_dihedral and warm_distance over the host's
 * dr_distance records: the same loop bodies. */
void cpu_warm_dihedral(dr_float4 *x, const dr_float4 *p, const dr_dihedral *bend,
                       const dr_distance *cons, const float *blambda, const float *dlambda,
                       int first, int count) {
  for (int k = first; k < first + count; k++) {
    const dr_dihedral q = bend[k];
    const float comp = cons[q.edge].compliance;
    if (!(comp >= 0.0f)) continue;
    dr_float4 a = x[q.a], b = x[q.b];
    if (q.c >= 0) {
      dr_float4 c = x[q.c], d = x[q.d];
      drm_warm_hinge(p[q.a], p[q.b], p[q.c], p[q.d], &a, &b, &c, &d, blambda[k]);
      x[q.c] = c, x[q.d] = d;
    }
    drm_warm_link(p[q.a], p[q.b], &a, &b, comp, dlambda[q.edge]);
    x[q.a] = a, x[q.b] = b;
  }
}

void cpu_warm_distance(dr_float4 *x, const dr_float4 *p, const dr_distance *cons,
                       const float *lambda, int first, int count) {
  for (int q = first; q < first + count; q++) {
    const dr_distance d = cons[q];
    dr_float4 a = x[d.a], b = x[d.b];
    drm_warm_link(p[d.a], p[d.b], &a, &b, d.compliance, lambda[q]);
    x[d.a] = a, x[d.b] = b;
  }
}
