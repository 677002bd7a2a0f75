/* Internal pieces of the renderer shared between its files. */
#ifndef DRAPE_RENDER_INTERNAL_H
#define DRAPE_RENDER_INTERNAL_H

#include <epoxy/gl.h>
#include <stdint.h>

#include "drape/render.h"

/* Overlay text: glyph quads (from stb_easy_font) queued as triangles in
 * framebuffer pixels, drawn in one call per frame. */
typedef struct dr_text_vertex {
  float x, y;
  uint8_t rgba[4];
} dr_text_vertex;

typedef struct dr_text_batch {
  dr_text_vertex *v;
  int n, cap;
  GLuint vao, vbo;
} dr_text_batch;

int dr_text_init(dr_text_batch *b, drape_err *e);
void dr_text_free(dr_text_batch *b);
/* panel: a translucent dark box behind light text with a drop shadow. */
void dr_text_add(dr_text_batch *b, float x, float y, float scale, const float rgba[4],
                    const char *text, int panel);
int dr_text_draw(dr_text_batch *b, GLuint prog, int fb_w, int fb_h, drape_err *e);

/* Re-creates the mesh's position and normal buffers as immutable storage,
 * mapped for writing persistently and coherently (GL 4.4 or
 * ARB_buffer_storage), and returns the mapped pointers (valid until the
 * mesh is destroyed). DRAPE_EGL when GL lacks buffer storage. */
int dr_render_mesh_persistent(drape_render_mesh *m, float **pos, float **nrm, drape_err *e);

#endif
