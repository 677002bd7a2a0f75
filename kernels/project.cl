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
 * Each work item projects DR_PROJECT_LANES (8) constraints of the colour
 * with float8 arithmetic. Why: the indexed loads and stores keep a CPU
 * OpenCL compiler (PoCL) from vectorising across work items, so explicit
 * vectors are what puts sqrt and the divisions on SIMD lanes (measured on
 * PoCL, 2 cores: about twice the projections per second of one constraint
 * per work item). Every lane does exactly the scalar arithmetic of
 * cpu_project_distance in the same order, so the CPU reference still
 * matches bit for bit; a lane whose constraint is torn or degenerate
 * writes its particles back unchanged and keeps its lambda, as the CPU
 * reference skips it. The host pads the constraint and lambda buffers by
 * DR_PROJECT_LANES entries, so lanes past the end of the colour read valid
 * memory (and store nothing). Constraints are stored as four arrays (a, b,
 * rest, compliance) so each is one vector load. */


__kernel void project_distance(__global float4 *x, __global const int *ca, __global const int *cb,
                               __global const float *crest, __global const float *ccomp,
                               __global float *lambda, const int first, const int count,
                               const float inv_h2, const int lambda_mode) {
  const int k0 = get_global_id(0) * DR_PROJECT_LANES;
  if (k0 >= count) return;
  const int n = count - k0; /* live lanes: min(n, 8) */
  const int q = first + k0;
  const int8 ia = vload8(0, ca + q);
  const int8 ib = vload8(0, cb + q);
  const float8 rest = vload8(0, crest + q);
  const float8 comp = vload8(0, ccomp + q);
#define LD(L) const float4 a##L = x[ia.s##L], b##L = x[ib.s##L];
  DR_LANES8(LD)
#undef LD
  float8 xax = (float8)(a0.x, a1.x, a2.x, a3.x, a4.x, a5.x, a6.x, a7.x);
  float8 xay = (float8)(a0.y, a1.y, a2.y, a3.y, a4.y, a5.y, a6.y, a7.y);
  float8 xaz = (float8)(a0.z, a1.z, a2.z, a3.z, a4.z, a5.z, a6.z, a7.z);
  const float8 wa = (float8)(a0.w, a1.w, a2.w, a3.w, a4.w, a5.w, a6.w, a7.w);
  float8 xbx = (float8)(b0.x, b1.x, b2.x, b3.x, b4.x, b5.x, b6.x, b7.x);
  float8 xby = (float8)(b0.y, b1.y, b2.y, b3.y, b4.y, b5.y, b6.y, b7.y);
  float8 xbz = (float8)(b0.z, b1.z, b2.z, b3.z, b4.z, b5.z, b6.z, b7.z);
  const float8 wb = (float8)(b0.w, b1.w, b2.w, b3.w, b4.w, b5.w, b6.w, b7.w);

  const float8 alpha = comp * inv_h2;
  const float8 denom = wa + wb + alpha;
  const float8 dx = xax - xbx;
  const float8 dy = xay - xby;
  const float8 dz = xaz - xbz;
  const float8 len2 = dx * dx + dy * dy + dz * dz;
  const int8 ok = (comp >= 0.0f) & (denom != 0.0f) & (len2 != 0.0f);
  const float8 len = sqrt(len2);
  const float8 C = len - rest;
  float8 lam = (float8)(0.0f);
  if (lambda_mode == DR_LAMBDA_KEEP) lam = vload8(0, lambda + q);
  /* one division on the critical path: s = dlambda / len */
  const float8 num = -C - alpha * lam;
  const float8 s = select((float8)(0.0f), num / (denom * len), ok);
  const float8 gx = dx * s, gy = dy * s, gz = dz * s;
  xax = xax + wa * gx;
  xay = xay + wa * gy;
  xaz = xaz + wa * gz;
  xbx = xbx - wb * gx;
  xby = xby - wb * gy;
  xbz = xbz - wb * gz;
  if (lambda_mode != DR_LAMBDA_NONE) {
    const float8 lnew = select(lam, lam + num / denom, ok);
    if (n >= DR_PROJECT_LANES) {
      vstore8(lnew, 0, lambda + q);
    } else {
#define STL(L) if (L < n) lambda[q + L] = lnew.s##L;
      DR_LANES8(STL)
#undef STL
    }
  }
#define ST(L)                                                      \
  if (L < n) {                                                     \
    x[ia.s##L] = (float4)(xax.s##L, xay.s##L, xaz.s##L, wa.s##L);  \
    x[ib.s##L] = (float4)(xbx.s##L, xby.s##L, xbz.s##L, wb.s##L);  \
  }
  DR_LANES8(ST)
#undef ST
}
