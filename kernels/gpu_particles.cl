/* gpu_particles.cl — the GPU form of the per-particle stages: tethers,
 * collide and the fused pass, one particle per work item (gpu_project.cl
 * says why GPUs want this shape; tethers.cl, collide.cl and update.cl have
 * the physics). predict and update_velocities are one particle per work
 * item in both forms and are shared.
 *
 * Each function is its cpu_* twin (src/cloth/cpu_stages.c) written for one
 * particle, with the same expressions in the same order and the same
 * comparisons, so NaN goes where it goes there: `!(len2 < r * r)` skips a
 * NaN particle, `len2 != 0` lets a NaN distance scale to NaN, and the
 * finiteness check sees it. The tether arrays are the vector form's
 * slot-major ones, pin[s * stride + i]: neighbouring work items read
 * neighbouring words, which is what a GPU coalesces. */

/* cpu_tethers for particle i (free); returns whether it moved. */
static inline int tethers1(__global const float4 *x, __global const int *pin,
                           __global const float *rest, const int slots, const int stride,
                           const int i, float4 *xi_) {
  float4 xi = *xi_;
  int changed = 0;
  for (int s = 0; s < slots; s++) {
    const int j = pin[s * stride + i];
    if (j < 0) break;
    const float r = rest[s * stride + i];
    const float4 xp = x[j];
    const float dx = xi.x - xp.x;
    const float dy = xi.y - xp.y;
    const float dz = xi.z - xp.z;
    const float len2 = dx * dx + dy * dy + dz * dz;
    if (len2 > r * r) {
      const float scale = r / sqrt(len2);
      xi.x = xp.x + dx * scale;
      xi.y = xp.y + dy * scale;
      xi.z = xp.z + dz * scale;
      changed = 1;
    }
  }
  *xi_ = xi;
  return changed;
}

/* cpu_collide for one free particle xi with start-of-substep position pi;
 * returns whether it touched a collider. */
static inline int collide1(float4 *xi_, const float4 pi, const float margin,
                           __global const dr_sphere *spheres, const dr_step_params sp,
                           const float t_end) {
  float4 xi = *xi_;
  int hit = 0;
  for (int s = 0; s < sp.n_spheres; s++) {
    const dr_sphere sph = spheres[s];
    const float cx = sph.center_radius.x + sph.velocity_friction.x * t_end;
    const float cy = sph.center_radius.y + sph.velocity_friction.y * t_end;
    const float cz = sph.center_radius.z + sph.velocity_friction.z * t_end;
    const float r = sph.center_radius.w + margin;
    float dx = xi.x - cx, dy = xi.y - cy, dz = xi.z - cz;
    float len2 = dx * dx + dy * dy + dz * dz;
    if (!(len2 < r * r)) continue; /* NaN stays NaN (cpu_collide) */
    const float len = sqrt(len2);
    float nx = 0.0f, ny = 1.0f, nz = 0.0f;
    if (len > 0.0f) {
      nx = dx / len;
      ny = dy / len;
      nz = dz / len;
    }
    const float depth = r - len;
    /* displacement this substep relative to the sphere surface */
    const float mx = xi.x - pi.x - sph.velocity_friction.x * sp.h;
    const float my = xi.y - pi.y - sph.velocity_friction.y * sp.h;
    const float mz = xi.z - pi.z - sph.velocity_friction.z * sp.h;
    const float mn = mx * nx + my * ny + mz * nz;
    const float tx = mx - mn * nx, ty = my - mn * ny, tz = mz - mn * nz;
    const float tl = sqrt(tx * tx + ty * ty + tz * tz);
    const float lim = sph.velocity_friction.w * depth;
    const float f = tl <= lim ? 1.0f : lim / tl;
    xi.x = xi.x - tx * f;
    xi.y = xi.y - ty * f;
    xi.z = xi.z - tz * f;
    /* onto the inflated surface */
    dx = xi.x - cx;
    dy = xi.y - cy;
    dz = xi.z - cz;
    len2 = dx * dx + dy * dy + dz * dz;
    if (len2 != 0.0f) { /* NaN scales to NaN */
      const float k = r / sqrt(len2);
      xi.x = cx + dx * k;
      xi.y = cy + dy * k;
      xi.z = cz + dz * k;
    } else {
      xi.x = cx;
      xi.y = cy + r;
      xi.z = cz;
    }
    hit = 1;
  }
  if (sp.has_floor) {
    const float fy = sp.floor_y + margin;
    if (xi.y < fy) {
      const float depth = fy - xi.y;
      const float tx = xi.x - pi.x, tz = xi.z - pi.z;
      const float tl = sqrt(tx * tx + tz * tz);
      const float lim = sp.floor_friction * depth;
      const float f = tl <= lim ? 1.0f : lim / tl;
      xi.x = xi.x - tx * f;
      xi.z = xi.z - tz * f;
      xi.y = fy;
      hit = 1;
    }
  }
  *xi_ = xi;
  return hit;
}

