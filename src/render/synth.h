/* Synthetic geometry for renderer tests and benchmarks: a cloth draped over
 * a sphere (an analytic height field, no solver), a hanging rope and a
 * twisted ribbon that shows both faces. Not physics: only something with
 * the shapes, sizes and buffer layout the solver hands the renderer. */
#ifndef DRAPE_RENDER_SYNTH_H
#define DRAPE_RENDER_SYNTH_H

#include "drape/render.h"

typedef struct dr_synth {
  int n_vertices;
  float *pos, *nrm, *uv;          /* float4, float4, float2 per vertex      */
  uint32_t *tris, *lines;
  int n_tris, n_lines;
  drape_render_object objects[3]; /* cloth, rope, ribbon                    */
  int n_objects;
  int cloth_vertices;             /* the first n*n vertices are the cloth   */
  drape_render_sphere sphere;
  float floor_y;
  float bmin[3], bmax[3];         /* bounds of the scene (floor included)   */
} dr_synth;

/* n x n cloth particles (n >= 2). phase in [0, 1]: 0 = flat sheet above the
 * sphere, 1 = fully draped; in between it sinks and wraps (so frames of an
 * animation differ). */
int dr_synth_build(dr_synth *s, int n, float phase, drape_err *e);
/* Recomputes positions and normals for another phase (same topology). */
void dr_synth_pose(dr_synth *s, float phase);
void dr_synth_free(dr_synth *s);
drape_render_mesh_desc dr_synth_desc(const dr_synth *s);
/* A scene description with floor, sphere, bounds and a framing camera. */
drape_render_scene dr_synth_scene(const dr_synth *s, float aspect);

#endif
