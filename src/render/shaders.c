/* GLSL sources of the renderer. dr_gl_program() prepends
 * "#version 330 core".
 *
 * Lighting model (all in linear RGB, converted to sRGB at the end):
 *  - one key light (a directional "sun") with a shadow map filtered by 16
 *    Poisson-disk taps of hardware 2x2 PCF (soft edges without noise, so
 *    frames stay deterministic and compress well in videos);
 *  - hemisphere ambient (sky above, floor bounce below) and a weak fill light
 *    from the camera side, so faces turned from the sun keep their shape;
 *  - cloth is two-sided: the side facing the camera picks its colour and
 *    flips the normal; thin cloth also lets some light through
 *    (translucency term on the side facing away from the sun);
 *  - distance fog toward the horizon colour hides the floor's edge. */
#include "render/shaders.h"

#define COMMON_FS                                                                          \
  "uniform vec3 u_eye;\n"                                                                  \
  "uniform vec3 u_light_dir;   // towards the light, unit\n"                               \
  "uniform vec3 u_light_col;\n"                                                            \
  "uniform vec3 u_fill_dir;\n"                                                             \
  "uniform vec3 u_fill_col;\n"                                                             \
  "uniform vec3 u_sky_amb;\n"                                                              \
  "uniform vec3 u_ground_amb;\n"                                                           \
  "uniform vec3 u_horizon;\n"                                                              \
  "uniform vec2 u_fog;         // start, end distance in m\n"                              \
  "uniform int u_use_shadow;\n"                                                            \
  "uniform sampler2DShadow u_shadow;\n"                                                    \
  "uniform mat4 u_light_vp;\n"                                                             \
  "uniform float u_shadow_soft; // filter radius in shadow-map uv\n"                       \
  "uniform float u_shadow_bias; // depth bias in [0,1] depth units\n"                      \
  "uniform float u_normal_bias; // m along the normal\n"                                   \
  "const vec2 POISSON[16] = vec2[16](\n"                                                   \
  "  vec2(-0.94201624, -0.39906216), vec2(0.94558609, -0.76890725),\n"                     \
  "  vec2(-0.09418410, -0.92938870), vec2(0.34495938, 0.29387760),\n"                      \
  "  vec2(-0.91588581, 0.45771432), vec2(-0.81544232, -0.87912464),\n"                     \
  "  vec2(-0.38277543, 0.27676845), vec2(0.97484398, 0.75648379),\n"                       \
  "  vec2(0.44323325, -0.97511554), vec2(0.53742981, -0.47373420),\n"                      \
  "  vec2(-0.26496911, -0.41893023), vec2(0.79197514, 0.19090188),\n"                      \
  "  vec2(-0.24188840, 0.99706507), vec2(-0.81409955, 0.91437590),\n"                      \
  "  vec2(0.19984126, 0.78641367), vec2(0.14383161, -0.14100790));\n"                      \
  "float shadow_at(vec3 p, vec3 n) {\n"                                                    \
  "  if (u_use_shadow == 0) return 1.0;\n"                                                 \
  "  vec4 s = u_light_vp * vec4(p + n * u_normal_bias, 1.0);\n"                            \
  "  vec3 c = s.xyz / s.w * 0.5 + 0.5;\n"                                                  \
  "  if (c.x < 0.0 || c.x > 1.0 || c.y < 0.0 || c.y > 1.0 || c.z > 1.0) return 1.0;\n"     \
  "  float z = c.z - u_shadow_bias;\n"                                                      \
  "  // Four far-apart taps first: where they agree the pixel is fully lit\n"              \
  "  // or fully shadowed, and the other 16 would change nothing. Saves most\n"            \
  "  // of the filtering cost on a software rasteriser.\n"                                  \
  "  float sum = 0.0;\n"                                                                   \
  "  for (int k = 0; k < 4; k++) {\n"                                                      \
  "    vec2 o = vec2((k & 1) == 0 ? -0.7 : 0.7, (k & 2) == 0 ? -0.7 : 0.7);\n"               \
  "    sum += texture(u_shadow, vec3(c.xy + o * u_shadow_soft, z));\n"                     \
  "  }\n"                                                                                  \
  "  if (sum == 0.0 || sum == 4.0) return sum * 0.25;\n"                                   \
  "  for (int k = 0; k < 16; k++)\n"                                                       \
  "    sum += texture(u_shadow, vec3(c.xy + POISSON[k] * u_shadow_soft, z));\n"            \
  "  return sum / 20.0;\n"                                                                 \
  "}\n"                                                                                    \
  "vec3 fog(vec3 col, vec3 p) {\n"                                                         \
  "  float d = length(p - u_eye);\n"                                                       \
  "  return mix(col, u_horizon, smoothstep(u_fog.x, u_fog.y, d));\n"                       \
  "}\n"                                                                                    \
  "vec3 to_srgb(vec3 c) {\n"                                                               \
  "  c = clamp(c, 0.0, 1.0);\n"                                                            \
  "  return mix(c * 12.92, 1.055 * pow(c, vec3(1.0 / 2.4)) - 0.055, step(0.0031308, c));\n" \
  "}\n"                                                                                    \
  "// Checker of unit cells in q, box-filtered over the pixel footprint so it\n"           \
  "// fades to grey instead of aliasing in the distance.\n"                                \
  "float checker(vec2 q) {\n"                                                              \
  "  vec2 w = fwidth(q) + 1e-4;\n"                                                         \
  "  vec2 i = 2.0 * (abs(fract((q - 0.5 * w) * 0.5) - 0.5) -\n"                            \
  "                  abs(fract((q + 0.5 * w) * 0.5) - 0.5)) / w;\n"                        \
  "  return 0.5 - 0.5 * i.x * i.y;\n"                                                      \
  "}\n"