/* Only the particle moves and pins are never written, so no two work items
 * write one particle (tethers.cl). */
__kernel void tethers_g(__global float4 *x, __global const int *pin, __global const float *rest,
                        const int slots, const int stride, const int n) {
  const int i = get_global_id(0);
  if (i >= n) return;
  float4 xi = x[i];
  if (xi.w == 0.0f) return;
  if (tethers1(x, pin, rest, slots, stride, i, &xi)) x[i] = xi;
}

__kernel void collide_g(__global float4 *x, __global const float4 *p, __global const int *obj,
                        __global const dr_object *objects, __global const dr_sphere *spheres,
                        const dr_step_params sp, const float t_end) {
  const int i = get_global_id(0);
  if (i >= sp.n_particles) return;
  float4 xi = x[i];
  if (xi.w == 0.0f) return;
  if (collide1(&xi, p[i], objects[obj[i]].thickness, spheres, sp, t_end)) x[i] = xi;
}

/* update_fused (update.cl) for one particle:
 *   [tethers] ▸ [collide] ▸ update velocities ▸ [predict of the next substep]
 * then, with DR_FUSE_CHECK (the frame's last substep, never together with
 * the predict), the finiteness check on the values just stored. A pinned
 * particle's position is not stored at all: nothing here changes it, and
 * other work items read it as a tether pin. */
__kernel void update_fused_g(__global float4 *x, __global float4 *p, __global float4 *v,
                             __global const int *obj, __global const dr_object *objects,
                             __global const dr_sphere *spheres, __global const int *pin,
                             __global const float *rest, const int slots, const int stride,
                             const dr_step_params sp, const float t_end, const int flags,
                             __global int *bad) {
  const int i = get_global_id(0);
  if (i >= sp.n_particles) return;
  float4 xi = x[i];
  const float4 pi = p[i];
  const int free_ = xi.w != 0.0f;
  if ((flags & DR_FUSE_TETHERS) && free_) tethers1(x, pin, rest, slots, stride, i, &xi);
  if ((flags & DR_FUSE_COLLIDE) && free_)
    collide1(&xi, pi, objects[obj[i]].thickness, spheres, sp, t_end);
  /* update_velocities */
  float4 vi;
  vi.x = (xi.x - pi.x) * sp.inv_h;
  vi.y = (xi.y - pi.y) * sp.inv_h;
  vi.z = (xi.z - pi.z) * sp.inv_h;
  vi.w = 0.0f;
  v[i] = vi;
  if (flags & DR_FUSE_PREDICT) { /* predict.cl */
    p[i] = xi;
    if (free_) {
      const float d = objects[obj[i]].damping;
      float4 vn = vi;
      vn.xyz = (vn.xyz + sp.h * sp.gravity.xyz) * d;
      xi.xyz = xi.xyz + sp.h * vn.xyz;
    }
  }
  if (free_) x[i] = xi;
  if ((flags & DR_FUSE_CHECK) &&
      !(all(isfinite(xi)) && all(isfinite(vi)) && all(fabs(xi.xyz) <= DR_MAX_COORD)))
    atomic_min(bad, i);
}
