/* membrane.cl — material cloths (docs/solver.md, "Materials"): the
 * membrane triangles' projection, and the warm start of every constraint
 * family's multipliers at the start of a substep.
 *
 * One source for the device and the CPU reference, as dihedral.cl (which
 * comes before this file in the program and in the C includes, and gives
 * __global, __kernel and DRD_SQRT): src/cloth/cpu_stages.c includes this
 * file as C. Explicit component sums in a fixed order, no FMA contraction
 * (drape_types.h); the projections are written once for float and float8
 * (DRM_DEFINE), the warm start is scalar (it runs only with warm_start).
 *
 * The membrane (drape_types.h, dr_membrane) is the constant-strain
 * triangle written as three XPBD constraints in the fabric's own frame:
 * the warp strain C_u = |f_u| - 1, the weft strain C_v = |f_v| - 1 and the
 * shear C_s = f_u.f_v / (|f_u| |f_v|), where f_u = F e_u and f_v = F e_v
 * are the deformation gradient's columns along warp and weft (Müller,
 * Chentanez, Kim and Macklin 2014, "Strain based dynamics", constraints on
 * the strain's components; XPBD compliance as Macklin, Müller and
 * Chentanez 2016). Their compliance 1/(A k) makes the energy the
 * material's A k C^2 / 2 on any triangle of any size: a uniform strain is
 * represented exactly on every triangulation (the patch test), so the
 * same fabric stretches the same at every resolution. Projected one after
 * the other in one work item (Gauss-Seidel over the three), each
 *   dlambda = (-C - alpha~ lambda) / (sum_i w_i |g_i|^2 + alpha~),
 *   x_i += w_i g_i dlambda,  lambda += dlambda.
 *
 * Warm start (docs/solver.md, "Convergence"). Plain XPBD starts every
 * substep from lambda = 0, so one sweep must rebuild the whole internal
 * force of the cloth from nothing; on a large or soft-per-element cloth it
 * cannot, and the cloth hangs longer than its material allows (the error
 * of a link grows as w h^2 / alpha, the square of the element's frequency
 * times h). Material scenes keep each multiplier from the last substep
 * instead, apply it first as a known impulse along the constraint's
 * gradient at the substep's start positions p (one pass per colour, the
 * kernels warm_* below), and let the sweep solve only for the change:
 * iterative impulses with temporal coherence (Catto 2005, "Iterative
 * dynamics with temporal coherence"), here on XPBD's multipliers, which
 * are h^2 times the constraint forces. If a sweep converged this is the
 * same implicit step as XPBD's; when it does not, the error is carried to
 * the next substep rather than lost, and a cloth at rest is at its exact
 * static equilibrium (C + alpha lambda = 0 with the forces balancing
 * gravity), whatever its size. The gradients come from p, not from the
 * positions being moved, so the impulses of all colours are one linear
 * map of p and the static state is a fixed point to rounding. */

#ifdef __OPENCL_VERSION__
#define DRM_ZERO4 ((float4)(0.0f))
#else
#define DRM_ZERO4 ((dr_float4){0.0f, 0.0f, 0.0f, 0.0f})
#ifndef __global
#define __global
#endif
#ifndef __kernel
#define __kernel
#endif
#endif

/* The warp and weft tangents f_u, f_v of triangle q at positions a, b, c. */
typedef struct drm_tangents {
  float ux, uy, uz, vx, vy, vz;
} drm_tangents;

static inline drm_tangents drm_tangents_at(const dr_membrane q, const dr_float4 a,
                                           const dr_float4 b, const dr_float4 c) {
  const float bx = b.x - a.x, by = b.y - a.y, bz = b.z - a.z;
  const float cx = c.x - a.x, cy = c.y - a.y, cz = c.z - a.z;
  drm_tangents t;
  t.ux = q.cub * bx + q.cuc * cx, t.uy = q.cub * by + q.cuc * cy, t.uz = q.cub * bz + q.cuc * cz;
  t.vx = q.cvb * bx + q.cvc * cx, t.vy = q.cvb * by + q.cvc * cy, t.vz = q.cvb * bz + q.cvc * cz;
  return t;
}

/* The unit direction of f (3 floats) and its length; 0 for f = 0. */
static inline float drm_unit(const float fx, const float fy, const float fz, float *n) {
  const float l = DRD_SQRT(fx * fx + fy * fy + fz * fz);
  const float il = l > 0.0f ? 1.0f / l : 0.0f;
  n[0] = fx * il, n[1] = fy * il, n[2] = fz * il;
  return l;
}

/* Gradients of the three constraints at tangents t: gu, gv (the stretch
 * ones, per unit coefficient: g_i = c_i n) and the shear's dC/df_u, dC/df_v.
 * Returns the shear value C_s; *lu, *lv the tangents' lengths. */
