/* The footprint of a cloth (footprint.c). */
#ifndef DRAPE_CLOTH_FOOTPRINT_H
#define DRAPE_CLOTH_FOOTPRINT_H

#include <stdint.h>

/* Area (m^2) of the shadow on the x-z plane of triangles [t0, t0 + nt)
 * (3 particle indices each) at positions x (4 floats a particle). */
double dr_footprint_area(const float *x, const uint32_t *tris, int t0, int nt);

#endif
