/* dihedral.cl — XPBD dihedral-angle bending of mesh cloths (docs/solver.md,
 * "Mesh cloths"): one constraint per work item in the GPU kernel form,
 * eight per work item in the vector form.
 *
 * One source for the device and the CPU reference: src/cloth/cpu_stages.c
 * includes this file as C (with __global and __kernel defined away), so
 * the reference runs the very expressions the kernel runs, and the model
 * builder (src/core/model.c) measures rest angles with the same
 * dr_dihedral_angle. Scalar code, explicit component sums in a fixed
 * order, float literals only, no FMA contraction (drape_types.h), and no
 * library transcendental: atan2 is our own (dr_atan2f), because C's atan2f
 * and OpenCL's atan2 need not round alike and the backends must give the
 * same bits.
 *
 * The constraint (drape_types.h, dr_dihedral): triangles (a, b, c) and
 * (b, a, d) share the edge a-b; c and d are the corners opposite it. With
 * e = b - a, N1 = (c - a) x (c - b), N2 = (d - b) x (d - a) (each normal to
 * its triangle, |N| twice its area), the signed angle between the two
 * triangles is
 *   theta = atan2(((N2 x N1) . e), (N1 . N2) |e|)
 * (0 when the two lie flat, the sign telling on which side the hinge is
 * folded), and its gradient is that of Bridson, Marino and Fedkiw 2003,
 * "Simulation of clothing with folds and wrinkles", §4 (the bending
 * force's directions u1..u4, which are exactly d theta / d x):
 *   g_c = |e| N1 / |N1|^2,  g_d = |e| N2 / |N2|^2,
 *   g_a = ((c - b).e / |e|) N1/|N1|^2 + ((d - b).e / |e|) N2/|N2|^2,
 *   g_b = -((c - a).e / |e|) N1/|N1|^2 - ((d - a).e / |e|) N2/|N2|^2,
 * well defined however flat the pair is (the acos form of Müller et al.
 * 2007's appendix divides by sqrt(1 - d^2), which vanishes there). XPBD
 * (Macklin et al. 2016, eq. 18) on C = theta - rest, wrapped into
 * [-pi, pi]:
 *   dlambda = (-C - alpha~ lambda) / (sum_i w_i |g_i|^2 + alpha~),
 *   x_i += w_i g_i dlambda.
 * Skipped, as torn distance links are: a constraint whose edge's stretch
 * link is torn (its compliance < 0), and degenerate pairs (|e| or a
 * triangle's area 0, or every corner pinned). */

#ifndef __OPENCL_VERSION__
#define __global
#define __kernel
#define DRD_SQRT sqrtf
#else
#define DRD_SQRT sqrt
#endif

#define DRD_PI 3.14159265358979323846f

/* The constraint's arithmetic is written once, in DRD_DEFINE, for a lane
 * type T with its mask type I and a select SEL(mask, then, else), and
 * made twice: T = float (the CPU reference, the model builder's rest
 * angles and the GPU kernel form, one constraint per work item) and, in
 * OpenCL, T = float8 (the vector form, eight constraints of a colour per
 * work item). Why eight lanes: the indexed loads keep PoCL from
 * vectorising across work items (project.cl says the same of the distance
 * kernel), so one item per constraint ran scalar, about 16 ns a
 * constraint on the 2-core machine; explicit float8 puts the ~200 flops
 * on SIMD lanes. Branches are selects, so a lane computes what the scalar
 * code computes on its path, in the same order, and the backends keep the
 * same bits: a select picks a value, it does not round. */