static inline float drm_frame(const drm_tangents t, float *nu, float *nv, float *du, float *dv,
                              float *lu, float *lv) {
  *lu = drm_unit(t.ux, t.uy, t.uz, nu);
  *lv = drm_unit(t.vx, t.vy, t.vz, nv);
  const float cs = nu[0] * nv[0] + nu[1] * nv[1] + nu[2] * nv[2];
  const float iu = *lu > 0.0f ? 1.0f / *lu : 0.0f, iv = *lv > 0.0f ? 1.0f / *lv : 0.0f;
  for (int k = 0; k < 3; k++) {
    du[k] = (nv[k] - cs * nu[k]) * iu;
    dv[k] = (nu[k] - cs * nv[k]) * iv;
  }
  return cs;
}

/* The projection of a membrane triangle (warp, then weft, then shear;
 * a coarse level's triangle, tens = 1, acts only where the finer cloth is
 * stretched: its warp and weft in tension, its shear while it is stretched
 * along either, see "Multilevel" below),
 * written once for a lane type T with mask type I and select SEL, and made
 * for T = float (the CPU reference and the GPU kernel form) and, in
 * OpenCL, T = float8 (the vector form: eight triangles of a colour per
 * work item, as dihedral.cl does for hinges). Branches are selects, so a
 * lane computes the scalar code's values in its order: a component acts
 * where its compliance is >= 0 (negative: off), its tangents have length
 * and its denominator is > 0; its multiplier then takes dlambda (0 where
 * the denominator is not > 0), as the scalar step does. */
