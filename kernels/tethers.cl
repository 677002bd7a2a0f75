/* tethers.cl — long-range attachments (Kim, Chentanez and Müller 2012,
 * "Long Range Attachments"): particle i may be no farther from pin j than
 * its rest distance along the cloth. Unilateral: only a particle outside
 * the ball is moved, onto its surface; the pin (inverse mass 0) never moves.
 * Each particle has `slots` (pin, rest) pairs; an unused slot has pin -1 and
 * ends the list. Each work item writes only its own particles and reads
 * only pins, which nobody writes: no race, no colouring needed.
 *
 * Eight particles per work item, kept as float4s in two float16 (the AoS
 * lanes of drape_types.h): the scalar form spent most of its time in the
 * loop over slots. On the device the slots are stored slot-major,
 * pin[s * stride + i], so that one vload8 fetches a slot for eight
 * particles; every lane computes what cpu_tethers computes for its
 * particle, in the same order. */

/* X0, X1: particles i0 .. i0+3 and i0+4 .. i0+7; `live`: the free ones
 * (inverse mass != 0). Used by the tethers kernel and update_fused. */
static inline __attribute__((always_inline)) void tethers8(
    __global const float4 *x, __global const int *pin, __global const float *rest,
    const int slots, const int stride, const int i0, const int8 live, float16 *X0, float16 *X1) {
  int8 on = live;
  for (int s = 0; s < slots && any(on); s++) {
    const int8 j = vload8(0, pin + s * stride + i0);
    on &= j >= 0; /* the scalar loop's `break` */
    const float8 r = vload8(0, rest + s * stride + i0);
    float16 Q0, Q1;
    if (all(j == j.s0)) {
      /* the common case, eight neighbours tied to one pin: one load */
      const float4 q = x[max(j.s0, 0)];
      Q0 = Q1 = (float16)(q, q, q, q);
    } else {
      const int8 jj = max(j, (int8)(0)); /* unused slots read particle 0 */
      Q0 = (float16)(x[jj.s0], x[jj.s1], x[jj.s2], x[jj.s3]);
      Q1 = (float16)(x[jj.s4], x[jj.s5], x[jj.s6], x[jj.s7]);
    }
    const float16 d0 = *X0 - Q0, d1 = *X1 - Q1;
    const float16 e0 = d0 * d0, e1 = d1 * d1;
    const float16 t0 = DR_SUM3(e0), t1 = DR_SUM3(e1);
    const float8 len2 = (float8)(t0.s048c, t1.s048c);
    const int8 out = on & (len2 > r * r);
    if (!any(out)) continue;
    const float8 scale = r / sqrt(len2);
    *X0 = select(*X0, Q0 + d0 * DR_SPREAD_LO(scale), DR_SPREAD_LO(out) & DR_XYZ_MASK);
    *X1 = select(*X1, Q1 + d1 * DR_SPREAD_HI(scale), DR_SPREAD_HI(out) & DR_XYZ_MASK);
  }
}

__kernel void tethers(__global float4 *x, __global const int *pin, __global const float *rest,
                      const int slots, const int stride, const int n) {
  const int i0 = get_global_id(0) * DR_PARTICLE_LANES;
  if (i0 >= n) return;
  __global float *xf = (__global float *)(x + i0);
  float16 X0 = vload16(0, xf), X1 = vload16(1, xf);
  const int8 live = (float8)(X0.s37bf, X1.s37bf) != 0.0f;
  if (!any(live)) return;
  tethers8(x, pin, rest, slots, stride, i0, live, &X0, &X1);
  vstore16(X0, 0, xf);
  vstore16(X1, 1, xf);
}
