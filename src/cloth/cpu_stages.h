/* CPU reference backend: one function per kernel in kernels/, same name
 * with a cpu_ prefix, same arithmetic in the same order, so tests can
 * compare the OpenCL path with it. */
#ifndef DRAPE_CLOTH_CPU_STAGES_H
#define DRAPE_CLOTH_CPU_STAGES_H

#include "drape_types.h"

/* kernels/predict.cl: gravity, damping, p <- x, x <- x + h v. */
void cpu_predict(dr_float4 *x, dr_float4 *p, dr_float4 *v, const dr_step_params *sp);

#endif