#define DRM_DEFINE(S, T, I, SEL)                                                                  \
  /* One component: gradients g (a, b, c: x, y, z each) of value C with       \
   * compliance alpha~; `live` where it acts. */                                                 \
  static inline T drm_comp##S(T *ax, T *ay, T *az, const T aw, T *bx, T *by, T *bz, const T bw,  \
                              T *cx, T *cy, T *cz, const T cw, const T gax, const T gay,         \
                              const T gaz, const T gbx, const T gby, const T gbz, const T gcx,   \
                              const T gcy, const T gcz, const T C, const T alpha, const T lam,   \
                              const I live) {                                                    \
    const T denom = aw * (gax * gax + gay * gay + gaz * gaz) +                                   \
                    bw * (gbx * gbx + gby * gby + gbz * gbz) +                                   \
                    cw * (gcx * gcx + gcy * gcy + gcz * gcz) + alpha;                            \
    const I pos = denom > 0.0f;                                                                  \
    const T dl = (-C - alpha * lam) / denom;                                                     \
    const I upd = live & pos;                                                                    \
    const T sa = aw * dl, sb = bw * dl, sc = cw * dl;                                            \
    *ax = SEL(upd, *ax + sa * gax, *ax);                                                         \
    *ay = SEL(upd, *ay + sa * gay, *ay);                                                         \
    *az = SEL(upd, *az + sa * gaz, *az);                                                         \
    *bx = SEL(upd, *bx + sb * gbx, *bx);                                                         \
    *by = SEL(upd, *by + sb * gby, *by);                                                         \
    *bz = SEL(upd, *bz + sb * gbz, *bz);                                                         \
    *cx = SEL(upd, *cx + sc * gcx, *cx);                                                         \
    *cy = SEL(upd, *cy + sc * gcy, *cy);                                                         \
    *cz = SEL(upd, *cz + sc * gcz, *cz);                                                         \
    return SEL(live, lam + SEL(pos, dl, (T)(0.0f)), lam);                                        \
  }                                                                                              \
  static inline void drm_project##S(                                                             \
      const T cub, const T cuc, const T cvb, const T cvc, const T comp_u, const T comp_v,        \
      const T comp_s, const T tens, T *ax, T *ay, T *az, const T aw, T *bx, T *by, T *bz,        \
      const T bw, T *cx, T *cy, T *cz, const T cw, T *lam_u, T *lam_v, T *lam_s,                 \
      const float inv_h2, const I ok) {                                                          \
    const T cua = -(cub + cuc), cva = -(cvb + cvc);                                              \
    /* warp, then weft: C = |f| - 1 along the unit tangent n, g_i = c_i n */                    \
    for (int k = 0; k < 2; k++) {                                                                \
      const T c1 = k ? cvb : cub, c2 = k ? cvc : cuc, c0 = k ? cva : cua;                         \
      const T ebx = *bx - *ax, eby = *by - *ay, ebz = *bz - *az;                                 \
      const T ecx = *cx - *ax, ecy = *cy - *ay, ecz = *cz - *az;                                 \
      const T fx = c1 * ebx + c2 * ecx, fy = c1 * eby + c2 * ecy, fz = c1 * ebz + c2 * ecz;      \
      const T l = DRD_SQRT(fx * fx + fy * fy + fz * fz);                                         \
      const T il = SEL(l > 0.0f, 1.0f / l, (T)(0.0f));                                           \
      const T nx = fx * il, ny = fy * il, nz = fz * il;                                          \
      const T comp = k ? comp_v : comp_u;                                                        \
      T *lam = k ? lam_v : lam_u;                                                                \
      *lam = drm_comp##S(ax, ay, az, aw, bx, by, bz, bw, cx, cy, cz, cw, c0 * nx, c0 * ny,       \
                         c0 * nz, c1 * nx, c1 * ny, c1 * nz, c2 * nx, c2 * ny, c2 * nz,          \
                         l - 1.0f, comp * inv_h2, *lam,                                           \
                         ok & (l > 0.0f) & (comp >= 0.0f) & ((tens == 0.0f) | (l > 1.0f)));    \
    }                                                                                            \
    /* shear: C = nu . nv, dC/df_u = (nv - C nu) / |f_u|, dC/df_v likewise */                   \
    const T ebx = *bx - *ax, eby = *by - *ay, ebz = *bz - *az;                                   \
    const T ecx = *cx - *ax, ecy = *cy - *ay, ecz = *cz - *az;                                   \
    const T ux = cub * ebx + cuc * ecx, uy = cub * eby + cuc * ecy, uz = cub * ebz + cuc * ecz;  \
    const T vx = cvb * ebx + cvc * ecx, vy = cvb * eby + cvc * ecy, vz = cvb * ebz + cvc * ecz;  \
    const T lu = DRD_SQRT(ux * ux + uy * uy + uz * uz);                                          \
    const T lv = DRD_SQRT(vx * vx + vy * vy + vz * vz);                                          \
    const T iu = SEL(lu > 0.0f, 1.0f / lu, (T)(0.0f)), iv = SEL(lv > 0.0f, 1.0f / lv, (T)(0.0f)); \
    const T nux = ux * iu, nuy = uy * iu, nuz = uz * iu;                                         \
    const T nvx = vx * iv, nvy = vy * iv, nvz = vz * iv;                                         \
    const T cs = nux * nvx + nuy * nvy + nuz * nvz;                                              \
    const T dux = (nvx - cs * nux) * iu, duy = (nvy - cs * nuy) * iu, duz = (nvz - cs * nuz) * iu; \
    const T dvx = (nux - cs * nvx) * iv, dvy = (nuy - cs * nvy) * iv, dvz = (nuz - cs * nvz) * iv; \
    *lam_s = drm_comp##S(ax, ay, az, aw, bx, by, bz, bw, cx, cy, cz, cw, cua * dux + cva * dvx,   \
                         cua * duy + cva * dvy, cua * duz + cva * dvz, cub * dux + cvb * dvx,     \
                         cub * duy + cvb * dvy, cub * duz + cvb * dvz, cuc * dux + cvc * dvx,     \
                         cuc * duy + cvc * dvy, cuc * duz + cvc * dvz, cs, comp_s * inv_h2,       \
                         *lam_s,                                                             \
                         ok & (lu > 0.0f) & (lv > 0.0f) & (comp_s >= 0.0f) &                 \
                             ((tens == 0.0f) | (lu > 1.0f) | (lv > 1.0f)));                  \
  }

DRM_DEFINE(1, float, int, DRD_SEL1)

/* Projects membrane triangle q on the corners a, b, c; lam holds its three
 * multipliers (x, y, z), updated. */
static inline void drm_project(const dr_membrane q, dr_float4 *a, dr_float4 *b, dr_float4 *c,
                               dr_float4 *lam, const float inv_h2) {
  float ax = (*a).x, ay = (*a).y, az = (*a).z, bx = (*b).x, by = (*b).y, bz = (*b).z;
  float cx = (*c).x, cy = (*c).y, cz = (*c).z, lu = (*lam).x, lv = (*lam).y, ls = (*lam).z;
  drm_project1(q.cub, q.cuc, q.cvb, q.cvc, q.comp_u, q.comp_v, q.comp_s, q.tension_only, &ax, &ay, &az, (*a).w,
               &bx, &by, &bz, (*b).w, &cx, &cy, &cz, (*c).w, &lu, &lv, &ls, inv_h2, 1);
  (*a).x = ax, (*a).y = ay, (*a).z = az, (*b).x = bx, (*b).y = by, (*b).z = bz;
  (*c).x = cx, (*c).y = cy, (*c).z = cz, (*lam).x = lu, (*lam).y = lv, (*lam).z = ls;
}

/* The warm start of triangle q: its multipliers lam applied along its
 * gradients at the substep's start positions pa, pb, pc, to a, b, c. */
