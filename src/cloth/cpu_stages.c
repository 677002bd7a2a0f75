#include "cloth/cpu_stages.h"

void cpu_predict(dr_float4 *x, dr_float4 *p, dr_float4 *v, const dr_step_params *sp) {
  const float h = sp->h, d = sp->damping;
  for (int i = 0; i < sp->n_particles; i++) {
    dr_float4 xi = x[i], vi = v[i];
    p[i] = xi;
    if (xi.w == 0.0f) {
      v[i] = (dr_float4){0, 0, 0, 0};
      continue;
    }
    vi.x = (vi.x + h * sp->gravity.x) * d;
    vi.y = (vi.y + h * sp->gravity.y) * d;
    vi.z = (vi.z + h * sp->gravity.z) * d;
    xi.x = xi.x + h * vi.x;
    xi.y = xi.y + h * vi.y;
    xi.z = xi.z + h * vi.z;
    v[i] = vi;
    x[i] = xi;
  }
}