#define DRD_DEFINE(S, T, I, SEL)                                                                  \
  /* atan(t) for |t| <= tan(pi/8): its Taylor series to t^17 (error below                      \
   * 3e-9, under a float's rounding), in Horner form. */                                         \
  static inline T drd_atan_small##S(const T t) {                                                 \
    const T t2 = t * t;                                                                          \
    T p = (T)(1.0f / 17.0f);                                                                     \
    p = p * t2 - 1.0f / 15.0f;                                                                   \
    p = p * t2 + 1.0f / 13.0f;                                                                   \
    p = p * t2 - 1.0f / 11.0f;                                                                   \
    p = p * t2 + 1.0f / 9.0f;                                                                    \
    p = p * t2 - 1.0f / 7.0f;                                                                    \
    p = p * t2 + 1.0f / 5.0f;                                                                    \
    p = p * t2 - 1.0f / 3.0f;                                                                    \
    p = p * t2 + 1.0f;                                                                           \
    return p * t;                                                                                \
  }                                                                                              \
  /* atan2(y, x) in [-pi, pi] from + - * / only: the ratio of the smaller                       \
   * to the larger magnitude in [0, 1], folded to [0, tan(pi/8)] by                              \
   * atan(t) = pi/4 + atan((t - 1) / (t + 1)), then the octant restored;                        \
   * (0, 0) and NaN give 0 (no angle). */                                                        \
  static inline T drd_atan2##S(const T y, const T x) {                                           \
    const T ax = SEL(x < 0.0f, -x, x), ay = SEL(y < 0.0f, -y, y);                                \
    const T mx = SEL(ax > ay, ax, ay), mn = SEL(ax > ay, ay, ax);                                \
    const T t = mn / mx;                                                                         \
    T r = SEL(t > 0.41421356f,                                                                   \
              0.25f * DRD_PI + drd_atan_small##S((t - 1.0f) / (t + 1.0f)),                      \
              drd_atan_small##S(t));                                                             \
    r = SEL(ay > ax, 0.5f * DRD_PI - r, r);                                                      \
    r = SEL(x < 0.0f, DRD_PI - r, r);                                                            \
    r = SEL(y < 0.0f, -r, r);                                                                    \
    return SEL(mx > 0.0f, r, (T)(0.0f));                                                         \
  }                                                                                              \
  /* The pair's edge e, normals N1, N2, |e| and signed angle (above). */                        \
  typedef struct drd_frame##S {                                                                  \
    T ex, ey, ez, n1x, n1y, n1z, n2x, n2y, n2z, el2, el, theta;                                  \
  } drd_frame##S;                                                                                \
  static inline drd_frame##S drd_angle##S(const T ax, const T ay, const T az, const T bx,        \
                                          const T by, const T bz, const T cx, const T cy,        \
                                          const T cz, const T dx, const T dy, const T dz) {      \
    drd_frame##S f;                                                                              \
    f.ex = bx - ax;                                                                              \
    f.ey = by - ay;                                                                              \
    f.ez = bz - az;                                                                              \
    const T cax = cx - ax, cay = cy - ay, caz = cz - az;                                         \
    const T cbx = cx - bx, cby = cy - by, cbz = cz - bz;                                         \
    const T dbx = dx - bx, dby = dy - by, dbz = dz - bz;                                         \
    const T dax = dx - ax, day = dy - ay, daz = dz - az;                                         \
    f.n1x = cay * cbz - caz * cby;                                                               \
    f.n1y = caz * cbx - cax * cbz;                                                               \
    f.n1z = cax * cby - cay * cbx;                                                               \
    f.n2x = dby * daz - dbz * day;                                                               \
    f.n2y = dbz * dax - dbx * daz;                                                               \
    f.n2z = dbx * day - dby * dax;                                                               \
    const T kx = f.n2y * f.n1z - f.n2z * f.n1y; /* N2 x N1 */                                    \
    const T ky = f.n2z * f.n1x - f.n2x * f.n1z;                                                  \
    const T kz = f.n2x * f.n1y - f.n2y * f.n1x;                                                  \
    f.el2 = f.ex * f.ex + f.ey * f.ey + f.ez * f.ez;                                             \
    f.el = DRD_SQRT(f.el2);                                                                      \
    const T sn = kx * f.ex + ky * f.ey + kz * f.ez;                                              \
    const T cs = (f.n1x * f.n2x + f.n1y * f.n2y + f.n1z * f.n2z) * f.el;                         \
    f.theta = drd_atan2##S(sn, cs);                                                              \
    return f;                                                                                    \
  }                                                                                              \
  /* One XPBD step of a constraint (or eight): moves the corners, returns                       \
   * dlambda; *act says which moved (not torn, the caller's ok, nor                              \
   * degenerate: |e| or an area 0, or every corner pinned). A lane that                          \
   * does not act keeps its corners and lambda. */                                               \
  static inline T drd_solve##S(T *ax, T *ay, T *az, const T aw, T *bx, T *by, T *bz,             \
                               const T bw, T *cx, T *cy, T *cz, const T cw, T *dx, T *dy,        \
                               T *dz, const T dw, const T rest, const T alpha, const T lam,      \
                               const I ok, I *act) {                                             \
    const drd_frame##S f = drd_angle##S(*ax, *ay, *az, *bx, *by, *bz, *cx, *cy, *cz, *dx, *dy,   \
                                        *dz);                                                    \
    const T l1 = f.n1x * f.n1x + f.n1y * f.n1y + f.n1z * f.n1z;                                  \
    const T l2 = f.n2x * f.n2x + f.n2y * f.n2y + f.n2z * f.n2z;                                  \
    /* three divisions, then products: a division costs a CPU device                            \
     * many multiplications */                                                                   \
    const T il1 = 1.0f / l1, il2 = 1.0f / l2, iel = 1.0f / f.el;                                 \
    /* N1 / |N1|^2, N2 / |N2|^2 */                                                               \
    const T m1x = f.n1x * il1, m1y = f.n1y * il1, m1z = f.n1z * il1;                             \
    const T m2x = f.n2x * il2, m2y = f.n2y * il2, m2z = f.n2z * il2;                             \
    /* projections of the opposite corners on the edge, over |e| */                             \
    const T pca = ((*cx - *ax) * f.ex + (*cy - *ay) * f.ey + (*cz - *az) * f.ez) * iel;          \
    const T pcb = ((*cx - *bx) * f.ex + (*cy - *by) * f.ey + (*cz - *bz) * f.ez) * iel;          \
    const T pda = ((*dx - *ax) * f.ex + (*dy - *ay) * f.ey + (*dz - *az) * f.ez) * iel;          \
    const T pdb = ((*dx - *bx) * f.ex + (*dy - *by) * f.ey + (*dz - *bz) * f.ez) * iel;          \
    const T gcx = f.el * m1x, gcy = f.el * m1y, gcz = f.el * m1z;                                \
    const T gdx = f.el * m2x, gdy = f.el * m2y, gdz = f.el * m2z;                                \
    const T gax = pcb * m1x + pdb * m2x, gay = pcb * m1y + pdb * m2y,                            \
            gaz = pcb * m1z + pdb * m2z;                                                         \
    const T gbx = -(pca * m1x + pda * m2x), gby = -(pca * m1y + pda * m2y),                      \
            gbz = -(pca * m1z + pda * m2z);                                                      \
    const T denom = aw * (gax * gax + gay * gay + gaz * gaz) +                                   \
                    bw * (gbx * gbx + gby * gby + gbz * gbz) +                                   \
                    cw * (gcx * gcx + gcy * gcy + gcz * gcz) +                                   \
                    dw * (gdx * gdx + gdy * gdy + gdz * gdz) + alpha;                            \
    *act = ok & (f.el2 != 0.0f) & (l1 != 0.0f) & (l2 != 0.0f) & (denom != 0.0f);                 \
    T C = f.theta - rest; /* wrapped into [-pi, pi] */                                           \
    C = SEL(C > DRD_PI, C - 2.0f * DRD_PI, C);                                                   \
    C = SEL(C < -DRD_PI, C + 2.0f * DRD_PI, C);                                                  \
    const T dl = (-C - alpha * lam) / denom;                                                     \
    *ax = SEL(*act, *ax + aw * dl * gax, *ax);                                                   \
    *ay = SEL(*act, *ay + aw * dl * gay, *ay);                                                   \
    *az = SEL(*act, *az + aw * dl * gaz, *az);                                                   \
    *bx = SEL(*act, *bx + bw * dl * gbx, *bx);                                                   \
    *by = SEL(*act, *by + bw * dl * gby, *by);                                                   \
    *bz = SEL(*act, *bz + bw * dl * gbz, *bz);                                                   \
    *cx = SEL(*act, *cx + cw * dl * gcx, *cx);                                                   \
    *cy = SEL(*act, *cy + cw * dl * gcy, *cy);                                                   \
    *cz = SEL(*act, *cz + cw * dl * gcz, *cz);                                                   \
    *dx = SEL(*act, *dx + dw * dl * gdx, *dx);                                                   \
    *dy = SEL(*act, *dy + dw * dl * gdy, *dy);                                                   \
    *dz = SEL(*act, *dz + dw * dl * gdz, *dz);                                                   \
    return dl;                                                                                   \
  }