static inline void drm_warm(const dr_membrane q, const dr_float4 pa, const dr_float4 pb,
                            const dr_float4 pc, dr_float4 *a, dr_float4 *b, dr_float4 *c,
                            const dr_float4 lam) {
  const float cua = -(q.cub + q.cuc), cva = -(q.cvb + q.cvc);
  const drm_tangents t = drm_tangents_at(q, pa, pb, pc);
  float nu[3], nv[3], du[3], dv[3], lu, lv;
  drm_frame(t, nu, nv, du, dv, &lu, &lv);
  float d[3][3]; /* the displacement per unit inverse mass of a, b, c */
  for (int k = 0; k < 3; k++) {
    const float su = lam.x * nu[k], sv = lam.y * nv[k];
    const float shu = lam.z * du[k], shv = lam.z * dv[k];
    d[0][k] = (cua * su + cva * sv) + (cua * shu + cva * shv);
    d[1][k] = (q.cub * su + q.cvb * sv) + (q.cub * shu + q.cvb * shv);
    d[2][k] = (q.cuc * su + q.cvc * sv) + (q.cuc * shu + q.cvc * shv);
  }
  (*a).x = (*a).x + (*a).w * d[0][0], (*a).y = (*a).y + (*a).w * d[0][1], (*a).z = (*a).z + (*a).w * d[0][2];
  (*b).x = (*b).x + (*b).w * d[1][0], (*b).y = (*b).y + (*b).w * d[1][1], (*b).z = (*b).z + (*b).w * d[1][2];
  (*c).x = (*c).x + (*c).w * d[2][0], (*c).y = (*c).y + (*c).w * d[2][1], (*c).z = (*c).z + (*c).w * d[2][2];
}

/* A distance constraint's warm start: lambda along (p_a - p_b)/|p_a - p_b|
 * (project.cl's sign: x_a += w_a dlambda n). Torn links (compliance < 0)
 * and zero-length ones are skipped. */
static inline void drm_warm_link(const dr_float4 pa, const dr_float4 pb, dr_float4 *a,
                                 dr_float4 *b, const float comp, const float lam) {
  if (!(comp >= 0.0f) || lam == 0.0f) return;
  float n[3];
  const float l = drm_unit(pa.x - pb.x, pa.y - pb.y, pa.z - pb.z, n);
  if (!(l > 0.0f)) return;
  const float sa = (*a).w * lam, sb = (*b).w * lam;
  (*a).x = (*a).x + sa * n[0], (*a).y = (*a).y + sa * n[1], (*a).z = (*a).z + sa * n[2];
  (*b).x = (*b).x - sb * n[0], (*b).y = (*b).y - sb * n[1], (*b).z = (*b).z - sb * n[2];
}

/* A hinge's warm start: lambda along the dihedral angle's gradient
 * (dihedral.cl's g_a .. g_d) at the start positions. */
static inline void drm_warm_hinge(const dr_float4 pa, const dr_float4 pb, const dr_float4 pc,
                                  const dr_float4 pd, dr_float4 *a, dr_float4 *b, dr_float4 *c,
                                  dr_float4 *d, const float lam) {
  if (lam == 0.0f) return;
  const drd_frame1 f = drd_angle1(pa.x, pa.y, pa.z, pb.x, pb.y, pb.z, pc.x, pc.y, pc.z, pd.x,
                                  pd.y, pd.z);
  const float l1 = f.n1x * f.n1x + f.n1y * f.n1y + f.n1z * f.n1z;
  const float l2 = f.n2x * f.n2x + f.n2y * f.n2y + f.n2z * f.n2z;
  if (!(f.el2 > 0.0f) || !(l1 > 0.0f) || !(l2 > 0.0f)) return;
  const float il1 = 1.0f / l1, il2 = 1.0f / l2, iel = 1.0f / f.el;
  const float m1[3] = {f.n1x * il1, f.n1y * il1, f.n1z * il1};
  const float m2[3] = {f.n2x * il2, f.n2y * il2, f.n2z * il2};
  const float pca = ((pc.x - pa.x) * f.ex + (pc.y - pa.y) * f.ey + (pc.z - pa.z) * f.ez) * iel;
  const float pcb = ((pc.x - pb.x) * f.ex + (pc.y - pb.y) * f.ey + (pc.z - pb.z) * f.ez) * iel;
  const float pda = ((pd.x - pa.x) * f.ex + (pd.y - pa.y) * f.ey + (pd.z - pa.z) * f.ez) * iel;
  const float pdb = ((pd.x - pb.x) * f.ex + (pd.y - pb.y) * f.ey + (pd.z - pb.z) * f.ez) * iel;
  float g[4][3];
  for (int k = 0; k < 3; k++) {
    g[0][k] = pcb * m1[k] + pdb * m2[k];
    g[1][k] = -(pca * m1[k] + pda * m2[k]);
    g[2][k] = f.el * m1[k];
    g[3][k] = f.el * m2[k];
  }
  dr_float4 *q[4] = {a, b, c, d};
  for (int j = 0; j < 4; j++) {
    const float s = (*q[j]).w * lam;
    (*q[j]).x = (*q[j]).x + s * g[j][0], (*q[j]).y = (*q[j]).y + s * g[j][1], (*q[j]).z = (*q[j]).z + s * g[j][2];
  }
}

