/* project.cl — XPBD distance constraints, one launch per colour (Macklin
 * et al. 2016, eqs. 13 and 18). For C = |x_a - x_b| - rest, n = (x_a - x_b)/|.|:
 *   alpha~ = alpha / h^2
 *   dlambda = (-C - alpha~ lambda) / (w_a + w_b + alpha~)
 *   x_a += w_a dlambda n,  x_b -= w_b dlambda n,  lambda += dlambda
 * computed as s = (-C - alpha~ lambda) / ((w_a + w_b + alpha~) |x_a - x_b|),
 * x_a += w_a s (x_a - x_b): one division per constraint.
 * Constraints of one colour share no particle (src/core/colour.c), so the
 * work items of a launch never write the same particle: no atomics, and
 * the result does not depend on scheduling. With compliance 0 this is the
 * Jakobsen relaxation of seeds 002/004 weighted by inverse mass.
 * lambda_mode: DR_LAMBDA_NONE (one iteration: lambda is always 0 at the
 * start of a substep and never needed again), _FIRST, _KEEP.
 *
 * Each work item projects a group of DR_PROJECT_LANES (8) constraints.
 * Why not one: the indexed loads and stores keep a CPU OpenCL compiler
 * (PoCL) from vectorising across work items, so explicit vectors are what
 * puts the arithmetic on SIMD lanes. The particles stay in their float4
 * layout inside four float16 (A0 = a of constraints 0-3, A1 = a of 4-7,
 * B0, B1): differences, products and the position update run on the
 * float4s as they are, and only the one value per constraint that needs
 * sqrt and the division (len2, then s) is packed into a float8 and spread
 * back. Measured on PoCL (2 cores, 256^2 cloth): the earlier form that
 * transposed 16 float4s into x, y, z, w columns and back spent more
 * instructions on shuffles than on arithmetic.
 *
 * Every lane does exactly the scalar arithmetic of cpu_project_distance in
 * the same order (len2 = (dx dx + dy dy) + dz dz, x_a + w_a (dx s), ...),
 * so the CPU reference still matches bit for bit; the w lane of the
 * difference is masked to 0, so inverse masses come back unchanged. A
 * constraint that is torn or degenerate gets s = 0 and writes its
 * particles back unchanged, keeping its lambda, as the CPU reference skips
 * it. A tension-only link (rest < 0, drape_types.h) that is slack gets
 * s = 0 and lambda 0, as the reference's early exit. The host pads the
 * constraint and lambda buffers by DR_PROJECT_PAD
 * entries, so lanes past the end of the colour read valid memory (and
 * store nothing). Constraints are stored as four arrays (a, b, rest,
 * compliance) so each is one vector load.
 *
 * How the 16 particles are fetched: the host tags each group with its
 * memory pattern (DR_GROUP_*, src/core/colour.c). The grid builder's
 * order survives colouring, so most groups find their particles as runs
 * of consecutive float4s: two runs of 8 (vertical, diagonal and
 * vertical-bend families: four float16 loads) or one run of 16 in a fixed
 * interleaving (horizontal links and bends: four loads and four 128-bit
 * lane shuffles). A run holds exactly the group's 16 particles, so storing
 * it back writes nothing another work item owns. Other groups (row ends,
 * ropes, a colour's last partial group) load and store float4 by float4.
 */

