/* GLSL 3.30 sources of the renderer (src/render/shaders.c). */
#ifndef DRAPE_RENDER_SHADERS_H
#define DRAPE_RENDER_SHADERS_H

extern const char dr_glsl_surface_vs[]; /* float4 positions + normals (+ uv)    */
extern const char dr_glsl_tube_vs[];    /* instanced capsules along segments    */
extern const char dr_glsl_sphere_vs[];  /* unit sphere mesh, scaled and moved   */
extern const char dr_glsl_lit_fs[];     /* two-sided lighting, shadows, fog     */
extern const char dr_glsl_depth_fs[];   /* shadow pass: depth only              */
extern const char dr_glsl_floor_vs[];
extern const char dr_glsl_floor_fs[];   /* filtered checker, shadow, fog        */
extern const char dr_glsl_sky_vs[];
extern const char dr_glsl_sky_fs[];     /* horizon-to-zenith gradient           */
extern const char dr_glsl_text_vs[];
extern const char dr_glsl_text_fs[];

#endif