/* A kernel's items: work item k of the launch on the device, every k in
 * turn in the CPU reference (the loop body is one work item). */
#ifdef __OPENCL_VERSION__
#define DRM_EACH(k, count) for (int k = (int)get_global_id(0); k < (count); k = (count))
#else
#define DRM_EACH(k, count) for (int k = 0; k < (count); k++)
#endif

/* ---- kernels: one triangle, link or edge unit per work item; a colour's
 * items share no particle (src/core/model.c colours them) ---- */

__kernel void project_membrane(__global dr_float4 *x, __global const dr_membrane *mem,
                               __global dr_float4 *mlambda, const int first, const int count,
                               const float inv_h2, const int lambda_mode) {
  DRM_EACH(k, count) {
    const dr_membrane q = mem[first + k];
    dr_float4 a = x[q.a], b = x[q.b], c = x[q.c];
    dr_float4 lam = DRM_ZERO4;
    if (lambda_mode == DR_LAMBDA_KEEP) lam = mlambda[first + k];
    drm_project(q, &a, &b, &c, &lam, inv_h2);
    if (lambda_mode != DR_LAMBDA_NONE) mlambda[first + k] = lam;
    x[q.a] = a, x[q.b] = b, x[q.c] = c;
  }
}

__kernel void warm_membrane(__global dr_float4 *x, __global const dr_float4 *p,
                            __global const dr_membrane *mem, __global const dr_float4 *mlambda,
                            const int first, const int count) {
  DRM_EACH(k, count) {
    const dr_membrane q = mem[first + k];
    dr_float4 a = x[q.a], b = x[q.b], c = x[q.c];
    drm_warm(q, p[q.a], p[q.b], p[q.c], &a, &b, &c, mlambda[first + k]);
    x[q.a] = a, x[q.b] = b, x[q.c] = c;
  }
}

__kernel void warm_distance(__global dr_float4 *x, __global const dr_float4 *p,
                            __global const int *ca, __global const int *cb,
                            __global const float *ccomp, __global const float *lambda,
                            const int first, const int count) {
  DRM_EACH(k, count) {
    const int q = first + k, ia = ca[q], ib = cb[q];
    dr_float4 a = x[ia], b = x[ib];
    drm_warm_link(p[ia], p[ib], &a, &b, ccomp[q], lambda[q]);
    x[ia] = a, x[ib] = b;
  }
}

/* An edge unit (dihedral.cl): its hinge, if it has one and its link is
 * not torn, then its link. */
__kernel void warm_dihedral(__global dr_float4 *x, __global const dr_float4 *p,
                            __global const dr_dihedral *bend, __global const float *ccomp,
                            __global const float *blambda, __global const float *dlambda,
                            const int first, const int count) {
  DRM_EACH(k, count) {
    const dr_dihedral q = bend[first + k];
    const float comp = ccomp[q.edge];
    if (comp >= 0.0f) {
      dr_float4 a = x[q.a], b = x[q.b];
      if (q.c >= 0) {
        dr_float4 c = x[q.c], d = x[q.d];
        drm_warm_hinge(p[q.a], p[q.b], p[q.c], p[q.d], &a, &b, &c, &d, blambda[first + k]);
        x[q.c] = c, x[q.d] = d;
      }
      drm_warm_link(p[q.a], p[q.b], &a, &b, comp, dlambda[q.edge]);
      x[q.a] = a, x[q.b] = b;
    }
  }
}

/* A material cloth's hinge (dr_dihedral with edge -1): dihedral.cl's XPBD
 * step on its own, no link. */