__kernel void project_distance(__global float4 *x, __global const int *ca, __global const int *cb,
                               __global const float *crest, __global const float *ccomp,
                               __global float *lambda, const int first, const int count,
                               const float inv_h2, const int lambda_mode,
                               __global const uchar *pattern, const int group0) {
  const int g = get_global_id(0);
  const int k0 = g * DR_PROJECT_LANES;
  if (k0 >= count) return;
  const int n = min(count - k0, DR_PROJECT_LANES); /* live constraints */
  const int q = first + k0;
  const int pat = pattern[group0 + g];
  const int pa = ca[q], pb = cb[q];
  __global float *xf = (__global float *)x;
  float16 A0, A1, B0, B1;
  int8 ia = (int8)(0), ib = (int8)(0);
  if (pat == DR_GROUP_CONTIG) {
    A0 = vload16(0, xf + 4 * pa);
    A1 = vload16(0, xf + 4 * pa + 16);
    B0 = vload16(0, xf + 4 * pb);
    B1 = vload16(0, xf + 4 * pb + 16);
  } else if (pat != DR_GROUP_GATHER) {
    /* particles pa .. pa+15 as P0 = (0, 1, 2, 3), P1, P2, P3 */
    const float16 P0 = vload16(0, xf + 4 * pa), P1 = vload16(1, xf + 4 * pa);
    const float16 P2 = vload16(2, xf + 4 * pa), P3 = vload16(3, xf + 4 * pa);
    if (pat == DR_GROUP_EVENODD) { /* a = 0, 2, 4, ...; b = 1, 3, 5, ... */
      A0 = (float16)(P0.s0123, P0.s89ab, P1.s0123, P1.s89ab);
      B0 = (float16)(P0.s4567, P0.scdef, P1.s4567, P1.scdef);
      A1 = (float16)(P2.s0123, P2.s89ab, P3.s0123, P3.s89ab);
      B1 = (float16)(P2.s4567, P2.scdef, P3.s4567, P3.scdef);
    } else { /* DR_GROUP_PAIRS: a = 0, 1, 4, 5, ...; b = 2, 3, 6, 7, ... */
      A0 = (float16)(P0.lo, P1.lo);
      B0 = (float16)(P0.hi, P1.hi);
      A1 = (float16)(P2.lo, P3.lo);
      B1 = (float16)(P2.hi, P3.hi);
    }
  } else {
    ia = vload8(0, ca + q);
    ib = vload8(0, cb + q);
    A0 = (float16)(x[ia.s0], x[ia.s1], x[ia.s2], x[ia.s3]);
    A1 = (float16)(x[ia.s4], x[ia.s5], x[ia.s6], x[ia.s7]);
    B0 = (float16)(x[ib.s0], x[ib.s1], x[ib.s2], x[ib.s3]);
    B1 = (float16)(x[ib.s4], x[ib.s5], x[ib.s6], x[ib.s7]);
  }

  /* per float4: d = x_a - x_b, len2 = (dx dx + dy dy) + dz dz in lane x */
  const float16 d0 = A0 - B0, d1 = A1 - B1;
  const float16 e0 = d0 * d0, e1 = d1 * d1;
  const float16 t0 = DR_SUM3(e0), t1 = DR_SUM3(e1);
  /* one lane per constraint from here to s */
  const float8 len2 = (float8)(t0.s048c, t1.s048c);
  const float8 wa = (float8)(A0.s37bf, A1.s37bf), wb = (float8)(B0.s37bf, B1.s37bf);
  const float8 rest = vload8(0, crest + q); /* < 0: tension-only */
  const float8 comp = vload8(0, ccomp + q);
  const float8 alpha = comp * inv_h2;
  const float8 denom = wa + wb + alpha;
  const int8 ok = (comp >= 0.0f) & (denom != 0.0f) & (len2 != 0.0f);
  const float8 len = sqrt(len2);
  const float8 C = len - fabs(rest);
  /* a slack tension-only link moves nothing and its lambda becomes 0 */
  const int8 slack = ok & (rest < 0.0f) & (C < 0.0f);
  const int8 act = ok & ~slack;
  float8 lam = (float8)(0.0f);
  if (lambda_mode == DR_LAMBDA_KEEP) lam = vload8(0, lambda + q);
  /* one division on the critical path: s = dlambda / len */
  const float8 num = -C - alpha * lam;
  const float8 s = select((float8)(0.0f), num / (denom * len), act);
  if (lambda_mode != DR_LAMBDA_NONE) {
    const float8 lnew = select(select(lam, lam + num / denom, act), (float8)(0.0f), slack);
    if (n >= DR_PROJECT_LANES) {
      vstore8(lnew, 0, lambda + q);
    } else {
#define STL(L) if (L < n) lambda[q + L] = lnew.s##L;
      DR_LANES8(STL)
#undef STL
    }
  }
  /* back on the float4s: g = d s (w lane 0), x_a += w_a g, x_b -= w_b g */
  const float16 g0 = as_float16(as_int16(d0) & DR_XYZ_MASK) * DR_SPREAD_LO(s);
  const float16 g1 = as_float16(as_int16(d1) & DR_XYZ_MASK) * DR_SPREAD_HI(s);
  A0 = A0 + A0.s33337777bbbbffff * g0;
  A1 = A1 + A1.s33337777bbbbffff * g1;
  B0 = B0 - B0.s33337777bbbbffff * g0;
  B1 = B1 - B1.s33337777bbbbffff * g1;

  if (pat == DR_GROUP_CONTIG) {
    vstore16(A0, 0, xf + 4 * pa);
    vstore16(A1, 0, xf + 4 * pa + 16);
    vstore16(B0, 0, xf + 4 * pb);
    vstore16(B1, 0, xf + 4 * pb + 16);
  } else if (pat == DR_GROUP_EVENODD) {
    vstore16((float16)(A0.s0123, B0.s0123, A0.s4567, B0.s4567), 0, xf + 4 * pa);
    vstore16((float16)(A0.s89ab, B0.s89ab, A0.scdef, B0.scdef), 1, xf + 4 * pa);
    vstore16((float16)(A1.s0123, B1.s0123, A1.s4567, B1.s4567), 2, xf + 4 * pa);
    vstore16((float16)(A1.s89ab, B1.s89ab, A1.scdef, B1.scdef), 3, xf + 4 * pa);
  } else if (pat == DR_GROUP_PAIRS) {
    vstore16((float16)(A0.lo, B0.lo), 0, xf + 4 * pa);
    vstore16((float16)(A0.hi, B0.hi), 1, xf + 4 * pa);
    vstore16((float16)(A1.lo, B1.lo), 2, xf + 4 * pa);
    vstore16((float16)(A1.hi, B1.hi), 3, xf + 4 * pa);
  } else {
    x[ia.s0] = A0.s0123; x[ib.s0] = B0.s0123;
    if (n > 1) { x[ia.s1] = A0.s4567; x[ib.s1] = B0.s4567; }
    if (n > 2) { x[ia.s2] = A0.s89ab; x[ib.s2] = B0.s89ab; }
    if (n > 3) { x[ia.s3] = A0.scdef; x[ib.s3] = B0.scdef; }
    if (n > 4) { x[ia.s4] = A1.s0123; x[ib.s4] = B1.s0123; }
    if (n > 5) { x[ia.s5] = A1.s4567; x[ib.s5] = B1.s4567; }
    if (n > 6) { x[ia.s6] = A1.s89ab; x[ib.s6] = B1.s89ab; }
    if (n > 7) { x[ia.s7] = A1.scdef; x[ib.s7] = B1.scdef; }
  }
}