const char dr_glsl_surface_vs[] =
    "layout(location = 0) in vec4 a_pos;\n"
    "layout(location = 1) in vec4 a_nrm;\n"
    "layout(location = 2) in vec2 a_uv;\n"
    "uniform mat4 u_vp;\n"
    "out vec3 v_pos;\n"
    "out vec3 v_nrm;\n"
    "out vec2 v_uv;\n"
    "void main() {\n"
    "  v_pos = a_pos.xyz;\n"
    "  v_nrm = a_nrm.xyz;\n"
    "  v_uv = a_uv;\n"
    "  gl_Position = u_vp * vec4(a_pos.xyz, 1.0);\n"
    "}\n";

/* A capsule per segment: a_local.xyz is the unit offset in the segment's
 * frame (x, y across, z along), a_local.w picks the end (0 = a, 1 = b).
 * Hemispherical caps overlap at shared nodes, so consecutive segments
 * join as a smooth round tube whatever the angle between them. Positions
 * come from the mesh's float4 buffer through a buffer texture, so the same
 * GL buffer the solver writes feeds both cloth and ropes. */
const char dr_glsl_tube_vs[] =
    "layout(location = 0) in vec4 a_local;\n"
    "layout(location = 1) in uvec2 a_seg;\n"
    "uniform samplerBuffer u_positions;\n"
    "uniform float u_radius;\n"
    "uniform mat4 u_vp;\n"
    "out vec3 v_pos;\n"
    "out vec3 v_nrm;\n"
    "out vec2 v_uv;\n"
    "void main() {\n"
    "  vec3 a = texelFetch(u_positions, int(a_seg.x)).xyz;\n"
    "  vec3 b = texelFetch(u_positions, int(a_seg.y)).xyz;\n"
    "  vec3 w = b - a;\n"
    "  float len = length(w);\n"
    "  w = len > 1e-9 ? w / len : vec3(0.0, 1.0, 0.0);\n"
    "  vec3 helper = abs(w.y) < 0.9 ? vec3(0.0, 1.0, 0.0) : vec3(1.0, 0.0, 0.0);\n"
    "  vec3 u = normalize(cross(helper, w));\n"
    "  vec3 v = cross(w, u);\n"
    "  vec3 n = a_local.x * u + a_local.y * v + a_local.z * w;\n"
    "  v_pos = mix(a, b, a_local.w) + u_radius * n;\n"
    "  v_nrm = n;\n"
    "  v_uv = vec2(0.0);\n"
    "  gl_Position = u_vp * vec4(v_pos, 1.0);\n"
    "}\n";