__kernel void project_hinge(__global dr_float4 *x, __global const dr_dihedral *hinge,
                            __global float *hlambda, const int first, const int count,
                            const float inv_h2, const int lambda_mode) {
  DRM_EACH(k, count) {
    const dr_dihedral q = hinge[first + k];
    const dr_float4 xa = x[q.a], xb = x[q.b], xc = x[q.c], xd = x[q.d];
    float ax = xa.x, ay = xa.y, az = xa.z, bx = xb.x, by = xb.y, bz = xb.z;
    float cx = xc.x, cy = xc.y, cz = xc.z, dx = xd.x, dy = xd.y, dz = xd.z;
    const float lam = lambda_mode == DR_LAMBDA_KEEP ? hlambda[first + k] : 0.0f;
    int act;
    const float dl = drd_solve1(&ax, &ay, &az, xa.w, &bx, &by, &bz, xb.w, &cx, &cy, &cz, xc.w, &dx,
                                &dy, &dz, xd.w, q.rest, q.compliance * inv_h2, lam, 1, &act);
    if (act) {
      if (lambda_mode != DR_LAMBDA_NONE) hlambda[first + k] = lam + dl;
      x[q.a].x = ax, x[q.a].y = ay, x[q.a].z = az;
      x[q.b].x = bx, x[q.b].y = by, x[q.b].z = bz;
      x[q.c].x = cx, x[q.c].y = cy, x[q.c].z = cz;
      x[q.d].x = dx, x[q.d].y = dy, x[q.d].z = dz;
    }
  }
}

__kernel void warm_hinge(__global dr_float4 *x, __global const dr_float4 *p,
                         __global const dr_dihedral *hinge, __global const float *hlambda,
                         const int first, const int count) {
  DRM_EACH(k, count) {
    const dr_dihedral q = hinge[first + k];
    dr_float4 a = x[q.a], b = x[q.b], c = x[q.c], d = x[q.d];
    drm_warm_hinge(p[q.a], p[q.b], p[q.c], p[q.d], &a, &b, &c, &d, hlambda[first + k]);
    x[q.a] = a, x[q.b] = b, x[q.c] = c, x[q.d] = d;
  }
}

#ifdef __OPENCL_VERSION__
/* Vector form of project_hinge: DR_BEND_LANES (8) hinges of the colour per
 * work item through dihedral.cl's drd_solve8 (the scalar step's exact
 * arithmetic per lane, so the CPU reference's bits), corners gathered into
 * x, y, z, w columns as project_dihedral does; lanes past the colour's end
 * repeat its last hinge and store nothing. */