#define DRD_SEL1(m, a, b) ((m) ? (a) : (b))
DRD_DEFINE(1, float, int, DRD_SEL1)

/* The signed dihedral angle of corners a, b (the edge), c, d (rad): the
 * model's rest angles. */
static inline float dr_dihedral_angle(const dr_float4 a, const dr_float4 b, const dr_float4 c,
                                      const dr_float4 d) {
  return drd_angle1(a.x, a.y, a.z, b.x, b.y, b.z, c.x, c.y, c.z, d.x, d.y, d.z).theta;
}

/* Projects constraint q, number k (its lambda slot), unless its edge is
 * torn (the caller looks: the kernel and the reference hold the distance
 * constraints' compliances differently). */
static inline void dihedral1(__global dr_float4 *x, const dr_dihedral q, __global float *lambda,
                             const int k, const float inv_h2, const int lambda_mode) {
  const dr_float4 xa = x[q.a], xb = x[q.b], xc = x[q.c], xd = x[q.d];
  /* scalars: OpenCL C takes no address of a vector's component */
  float ax = xa.x, ay = xa.y, az = xa.z, bx = xb.x, by = xb.y, bz = xb.z;
  float cx = xc.x, cy = xc.y, cz = xc.z, dx = xd.x, dy = xd.y, dz = xd.z;
  const float lam = lambda_mode == DR_LAMBDA_KEEP ? lambda[k] : 0.0f;
  int act;
  const float dl = drd_solve1(&ax, &ay, &az, xa.w, &bx, &by, &bz, xb.w, &cx, &cy, &cz, xc.w, &dx,
                              &dy, &dz, xd.w, q.rest, q.compliance * inv_h2, lam, 1, &act);
  if (!act) return;
  if (lambda_mode != DR_LAMBDA_NONE) lambda[k] = lam + dl;
  x[q.a].x = ax, x[q.a].y = ay, x[q.a].z = az;
  x[q.b].x = bx, x[q.b].y = by, x[q.b].z = bz;
  x[q.c].x = cx, x[q.c].y = cy, x[q.c].z = cz;
  x[q.d].x = dx, x[q.d].y = dy, x[q.d].z = dz;
}