const char dr_glsl_sphere_vs[] =
    "layout(location = 0) in vec3 a_unit;\n"
    "uniform vec4 u_sphere; // centre xyz, radius w\n"
    "uniform mat4 u_vp;\n"
    "out vec3 v_pos;\n"
    "out vec3 v_nrm;\n"
    "out vec2 v_uv;\n"
    "void main() {\n"
    "  v_pos = u_sphere.xyz + u_sphere.w * a_unit;\n"
    "  v_nrm = a_unit;\n"
    "  v_uv = vec2(0.0);\n"
    "  gl_Position = u_vp * vec4(v_pos, 1.0);\n"
    "}\n";

const char dr_glsl_lit_fs[] =
    COMMON_FS
    "in vec3 v_pos;\n"
    "in vec3 v_nrm;\n"
    "in vec2 v_uv;\n"
    "uniform vec3 u_front;\n"
    "uniform vec3 u_back;\n"
    "uniform int u_two_sided;\n"
    "uniform int u_checker;\n"
    "uniform float u_cells;\n"
    "uniform float u_spec;\n"
    "uniform float u_shin;\n"
    "uniform float u_transl;\n"
    "out vec4 o_color;\n"
    "void main() {\n"
    "  vec3 n = v_nrm;\n"
    "  float ln = length(n);\n"
    "  vec3 albedo = u_front;\n"
    "  if (ln < 1e-6) {\n"
    "    // No usable smooth normal (degenerate or torn vertex): the flat\n"
    "    // normal from screen derivatives already faces the camera.\n"
    "    n = normalize(cross(dFdx(v_pos), dFdy(v_pos)));\n"
    "    if (u_two_sided != 0 && !gl_FrontFacing) albedo = u_back;\n"
    "  } else {\n"
    "    n /= ln;\n"
    "    if (u_two_sided != 0 && !gl_FrontFacing) { n = -n; albedo = u_back; }\n"
    "  }\n"
    "  if (u_checker != 0) albedo *= mix(1.0, 0.8, checker(v_uv * u_cells));\n"
    "  vec3 V = normalize(u_eye - v_pos);\n"
    "  vec3 L = u_light_dir;\n"
    "  float ndl = dot(n, L);\n"
    "  float sh = shadow_at(v_pos, ndl >= 0.0 ? n : -n);\n"
    "  float diff = max(ndl, 0.0);\n"
    "  float trans = max(-ndl, 0.0) * u_transl;\n"
    "  vec3 H = normalize(L + V);\n"
    "  float spec = ndl > 0.0 ? pow(max(dot(n, H), 0.0), u_shin) * u_spec : 0.0;\n"
    "  vec3 amb = mix(u_ground_amb, u_sky_amb, 0.5 + 0.5 * n.y);\n"
    "  float fill = max(dot(n, u_fill_dir), 0.0);\n"
    "  vec3 col = albedo * (u_light_col * (diff + trans) * sh + amb + u_fill_col * fill)\n"
    "           + u_light_col * spec * sh;\n"
    "  o_color = vec4(to_srgb(fog(col, v_pos)), 1.0);\n"
    "}\n";

const char dr_glsl_depth_fs[] =
    "void main() {}\n";

/* A square of half-size u_floor.z around (u_floor.x, u_floor.w) at height
 * u_floor.y, drawn as a 4-vertex strip from gl_VertexID. */
