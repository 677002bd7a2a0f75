/* dihedral.cl — XPBD dihedral-angle bending of mesh cloths (docs/solver.md,
 * "Mesh cloths"), one constraint per work item, in both kernel forms.
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

/* atan(t) for |t| <= tan(pi/8): its Taylor series to t^17 (error below
 * 3e-9, under a float's rounding), in Horner form. */
static inline float drd_atan_small(const float t) {
  const float t2 = t * t;
  float p = 1.0f / 17.0f;
  p = p * t2 - 1.0f / 15.0f;
  p = p * t2 + 1.0f / 13.0f;
  p = p * t2 - 1.0f / 11.0f;
  p = p * t2 + 1.0f / 9.0f;
  p = p * t2 - 1.0f / 7.0f;
  p = p * t2 + 1.0f / 5.0f;
  p = p * t2 - 1.0f / 3.0f;
  p = p * t2 + 1.0f;
  return p * t;
}

/* atan2(y, x) in [-pi, pi] from + - * / only: the ratio of the smaller to
 * the larger magnitude in [0, 1], folded to [0, tan(pi/8)] by
 * atan(t) = pi/4 + atan((t - 1) / (t + 1)), then the octant restored. */
static inline float dr_atan2f(const float y, const float x) {
  const float ax = x < 0.0f ? -x : x, ay = y < 0.0f ? -y : y;
  const float mx = ax > ay ? ax : ay, mn = ax > ay ? ay : ax;
  if (!(mx > 0.0f)) return 0.0f; /* (0, 0), or NaN: no angle */
  const float t = mn / mx;
  float r = t > 0.41421356f ? 0.25f * DRD_PI + drd_atan_small((t - 1.0f) / (t + 1.0f))
                            : drd_atan_small(t);
  if (ay > ax) r = 0.5f * DRD_PI - r;
  if (x < 0.0f) r = DRD_PI - r;
  return y < 0.0f ? -r : r;
}

/* The pair's normals, edge and signed angle (above); returns the angle. */
typedef struct drd_frame {
  float ex, ey, ez, n1x, n1y, n1z, n2x, n2y, n2z;
} drd_frame;

static inline float drd_angle(const dr_float4 a, const dr_float4 b, const dr_float4 c,
                              const dr_float4 d, drd_frame *f) {
  f->ex = b.x - a.x;
  f->ey = b.y - a.y;
  f->ez = b.z - a.z;
  const float cax = c.x - a.x, cay = c.y - a.y, caz = c.z - a.z;
  const float cbx = c.x - b.x, cby = c.y - b.y, cbz = c.z - b.z;
  const float dbx = d.x - b.x, dby = d.y - b.y, dbz = d.z - b.z;
  const float dax = d.x - a.x, day = d.y - a.y, daz = d.z - a.z;
  f->n1x = cay * cbz - caz * cby;
  f->n1y = caz * cbx - cax * cbz;
  f->n1z = cax * cby - cay * cbx;
  f->n2x = dby * daz - dbz * day;
  f->n2y = dbz * dax - dbx * daz;
  f->n2z = dbx * day - dby * dax;
  const float kx = f->n2y * f->n1z - f->n2z * f->n1y; /* N2 x N1 */
  const float ky = f->n2z * f->n1x - f->n2x * f->n1z;
  const float kz = f->n2x * f->n1y - f->n2y * f->n1x;
  const float el = DRD_SQRT(f->ex * f->ex + f->ey * f->ey + f->ez * f->ez);
  const float sn = kx * f->ex + ky * f->ey + kz * f->ez;
  const float cs = (f->n1x * f->n2x + f->n1y * f->n2y + f->n1z * f->n2z) * el;
  return dr_atan2f(sn, cs);
}

/* The signed dihedral angle of corners a, b (the edge), c, d (rad): the
 * model's rest angles. */
static inline float dr_dihedral_angle(const dr_float4 a, const dr_float4 b, const dr_float4 c,
                                      const dr_float4 d) {
  drd_frame f;
  return drd_angle(a, b, c, d, &f);
}

/* Projects constraint q, number k (its lambda slot), unless its edge is
 * torn (the caller looks: the kernel and the reference hold the distance
 * constraints' compliances differently). */
