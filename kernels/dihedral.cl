/* dihedral.cl — the edge units of mesh cloths (docs/solver.md, "Mesh
 * cloths"): each edge's XPBD dihedral-angle hinge (when the edge has two
 * triangles), then its stretch link; one unit per work item in the GPU
 * kernel form, eight per work item in the vector form.
 *
 * One source for the device and the CPU reference: src/cloth/cpu_stages.c
 * includes this file as C (with __global and __kernel defined away), so
 * the reference runs the very expressions the kernel runs, and the model
 * builder (src/core/model.c) measures rest angles with the same
 * dr_dihedral_angle. Scalar code, explicit component sums in a fixed
 * order, float literals only, no FMA contraction (drape_types.h), and no
 * library transcendental: atan2 is our own (drd_atan2), because C's atan2f
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
 * Skipped: a unit whose stretch link is torn (its compliance < 0), and
 * degenerate hinges (|e| or a triangle's area 0, or every corner pinned). */

#ifndef __OPENCL_VERSION__
#define __global
#define __kernel
#define DRD_SQRT sqrtf
#define DRD_FABS fabsf
#else
#define DRD_SQRT sqrt
#define DRD_FABS fabs
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
    /* one polynomial, on the folded or the plain ratio (x + 0 = x: the                          \
     * same value as a branch to either) */                                                      \
    const I fold = t > 0.41421356f;                                                              \
    T r = drd_atan_small##S(SEL(fold, (t - 1.0f) / (t + 1.0f), t)) +                             \
          SEL(fold, (T)(0.25f * DRD_PI), (T)(0.0f));                                             \
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
  }                                                                                              \
  /* The unit's stretch link a-b, XPBD as project.cl and the CPU                                \
   * reference's cpu_project_distance compute it, in their order: s =                            \
   * (-C - alpha lambda) / ((w_a + w_b + alpha) |d|), x_a += w_a d s,                            \
   * x_b -= w_b d s. A tension-only link (rest < 0) that is slack moves                          \
   * nothing and its lambda becomes 0 (*slack). Returns the new lambda. */                       \
  static inline T drd_stretch##S(T *ax, T *ay, T *az, const T aw, T *bx, T *by, T *bz,           \
                                 const T bw, const T rest, const T alpha, const T lam,           \
                                 const I ok, I *act, I *slack) {                                 \
    const T denom = aw + bw + alpha;                                                             \
    const T dx = *ax - *bx, dy = *ay - *by, dz = *az - *bz;                                      \
    const T len2 = dx * dx + dy * dy + dz * dz;                                                  \
    const I live = ok & (denom != 0.0f) & (len2 != 0.0f);                                        \
    const T len = DRD_SQRT(len2);                                                                \
    const T C = len - DRD_FABS(rest);                                                            \
    *slack = live & (rest < 0.0f) & (C < 0.0f);                                                  \
    *act = live & !*slack;                                                                       \
    const T num = -C - alpha * lam;                                                              \
    const T s = num / (denom * len);                                                             \
    const T gx = dx * s, gy = dy * s, gz = dz * s;                                               \
    *ax = SEL(*act, *ax + aw * gx, *ax);                                                         \
    *ay = SEL(*act, *ay + aw * gy, *ay);                                                         \
    *az = SEL(*act, *az + aw * gz, *az);                                                         \
    *bx = SEL(*act, *bx - bw * gx, *bx);                                                         \
    *by = SEL(*act, *by - bw * gy, *by);                                                         \
    *bz = SEL(*act, *bz - bw * gz, *bz);                                                         \
    return SEL(*slack, (T)(0.0f), lam + num / denom);                                            \
  }

#define DRD_SEL1(m, a, b) ((m) ? (a) : (b))
DRD_DEFINE(1, float, int, DRD_SEL1)

/* The signed dihedral angle of corners a, b (the edge), c, d (rad): the
 * model's rest angles. */
static inline float dr_dihedral_angle(const dr_float4 a, const dr_float4 b, const dr_float4 c,
                                      const dr_float4 d) {
  return drd_angle1(a.x, a.y, a.z, b.x, b.y, b.z, c.x, c.y, c.z, d.x, d.y, d.z).theta;
}

/* Projects edge unit q, number k (its bending lambda slot): the hinge
 * across the edge, if it has one (c >= 0), then the edge's stretch link
 * q.edge with its current rest length and compliance (the distance
 * constraints' arrays: stitches and tearing change them). The stretch
 * comes last so that the unit ends on the link that carries the load, as
 * a sweep of the distance colours does. A torn link (compliance < 0)
 * stops the whole unit. */