const char dr_glsl_floor_vs[] =
    "uniform vec4 u_floor; // centre x, height y, half size, centre z\n"
    "uniform mat4 u_vp;\n"
    "out vec3 v_pos;\n"
    "void main() {\n"
    "  vec2 c = vec2(float(gl_VertexID & 1), float(gl_VertexID >> 1)) * 2.0 - 1.0;\n"
    "  v_pos = vec3(u_floor.x + c.x * u_floor.z, u_floor.y, u_floor.w + c.y * u_floor.z);\n"
    "  gl_Position = u_vp * vec4(v_pos, 1.0);\n"
    "}\n";

const char dr_glsl_floor_fs[] =
    COMMON_FS
    "in vec3 v_pos;\n"
    "uniform float u_cell;\n"
    "uniform vec3 u_tile_a;\n"
    "uniform vec3 u_tile_b;\n"
    "out vec4 o_color;\n"
    "void main() {\n"
    "  vec3 n = vec3(0.0, 1.0, 0.0);\n"
    "  vec3 albedo = mix(u_tile_a, u_tile_b, checker(v_pos.xz / u_cell));\n"
    "  float ndl = max(dot(n, u_light_dir), 0.0);\n"
    "  float sh = shadow_at(v_pos, n);\n"
    "  vec3 amb = u_sky_amb;\n"
    "  float fill = max(dot(n, u_fill_dir), 0.0);\n"
    "  vec3 col = albedo * (u_light_col * ndl * sh + amb + u_fill_col * fill);\n"
    "  o_color = vec4(to_srgb(fog(col, v_pos)), 1.0);\n"
    "}\n";

/* One triangle that covers the screen; the fragment shader turns each
 * pixel back into a view ray to shade the sky by its elevation. */
const char dr_glsl_sky_vs[] =
    "out vec2 v_ndc;\n"
    "void main() {\n"
    "  vec2 p = vec2(float((gl_VertexID << 1) & 2), float(gl_VertexID & 2)) * 2.0 - 1.0;\n"
    "  v_ndc = p;\n"
    "  gl_Position = vec4(p, 1.0, 1.0);\n"
    "}\n";

const char dr_glsl_sky_fs[] =
    "in vec2 v_ndc;\n"
    "uniform mat4 u_inv_vp;\n"
    "uniform vec3 u_eye;\n"
    "uniform vec3 u_horizon;\n"
    "uniform vec3 u_zenith;\n"
    "uniform vec3 u_nadir;\n"
    "out vec4 o_color;\n"
    "vec3 to_srgb(vec3 c) {\n"
    "  c = clamp(c, 0.0, 1.0);\n"
    "  return mix(c * 12.92, 1.055 * pow(c, vec3(1.0 / 2.4)) - 0.055, step(0.0031308, c));\n"
    "}\n"
    "void main() {\n"
    "  vec4 far = u_inv_vp * vec4(v_ndc, 1.0, 1.0);\n"
    "  vec3 d = normalize(far.xyz / far.w - u_eye);\n"
    "  vec3 col = d.y >= 0.0 ? mix(u_horizon, u_zenith, pow(d.y, 0.55))\n"
    "                        : mix(u_horizon, u_nadir, pow(-d.y, 0.55));\n"
    "  o_color = vec4(to_srgb(col), 1.0);\n"
    "}\n";

const char dr_glsl_text_vs[] =
    "layout(location = 0) in vec2 a_pos;   // framebuffer pixels, y down\n"
    "layout(location = 1) in vec4 a_color; // sRGB, normalized bytes\n"
    "uniform vec2 u_fb;\n"
    "out vec4 v_color;\n"
    "void main() {\n"
    "  v_color = a_color;\n"
    "  gl_Position = vec4(a_pos.x / u_fb.x * 2.0 - 1.0, 1.0 - a_pos.y / u_fb.y * 2.0, 0.0, 1.0);\n"
    "}\n";

const char dr_glsl_text_fs[] =
    "in vec4 v_color;\n"
    "out vec4 o_color;\n"
    "void main() { o_color = v_color; }\n";
