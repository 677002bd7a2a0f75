/* The one OBJ writer (internal): drape_world_write_obj and
 * drape_sim_write_obj both describe their objects to it, so the format
 * (header, `o` per object, `v` at %.9g, `vt` per distinct corner UV,
 * `f` per triangle, one `l a b` per
 * link for Blender's importer) and the rules (never a non-finite vertex,
 * a temporary file renamed when complete) exist once. */
#ifndef DRAPE_CORE_OBJ_H
#define DRAPE_CORE_OBJ_H

#include <stdint.h>
#include <stdio.h>

#include "drape/base.h"

typedef struct dr_obj {
  FILE *f;
  const char *path;
  char tmp[4200];
  int base;      /* vertices written so far: OBJ indices are global */
  int base_vt;   /* texture coordinates written so far: global too */
  int rc;        /* first error */
} dr_obj;

/* Opens PATH.tmpPID and writes the header line. */
int dr_obj_open(dr_obj *o, const char *path, int frame, double time, drape_err *e);
/* One object: n points (x, y, z floats at xyz + stride * i), triangles and
 * links as indices into its own points. `kind` names it in messages
 * ("cloth", "rope", ...). A non-finite point: DRAPE_EUNSTABLE, and the file
 * is not written. Triangles with three equal corners (torn) are left out.
 * tri_uv (6 floats per triangle: (u, v) of each corner, or NULL): one
 * `vt` per distinct (u, v) of the triangles written, numbered in the order
 * the corners first use them, and faces as `f a/ta b/tb c/tc`, so a mesh
 * cloth keeps its file's texture coordinates, seams included (one `v`,
 * a `vt` per side). */
int dr_obj_object(dr_obj *o, const char *kind, const char *name, const float *xyz, int stride,
                  int n, const float *tri_uv, const uint32_t *tris, int n_tris,
                  const uint32_t *links, int n_links, drape_err *e);
/* Renames the temporary to PATH when everything went well (ok and no
 * error), else removes it; returns the first error. */
int dr_obj_close(dr_obj *o, int ok, drape_err *e);

#endif