__kernel void project_hinge_v(__global float4 *x, __global const dr_dihedral *hinge,
                              __global float *hlambda, const int first, const int count,
                              const float inv_h2, const int lambda_mode) {
  const int k0 = get_global_id(0) * DR_BEND_LANES;
  if (k0 >= count) return;
  const int n = min(count - k0, DR_BEND_LANES);
  int8 ia, ib, ic, id;
  float8 hrest, hcomp, hlam = (float8)(0.0f);
#define DRM_LOAD(L, S)                                                                            \
  {                                                                                              \
    const int q_ = first + min(k0 + L, count - 1);                                               \
    const dr_dihedral q = hinge[q_];                                                             \
    ia.s##S = q.a, ib.s##S = q.b, ic.s##S = q.c, id.s##S = q.d;                                  \
    hrest.s##S = q.rest, hcomp.s##S = q.compliance;                                              \
    if (lambda_mode == DR_LAMBDA_KEEP) hlam.s##S = hlambda[q_];                                  \
  }
  DRD_LANES(DRM_LOAD)
#undef DRM_LOAD
  DR_GATHER8(x, ia, ax, ay, az, aw)
  DR_GATHER8(x, ib, bx, by, bz, bw)
  DR_GATHER8(x, ic, cx, cy, cz, cw)
  DR_GATHER8(x, id, dx, dy, dz, dw)
  const int8 ok = (int8)(0, 1, 2, 3, 4, 5, 6, 7) < n;
  int8 act;
  const float8 dl = drd_solve8(&ax, &ay, &az, aw, &bx, &by, &bz, bw, &cx, &cy, &cz, cw, &dx, &dy,
                               &dz, dw, hrest, hcomp * inv_h2, hlam, ok, &act);
  const float8 hnew = hlam + dl;
#define DRM_STORE(L, S)                                                                           \
  if (act.s##S) {                                                                                \
    if (lambda_mode != DR_LAMBDA_NONE) hlambda[first + k0 + L] = hnew.s##S;                      \
    x[ia.s##S] = (float4)(ax.s##S, ay.s##S, az.s##S, aw.s##S);                                   \
    x[ib.s##S] = (float4)(bx.s##S, by.s##S, bz.s##S, bw.s##S);                                   \
    x[ic.s##S] = (float4)(cx.s##S, cy.s##S, cz.s##S, cw.s##S);                                   \
    x[id.s##S] = (float4)(dx.s##S, dy.s##S, dz.s##S, dw.s##S);                                   \
  }
  DRD_LANES(DRM_STORE)
#undef DRM_STORE
}
#endif

#ifdef __OPENCL_VERSION__
DRM_DEFINE(8, float8, int8, DRD_SELV)

/* Vector form of project_membrane: DR_BEND_LANES (8) triangles of the
 * colour per work item (the scalar step's arithmetic per lane: the CPU
 * reference's bits), corners gathered into x, y, z, w columns; lanes past
 * the colour's end repeat its last triangle, act on nothing and store
 * nothing. No two triangles of a colour share a corner, so each lane
 * stores its own three particles. */
__kernel void project_membrane_v(__global float4 *x, __global const dr_membrane *mem,
                                 __global float4 *mlambda, const int first, const int count,
                                 const float inv_h2, const int lambda_mode) {
  const int k0 = get_global_id(0) * DR_BEND_LANES;
  if (k0 >= count) return;
  const int n = min(count - k0, DR_BEND_LANES);
  int8 ia, ib, ic;
  float8 cub, cuc, cvb, cvc, cpu, cpv, cps, cpt, lu = (float8)(0.0f), lv = (float8)(0.0f),
                                            ls = (float8)(0.0f);
#define DRM_LOAD(L, S)                                                                            \
  {                                                                                              \
    const int q_ = first + min(k0 + L, count - 1);                                               \
    const dr_membrane q = mem[q_];                                                               \
    ia.s##S = q.a, ib.s##S = q.b, ic.s##S = q.c;                                                 \
    cub.s##S = q.cub, cuc.s##S = q.cuc, cvb.s##S = q.cvb, cvc.s##S = q.cvc;                      \
    cpu.s##S = q.comp_u, cpv.s##S = q.comp_v, cps.s##S = q.comp_s, cpt.s##S = q.tension_only;     \
    if (lambda_mode == DR_LAMBDA_KEEP) {                                                         \
      const float4 l_ = mlambda[q_];                                                             \
      lu.s##S = l_.x, lv.s##S = l_.y, ls.s##S = l_.z;                                            \
    }                                                                                            \
  }
  DRD_LANES(DRM_LOAD)
#undef DRM_LOAD
  DR_GATHER8(x, ia, ax, ay, az, aw)
  DR_GATHER8(x, ib, bx, by, bz, bw)
  DR_GATHER8(x, ic, cx, cy, cz, cw)
  const int8 ok = (int8)(0, 1, 2, 3, 4, 5, 6, 7) < n;
  drm_project8(cub, cuc, cvb, cvc, cpu, cpv, cps, cpt, &ax, &ay, &az, aw, &bx, &by, &bz, bw, &cx, &cy,
               &cz, cw, &lu, &lv, &ls, inv_h2, ok);
#define DRM_STORE(L, S)                                                                           \
  if (L < n) {                                                                                   \
    if (lambda_mode != DR_LAMBDA_NONE)                                                           \
      mlambda[first + k0 + L] = (float4)(lu.s##S, lv.s##S, ls.s##S, 0.0f);                       \
    x[ia.s##S] = (float4)(ax.s##S, ay.s##S, az.s##S, aw.s##S);                                   \
    x[ib.s##S] = (float4)(bx.s##S, by.s##S, bz.s##S, bw.s##S);                                   \
    x[ic.s##S] = (float4)(cx.s##S, cy.s##S, cz.s##S, cw.s##S);                                   \
  }
  DRD_LANES(DRM_STORE)
#undef DRM_STORE
}
#endif

/* ---- Rope bending (docs/solver.md, "Ropes") ----
 *
 * A rope with a material bend EI (N m^2) bends as a rod: at each interior
 * node the constraint is the difference of the tangents around it, each
 * over its link's rest length, C = (x_c - x_b) / l1 - (x_b - x_a) / l0, a
 * vector whose length is the turning angle for small angles (2 sin of its
 * half on a rope at rest length), zero on a straight rope. Its energy with
 * compliance l / EI per component (l the node's length of rope, (l0 + l1)
 * / 2) is EI (angle / l)^2 l / 2: the rod's EI kappa^2 / 2 per length
 * (Bergou et al. 2008, "Discrete elastic rods", with the curvature taken
 * linear in the positions). Linear in the positions, it has no singular
 * gradient at the straight rope, where an angle constraint would; the
 * three components share one denominator, so one XPBD step solves them. */
__kernel void project_rod_bend(__global dr_float4 *x, __global const dr_rod_bend *rb,
                               __global dr_float4 *rlambda, const int first, const int count,
                               const float inv_h2, const int lambda_mode) {
  DRM_EACH(k, count) {
    const dr_rod_bend q = rb[first + k];
    dr_float4 a = x[q.a], b = x[q.b], c = x[q.c];
    dr_float4 lam = DRM_ZERO4;
    if (lambda_mode == DR_LAMBDA_KEEP) lam = rlambda[first + k];
    const float ga = q.il0, gc = q.il1, gb = -(q.il0 + q.il1);
    const float alpha = q.compliance * inv_h2;
    const float denom = ((a.w * (ga * ga) + b.w * (gb * gb)) + c.w * (gc * gc)) + alpha;
    if (denom > 0.0f) {
      const float cx = (c.x - b.x) * q.il1 - (b.x - a.x) * q.il0;
      const float cy = (c.y - b.y) * q.il1 - (b.y - a.y) * q.il0;
      const float cz = (c.z - b.z) * q.il1 - (b.z - a.z) * q.il0;
      const float dx = (-cx - alpha * lam.x) / denom, dy = (-cy - alpha * lam.y) / denom;
      const float dz = (-cz - alpha * lam.z) / denom;
      a.x = a.x + a.w * ga * dx, a.y = a.y + a.w * ga * dy, a.z = a.z + a.w * ga * dz;
      b.x = b.x + b.w * gb * dx, b.y = b.y + b.w * gb * dy, b.z = b.z + b.w * gb * dz;
      c.x = c.x + c.w * gc * dx, c.y = c.y + c.w * gc * dy, c.z = c.z + c.w * gc * dz;
      lam.x = lam.x + dx, lam.y = lam.y + dy, lam.z = lam.z + dz;
    }
    if (lambda_mode != DR_LAMBDA_NONE) rlambda[first + k] = lam;
    x[q.a] = a, x[q.b] = b, x[q.c] = c;
  }
}

/* ---- Multilevel material grids (docs/solver.md, "Multilevel") ----
 *
 * Gauss-Seidel moves a correction about one element per sweep, so a
 * cloth hundreds of elements wide would need hundreds of sweeps a substep
 * to carry its weight to its pins: it hangs stretched far beyond its
 * material. Each substep therefore first solves the same fabric on coarser
 * triangulations of the grid, coarsest first, one sweep each (a cascadic
 * multigrid: Bornemann and Deuflhard 1996; for position-based cloth,
 * Müller 2008, "Hierarchical Position Based Dynamics"). Level l's
 * particles are a subset of level l - 1's, so a coarse sweep moves real
 * particles; ml_prolong then moves the particles of the finer level that
 * are not in the coarser one by their coarse triangle's displacement
 * (barycentric), and ml_lambda starts each finer triangle's multipliers at
 * its share of its coarse triangle's (area times the levels' mass scale,
 * src/core/multilevel.c), so that the finer sweep solves for a correction
 * to the coarse stress rather than rebuilding it from zero: without the
 * share the coarse levels stiffen the cloth (the hanging strip of
 * tests/test_material.c hangs a quarter of its elongation). A coarse
 * level's particles stand for the mass around them: its compliances are
 * scaled by the ratio, which is XPBD's step with that mass.
 *
 * A coarse triangle spans finer ones that may be folded or bent: its
 * corners then lie closer than at rest although the cloth is not
 * compressed, and a coarse level that resisted compression would unfold
 * the cloth or straighten a bend (a cantilever curls upward). So a coarse
 * triangle holds against tension only, and against shear only while it is
 * stretched along warp or weft (as HPBD's coarse constraints are
 * unilateral). */

/* The positions at the start of the cascade; the prolongations move the
 * finer particles by what their coarse ones moved since. */
__kernel void ml_snapshot(__global const dr_float4 *x, __global dr_float4 *snap, const int count) {
  DRM_EACH(k, count) snap[k] = x[k];
}

__kernel void ml_prolong(__global dr_float4 *x, __global const dr_float4 *snap,
                         __global const dr_prolong *pr, const int first, const int count) {
  DRM_EACH(k, count) {
    const dr_prolong r = pr[first + k];
    dr_float4 xi = x[r.i];
    if (xi.w > 0.0f) { /* pinned and driven particles stay where they are */
      const dr_float4 a = x[r.a], sa = snap[r.a], b = x[r.b], sb = snap[r.b];
      const dr_float4 c = x[r.c], sc = snap[r.c];
      xi.x = xi.x + ((r.wa * (a.x - sa.x) + r.wb * (b.x - sb.x)) + r.wc * (c.x - sc.x));
      xi.y = xi.y + ((r.wa * (a.y - sa.y) + r.wb * (b.y - sb.y)) + r.wc * (c.y - sc.y));
      xi.z = xi.z + ((r.wa * (a.z - sa.z) + r.wb * (b.z - sb.z)) + r.wc * (c.z - sc.z));
      x[r.i] = xi;
    }
  }
}

__kernel void ml_lambda(__global dr_float4 *mlambda, __global const dr_memb_up *up,
                        const int first, const int count) {
  DRM_EACH(k, count) {
    const dr_memb_up u = up[first + k];
    dr_float4 l = DRM_ZERO4;
    if (u.parent >= 0) {
      const dr_float4 pl = mlambda[u.parent];
      l.x = u.f * pl.x, l.y = u.f * pl.y, l.z = u.f * pl.z;
    }
    mlambda[first + k] = l;
  }
}
