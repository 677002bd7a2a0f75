/* Exact geometric signs (internal): the orientation of four points, right
 * for every input of doubles (so for every float), never a rounding
 * artefact. Used where a count must be exact: edges through triangles
 * (src/cloth/crossings.c, issue 18). */
#ifndef DRAPE_CORE_EXACT_H
#define DRAPE_CORE_EXACT_H

/* The sign (-1, 0, +1) of det[b - a, c - a, d - a]: +1 when d lies on the
 * side of the plane through a, b, c that (b - a) x (c - a) points to, 0
 * exactly when the four points are coplanar. */
int dr_orient3d(const double a[3], const double b[3], const double c[3], const double d[3]);

#endif