#ifdef __OPENCL_VERSION__
#define DRD_SEL8(m, a, b) select((b), (a), (m))
DRD_DEFINE(8, float8, int8, DRD_SEL8)

/* GPU form: one constraint of colour [first, first + count) per work item.
 * No two constraints of a colour share a particle (src/core/model.c
 * colours them), so the work items never write the same particle. */
__kernel void project_dihedral_g(__global float4 *x, __global const dr_dihedral *bend,
                                 __global const float *ccomp, __global float *lambda,
                                 const int first, const int count, const float inv_h2,
                                 const int lambda_mode) {
  const int k = get_global_id(0);
  if (k >= count) return;
  const dr_dihedral q = bend[first + k];
  if (q.edge >= 0 && ccomp[q.edge] < 0.0f) return; /* its edge is torn */
  dihedral1(x, q, lambda, first + k, inv_h2, lambda_mode);
}

/* Vector form: eight constraints of the colour per work item, the lanes
 * past the colour's end repeating its last constraint and storing
 * nothing. The four corners are gathered float4 by float4 (a hinge's
 * particles are seldom consecutive) and turned into x, y, z, w columns. */
__kernel void project_dihedral(__global float4 *x, __global const dr_dihedral *bend,
                               __global const float *ccomp, __global float *lambda,
                               const int first, const int count, const float inv_h2,
                               const int lambda_mode) {
  const int k0 = get_global_id(0) * 8;
  if (k0 >= count) return;
  const int n = min(count - k0, 8); /* live lanes */
  /* lane L: its constraint (clamped to the colour), corners, and whether
   * it may act (live, its edge not torn); plain variables, not arrays, so
   * that PoCL keeps them in registers */
#define DRD_LOAD(L)                                                                               \
  const int kk##L = first + min(k0 + L, count - 1);                                               \
  const dr_dihedral q##L = bend[kk##L];                                                           \
  const float4 pa##L = x[q##L.a], pb##L = x[q##L.b], pc##L = x[q##L.c], pd##L = x[q##L.d];       \
  const int ok##L = L < n && !(q##L.edge >= 0 && ccomp[q##L.edge] < 0.0f) ? -1 : 0;
  DR_LANES8(DRD_LOAD)
#undef DRD_LOAD
#define DRD_COL(P, C)                                                                             \
  (float8)((P##0).C, (P##1).C, (P##2).C, (P##3).C, (P##4).C, (P##5).C, (P##6).C, (P##7).C)
  float8 ax = DRD_COL(pa, x), ay = DRD_COL(pa, y), az = DRD_COL(pa, z);
  float8 bx = DRD_COL(pb, x), by = DRD_COL(pb, y), bz = DRD_COL(pb, z);
  float8 cx = DRD_COL(pc, x), cy = DRD_COL(pc, y), cz = DRD_COL(pc, z);
  float8 dx = DRD_COL(pd, x), dy = DRD_COL(pd, y), dz = DRD_COL(pd, z);
  float8 lam = (float8)(0.0f);
  if (lambda_mode == DR_LAMBDA_KEEP)
    lam = (float8)(lambda[kk0], lambda[kk1], lambda[kk2], lambda[kk3], lambda[kk4], lambda[kk5],
                   lambda[kk6], lambda[kk7]);
  const int8 ok = (int8)(ok0, ok1, ok2, ok3, ok4, ok5, ok6, ok7);
  int8 act;
  const float8 dl = drd_solve8(&ax, &ay, &az, DRD_COL(pa, w), &bx, &by, &bz, DRD_COL(pb, w), &cx,
                               &cy, &cz, DRD_COL(pc, w), &dx, &dy, &dz, DRD_COL(pd, w),
                               DRD_COL(q, rest), DRD_COL(q, compliance) * inv_h2, lam, ok, &act);
  const float8 lnew = lam + dl;
#define DRD_STORE(L)                                                                              \
  if (act.s##L) {                                                                                \
    if (lambda_mode != DR_LAMBDA_NONE) lambda[kk##L] = lnew.s##L;                                 \
    x[q##L.a] = (float4)(ax.s##L, ay.s##L, az.s##L, pa##L.w);                                    \
    x[q##L.b] = (float4)(bx.s##L, by.s##L, bz.s##L, pb##L.w);                                    \
    x[q##L.c] = (float4)(cx.s##L, cy.s##L, cz.s##L, pc##L.w);                                    \
    x[q##L.d] = (float4)(dx.s##L, dy.s##L, dz.s##L, pd##L.w);                                    \
  }
  DR_LANES8(DRD_STORE)
#undef DRD_STORE
#undef DRD_COL
}
#endif