static inline void edge_unit1(__global dr_float4 *x, const dr_dihedral q, const float rest,
                              const float comp, __global float *blambda,
                              __global float *dlambda, const int k, const float inv_h2,
                              const int lambda_mode) {
  if (!(comp >= 0.0f)) return; /* torn */
  int act, slack;
  if (q.c >= 0) {
    const dr_float4 xa = x[q.a], xb = x[q.b], xc = x[q.c], xd = x[q.d];
    /* scalars: OpenCL C takes no address of a vector's component */
    float ax = xa.x, ay = xa.y, az = xa.z, bx = xb.x, by = xb.y, bz = xb.z;
    float cx = xc.x, cy = xc.y, cz = xc.z, dx = xd.x, dy = xd.y, dz = xd.z;
    const float lam = lambda_mode == DR_LAMBDA_KEEP ? blambda[k] : 0.0f;
    const float dl = drd_solve1(&ax, &ay, &az, xa.w, &bx, &by, &bz, xb.w, &cx, &cy, &cz, xc.w, &dx,
                                &dy, &dz, xd.w, q.rest, q.compliance * inv_h2, lam, 1, &act);
    if (act) {
      if (lambda_mode != DR_LAMBDA_NONE) blambda[k] = lam + dl;
      x[q.a].x = ax, x[q.a].y = ay, x[q.a].z = az;
      x[q.b].x = bx, x[q.b].y = by, x[q.b].z = bz;
      x[q.c].x = cx, x[q.c].y = cy, x[q.c].z = cz;
      x[q.d].x = dx, x[q.d].y = dy, x[q.d].z = dz;
    }
  }
  const dr_float4 xa = x[q.a], xb = x[q.b];
  float ax = xa.x, ay = xa.y, az = xa.z, bx = xb.x, by = xb.y, bz = xb.z;
  const float lam = lambda_mode == DR_LAMBDA_KEEP ? dlambda[q.edge] : 0.0f;
  const float lnew = drd_stretch1(&ax, &ay, &az, xa.w, &bx, &by, &bz, xb.w, rest, comp * inv_h2,
                                  lam, 1, &act, &slack);
  if ((act || slack) && lambda_mode != DR_LAMBDA_NONE) dlambda[q.edge] = lnew;
  if (!act) return;
  x[q.a].x = ax, x[q.a].y = ay, x[q.a].z = az;
  x[q.b].x = bx, x[q.b].y = by, x[q.b].z = bz;
}

#ifdef __OPENCL_VERSION__
#define DRD_SELV(m, a, b) select((b), (a), (m))
DRD_DEFINE(8, float8, int8, DRD_SELV)

/* GPU form: one edge unit of colour [first, first + count) per work item.
 * No two units of a colour share a particle (src/core/model.c colours
 * them), so the work items never write the same particle. */
__kernel void project_dihedral_g(__global float4 *x, __global const dr_dihedral *bend,
                                 __global const float *crest, __global const float *ccomp,
                                 __global float *blambda, __global float *dlambda,
                                 const int first, const int count, const float inv_h2,
                                 const int lambda_mode) {
  const int k = get_global_id(0);
  if (k >= count) return;
  const dr_dihedral q = bend[first + k];
  edge_unit1(x, q, crest[q.edge], ccomp[q.edge], blambda, dlambda, first + k, inv_h2,
             lambda_mode);
}

/* Lane L (a number) and its vector component suffix S. */
#define DRD_LANES(F) F(0, 0) F(1, 1) F(2, 2) F(3, 3) F(4, 4) F(5, 5) F(6, 6) F(7, 7)

/* Vector form: DR_BEND_LANES (16) edge units of the colour per work item,
 * the lanes past the colour's end repeating its last unit and storing
 * nothing. Sixteen, not eight: the hinge is one long chain of dependent
 * operations (three divisions, a square root, a degree-17 polynomial),
 * and two float8 halves give the core two chains to overlap (perf on
 * PoCL: the eight-lane kernel stalled on the polynomial). The four
 * corners are gathered float4 by float4 (a hinge's particles are seldom
 * consecutive) into x, y, z, w columns; a unit without a hinge reads its
 * edge's corner a in place of c and d and its hinge lane does not act. */