static inline void dihedral1(__global dr_float4 *x, const dr_dihedral q, __global float *lambda,
                             const int k, const float inv_h2, const int lambda_mode) {
  dr_float4 xa = x[q.a], xb = x[q.b], xc = x[q.c], xd = x[q.d];
  drd_frame f;
  const float theta = drd_angle(xa, xb, xc, xd, &f);
  const float el2 = f.ex * f.ex + f.ey * f.ey + f.ez * f.ez;
  const float l1 = f.n1x * f.n1x + f.n1y * f.n1y + f.n1z * f.n1z;
  const float l2 = f.n2x * f.n2x + f.n2y * f.n2y + f.n2z * f.n2z;
  if (el2 == 0.0f || l1 == 0.0f || l2 == 0.0f) return;
  const float el = DRD_SQRT(el2);
  /* three divisions, then products: a division costs a CPU device many
   * multiplications, and this kernel is one item per constraint */
  const float il1 = 1.0f / l1, il2 = 1.0f / l2, iel = 1.0f / el;
  /* N1 / |N1|^2, N2 / |N2|^2 */
  const float m1x = f.n1x * il1, m1y = f.n1y * il1, m1z = f.n1z * il1;
  const float m2x = f.n2x * il2, m2y = f.n2y * il2, m2z = f.n2z * il2;
  /* projections of the opposite corners on the edge, over |e| */
  const float pca = ((xc.x - xa.x) * f.ex + (xc.y - xa.y) * f.ey + (xc.z - xa.z) * f.ez) * iel;
  const float pcb = ((xc.x - xb.x) * f.ex + (xc.y - xb.y) * f.ey + (xc.z - xb.z) * f.ez) * iel;
  const float pda = ((xd.x - xa.x) * f.ex + (xd.y - xa.y) * f.ey + (xd.z - xa.z) * f.ez) * iel;
  const float pdb = ((xd.x - xb.x) * f.ex + (xd.y - xb.y) * f.ey + (xd.z - xb.z) * f.ez) * iel;
  const float gcx = el * m1x, gcy = el * m1y, gcz = el * m1z;
  const float gdx = el * m2x, gdy = el * m2y, gdz = el * m2z;
  const float gax = pcb * m1x + pdb * m2x, gay = pcb * m1y + pdb * m2y, gaz = pcb * m1z + pdb * m2z;
  const float gbx = -(pca * m1x + pda * m2x), gby = -(pca * m1y + pda * m2y),
              gbz = -(pca * m1z + pda * m2z);
  const float alpha = q.compliance * inv_h2;
  const float denom = xa.w * (gax * gax + gay * gay + gaz * gaz) +
                      xb.w * (gbx * gbx + gby * gby + gbz * gbz) +
                      xc.w * (gcx * gcx + gcy * gcy + gcz * gcz) +
                      xd.w * (gdx * gdx + gdy * gdy + gdz * gdz) + alpha;
  if (denom == 0.0f) return;
  float C = theta - q.rest;
  if (C > DRD_PI) C = C - 2.0f * DRD_PI;
  if (C < -DRD_PI) C = C + 2.0f * DRD_PI;
  const float lam = lambda_mode == DR_LAMBDA_KEEP ? lambda[k] : 0.0f;
  const float dl = (-C - alpha * lam) / denom;
  if (lambda_mode != DR_LAMBDA_NONE) lambda[k] = lam + dl;
  xa.x = xa.x + xa.w * dl * gax;
  xa.y = xa.y + xa.w * dl * gay;
  xa.z = xa.z + xa.w * dl * gaz;
  xb.x = xb.x + xb.w * dl * gbx;
  xb.y = xb.y + xb.w * dl * gby;
  xb.z = xb.z + xb.w * dl * gbz;
  xc.x = xc.x + xc.w * dl * gcx;
  xc.y = xc.y + xc.w * dl * gcy;
  xc.z = xc.z + xc.w * dl * gcz;
  xd.x = xd.x + xd.w * dl * gdx;
  xd.y = xd.y + xd.w * dl * gdy;
  xd.z = xd.z + xd.w * dl * gdz;
  x[q.a] = xa;
  x[q.b] = xb;
  x[q.c] = xc;
  x[q.d] = xd;
}

#ifdef __OPENCL_VERSION__
/* One colour [first, first + count) of the bending constraints: no two
 * share a particle (src/core/model.c colours them), so the work items
 * never write the same particle. The same kernel in both forms: a
 * 4-particle constraint has no runs of consecutive particles for the
 * vector form's float16 loads to use (docs/solver.md, "Mesh cloths"). */
__kernel void project_dihedral(__global float4 *x, __global const dr_dihedral *bend,
                               __global const float *ccomp, __global float *lambda,
                               const int first, const int count, const float inv_h2,
                               const int lambda_mode) {
  const int k = get_global_id(0);
  if (k >= count) return;
  const dr_dihedral q = bend[first + k];
  if (q.edge >= 0 && ccomp[q.edge] < 0.0f) return; /* its edge is torn */
  dihedral1(x, q, lambda, first + k, inv_h2, lambda_mode);
}
#endif
