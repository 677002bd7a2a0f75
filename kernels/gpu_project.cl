/* gpu_project.cl — the GPU form of project_distance (project.cl has the
 * physics: Macklin et al. 2016, eqs. 13 and 18): one constraint per work
 * item.
 *
 * Why a second form: project_distance takes 8 constraints per work item
 * with float16 registers because PoCL only puts work on SIMD lanes that
 * way. A GPU already runs 32 or 64 work items in lock step; there the
 * 8-wide form leaves most of the device idle (a 1024^2 colour is ~65k
 * groups for a device that keeps ~270k threads resident), each thread
 * walks its own 256-byte run of memory (uncoalesced) and the float16
 * registers lower occupancy. Here neighbouring work items read neighbouring
 * entries of the four constraint arrays (a, b, rest, compliance: coalesced
 * 4-byte loads) and gather their two float4 particles, as GPU cloth solvers
 * do (Ten Minute Physics' GPU cloth, Warp, NvCloth).
 *
 * The arithmetic is cpu_project_distance (src/cloth/cpu_stages.c) line by
 * line, in its order, with the same early exits, so both forms and the CPU
 * reference give the same bits. Within a colour no two constraints share a
 * particle (src/core/colour.c), so the order of the work items does not
 * matter. No padding: the host launches `count` items (rounded up to the
 * work-group size) and the guard drops the rest. */

__kernel void project_distance_g(__global float4 *x, __global const int *ca,
                                 __global const int *cb, __global const float *crest,
                                 __global const float *ccomp, __global float *lambda,
                                 const int first, const int count, const float inv_h2,
                                 const int lambda_mode) {
  const int k = get_global_id(0);
  if (k >= count) return;
  const int q = first + k;
  const float comp = ccomp[q];
  if (comp < 0.0f) return; /* torn for good */
  const int a = ca[q], b = cb[q];
  float4 xa = x[a], xb = x[b];
  const float alpha = comp * inv_h2;
  const float denom = xa.w + xb.w + alpha;
  const float dx = xa.x - xb.x;
  const float dy = xa.y - xb.y;
  const float dz = xa.z - xb.z;
  const float len2 = dx * dx + dy * dy + dz * dz;
  if (denom == 0.0f || len2 == 0.0f) return;
  const float len = sqrt(len2);
  const float rest = crest[q];
  const float C = len - fabs(rest);
  if (rest < 0.0f && C < 0.0f) { /* tension-only and slack: no force, lambda 0 */
    if (lambda_mode != DR_LAMBDA_NONE) lambda[q] = 0.0f;
    return;
  }
  const float lam = lambda_mode == DR_LAMBDA_KEEP ? lambda[q] : 0.0f;
  const float num = -C - alpha * lam;
  const float s = num / (denom * len);
  if (lambda_mode != DR_LAMBDA_NONE) lambda[q] = lam + num / denom;
  const float gx = dx * s, gy = dy * s, gz = dz * s;
  xa.x = xa.x + xa.w * gx;
  xa.y = xa.y + xa.w * gy;
  xa.z = xa.z + xa.w * gz;
  xb.x = xb.x - xb.w * gx;
  xb.y = xb.y - xb.w * gy;
  xb.z = xb.z - xb.w * gz;
  x[a] = xa;
  x[b] = xb;
}