__kernel void project_dihedral(__global float4 *x, __global const dr_dihedral *bend,
                               __global const float *crest, __global const float *ccomp,
                               __global float *blambda, __global float *dlambda,
                               const int first, const int count, const float inv_h2,
                               const int lambda_mode) {
  const int k0 = get_global_id(0) * DR_BEND_LANES;
  if (k0 >= count) return;
  const int n = min(count - k0, DR_BEND_LANES); /* live lanes */
  /* Lane by lane into vectors: the units' indices and constants, then the
   * corners as x, y, z, w columns. Nothing per lane stays alive past its
   * load (the stores rebuild each float4 from the columns): with the
   * gathered float4s kept for the stores, PoCL spilled a quarter of the
   * kernel's instructions to the stack. */
  int8 ia, ib, ic, id, ie, hok;
  float8 hrest, hcomp;
#define DRD_LOAD(L, S)                                                                            \
  {                                                                                              \
    const dr_dihedral q = bend[first + min(k0 + L, count - 1)];                                  \
    const int h = q.c >= 0; /* a hinge; else c, d read a in their place */                       \
    ia.s##S = q.a, ib.s##S = q.b, ic.s##S = h ? q.c : q.a, id.s##S = h ? q.d : q.a;              \
    ie.s##S = q.edge, hok.s##S = h ? -1 : 0, hrest.s##S = q.rest, hcomp.s##S = q.compliance;     \
  }
  DRD_LANES(DRD_LOAD)
#undef DRD_LOAD
  /* each corner's eight float4s as two float16s, split into x, y, z, w
   * columns by one two-source permute each (a transposition that PoCL
   * otherwise builds element by element) */
  DR_GATHER8(x, ia, ax, ay, az, aw)
  DR_GATHER8(x, ib, bx, by, bz, bw)
  DR_GATHER8(x, ic, cx, cy, cz, cw)
  DR_GATHER8(x, id, dx, dy, dz, dw)
  float8 er, ec;
#define DRD_EDGE(L, S) er.s##S = crest[ie.s##S], ec.s##S = ccomp[ie.s##S];
  DRD_LANES(DRD_EDGE)
#undef DRD_EDGE
  /* live (inside the colour) and not torn */
  const int8 ok = ((int8)(0, 1, 2, 3, 4, 5, 6, 7) < n) & (ec >= 0.0f);
  float8 hlam = (float8)(0.0f), slam = (float8)(0.0f);
  if (lambda_mode == DR_LAMBDA_KEEP) {
#define DRD_LAM(L, S) hlam.s##S = blambda[first + min(k0 + L, count - 1)], slam.s##S = dlambda[ie.s##S];
    DRD_LANES(DRD_LAM)
#undef DRD_LAM
  }
  int8 hact, sact, slack;
  const float8 dl = drd_solve8(&ax, &ay, &az, aw, &bx, &by, &bz, bw, &cx, &cy, &cz, cw, &dx, &dy,
                               &dz, dw, hrest, hcomp * inv_h2, hlam, ok & hok, &hact);
  const float8 hnew = hlam + dl;
  const float8 snew = drd_stretch8(&ax, &ay, &az, aw, &bx, &by, &bz, bw, er, ec * inv_h2, slam, ok,
                                   &sact, &slack);
  /* back to float4s: x, y interleaved and z, w interleaved, then pairs
   * of those; float4 L of a corner is lane L's particle */
#define DRD_ROWS(X, Y, Z, W, Q0, Q1)                                                              \
  float16 Q0, Q1;                                                                                \
  {                                                                                              \
    const uint16 il = (uint16)(0, 8, 1, 9, 2, 10, 3, 11, 4, 12, 5, 13, 6, 14, 7, 15);            \
    const float16 xy = shuffle2(X, Y, il), zw = shuffle2(Z, W, il);                              \
    Q0 = shuffle2(xy, zw, (uint16)(0, 1, 16, 17, 2, 3, 18, 19, 4, 5, 20, 21, 6, 7, 22, 23));     \
    Q1 = shuffle2(xy, zw, (uint16)(8, 9, 24, 25, 10, 11, 26, 27, 12, 13, 28, 29, 14, 15, 30, 31)); \
  }
  DRD_ROWS(ax, ay, az, aw, qa0, qa1)
  DRD_ROWS(bx, by, bz, bw, qb0, qb1)
  DRD_ROWS(cx, cy, cz, cw, qc0, qc1)
  DRD_ROWS(dx, dy, dz, dw, qd0, qd1)
#undef DRD_ROWS
  /* c and d are stored only where the hinge acted (elsewhere they may be
   * a read in place of c, d), a and b where either part acted */
#define DRD_ROW(Q0, Q1, L) (L < 4 ? (L == 0 ? Q0.s0123 : L == 1 ? Q0.s4567 : L == 2 ? Q0.s89ab : Q0.scdef) \
                                 : (L == 4 ? Q1.s0123 : L == 5 ? Q1.s4567 : L == 6 ? Q1.s89ab : Q1.scdef))
#define DRD_STORE(L, S)                                                                           \
  if (hact.s##S) {                                                                               \
    if (lambda_mode != DR_LAMBDA_NONE) blambda[first + k0 + L] = hnew.s##S;                      \
    x[ic.s##S] = DRD_ROW(qc0, qc1, L);                                                           \
    x[id.s##S] = DRD_ROW(qd0, qd1, L);                                                           \
  }                                                                                              \
  if ((sact.s##S | slack.s##S) && lambda_mode != DR_LAMBDA_NONE) dlambda[ie.s##S] = snew.s##S;   \
  if (hact.s##S | sact.s##S) {                                                                   \
    x[ia.s##S] = DRD_ROW(qa0, qa1, L);                                                           \
    x[ib.s##S] = DRD_ROW(qb0, qb1, L);                                                           \
  }
  DRD_LANES(DRD_STORE)
#undef DRD_STORE
#undef DRD_ROW
}
#endif
