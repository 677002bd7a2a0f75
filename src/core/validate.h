/* Internal helpers of the validators (validate.c) for the sim's setters,
 * which check one value at a time with the same messages and limits as
 * the defs (drape/limits.h). */
#ifndef DRAPE_CORE_VALIDATE_H
#define DRAPE_CORE_VALIDATE_H

#include "drape/base.h"
#include "drape/scene.h"

/* Fails (DRAPE_EINVAL, "path = v: must be >= lo and <= hi") unless
 * lo (<|<=) v (<|<=) hi; also fails for a non-finite v. */
int vd_range(drape_err *e, const char *path, double v, double lo, int lo_incl, double hi,
             int hi_incl);
/* An XPBD compliance as a scene gives it: 0 or DRAPE_FLOAT_MIN ..
 * DRAPE_MAX_COMPLIANCE, and compliance / h^2 finite in float at the substep
 * h (> 0). */
int vd_compliance(drape_err *e, const char *path, double c, double h);
/* A material's fields as a scene's "material" key is checked (`obj`
 * "cloth" or "rope", index for the key path). */
int vd_material(const drape_material_def *m, const char *obj, int index, drape_err *e);
/* A cloth's "spacing" for the self-collision rules: the grid spacing, or a
 * mesh's shortest edge (0 for a mesh with no valid edge). */
double dr_cloth_spacing(const drape_cloth_def *c);
/* A cloth's flat (rest) area in m^2: the grid's (rows - 1)(cols - 1)
 * spacing^2, or the sum of a mesh's triangle areas as loaded (the rest
 * shape; triangles with an index out of range count nothing). */
double dr_cloth_rest_area(const drape_cloth_def *c);

#endif
