/* embed_glfw: drape inside your own GLFW loop. You own the window and the
 * loop; drape's world steps the scene and drape's renderer draws it into
 * your framebuffer. The positions travel through host memory here (the
 * copy path, which works everywhere); <drape/drape_cl.h> gives the
 * solver's OpenCL buffers for a CL/GL-sharing path on GPUs that have one.
 *   embed_glfw SCENE.json [FRAMES]   (FRAMES: stop after that many; 0: until closed)
 * Link drape::render and glfw (find_package), or
 *   `pkg-config --cflags --libs drape-render glfw3`. */
#include <GLFW/glfw3.h>
#include <stdio.h>
#include <stdlib.h>

#include <drape/drape.h>
#include <drape/render.h>

int main(int argc, char **argv) {
  if (argc < 2) { fprintf(stderr, "usage: embed_glfw SCENE.json [FRAMES]\n"); return 2; }
  const int frames = argc > 2 ? atoi(argv[2]) : 0;
  drape_err e = {0};
  drape_world *w = NULL;
  if (drape_world_load(argv[1], NULL, &w, &e)) { fprintf(stderr, "%s\n", e.msg); return 1; }
  /* your window: any OpenGL 3.3 core context will do */
  if (!glfwInit()) { fprintf(stderr, "no display (GLFW)\n"); drape_world_destroy(w); return 1; }
  glfwWindowHint(GLFW_CONTEXT_VERSION_MAJOR, 3);
  glfwWindowHint(GLFW_CONTEXT_VERSION_MINOR, 3);
  glfwWindowHint(GLFW_OPENGL_PROFILE, GLFW_OPENGL_CORE_PROFILE);
  GLFWwindow *win = glfwCreateWindow(800, 500, "drape in my loop", NULL, NULL);
  if (!win) { fprintf(stderr, "no window\n"); glfwTerminate(); drape_world_destroy(w); return 1; }
  glfwMakeContextCurrent(win);

  /* one render mesh for the world's objects: cloth surfaces, tubes for the rest */
  const int n_obj = drape_world_object_count(w);
  int nv = 0, nt = 0, nl = 0;
  for (int k = 0; k < n_obj; k++) {
    drape_world_object o;
    drape_world_get_object(w, k, &o, NULL);
    nv += o.n_points, nt += o.n_tris, nl += o.n_links;
  }
  float *pos = calloc((size_t)nv + 1, 4 * sizeof(float)), *xyz = malloc(sizeof(float) * 3 * (nv + 1));
  float *nrm = calloc((size_t)nv + 1, 4 * sizeof(float));
  uint32_t *tris = malloc(sizeof(uint32_t) * 3 * (nt + 1)), *lines = malloc(sizeof(uint32_t) * 2 * (nl + 1));
  drape_render_object *objs = calloc((size_t)n_obj + 1, sizeof *objs);
  drape_renderer *r = NULL;
  drape_render_mesh *mesh = NULL;
  int rc = !pos || !xyz || !nrm || !tris || !lines || !objs;
  if (!rc) rc = drape_renderer_create(NULL, &r, &e);
  int v0 = 0, t0 = 0, l0 = 0;
  for (int k = 0; k < n_obj && !rc; k++) {
    drape_world_object o;
    drape_world_get_object(w, k, &o, NULL);
    int cnt = 0;
    rc = o.n_tris ? drape_world_read_tris(w, k, tris + 3 * t0, &cnt, &e)
                  : drape_world_read_links(w, k, lines + 2 * l0, &e);
    uint32_t *ix = o.n_tris ? tris + 3 * t0 : lines + 2 * l0;
    for (int i = 0; i < (o.n_tris ? 3 * cnt : 2 * o.n_links); i++) ix[i] += (uint32_t)v0;
    objs[k] = (drape_render_object){o.n_tris ? DRAPE_RO_SURFACE : DRAPE_RO_TUBE,
                                    o.n_tris ? t0 : l0, o.n_tris ? cnt : o.n_links,
                                    {o.color_front[0], o.color_front[1], o.color_front[2]},
                                    {o.color_back[0], o.color_back[1], o.color_back[2]},
                                    (float)o.thickness, 0, 0};
    v0 += o.n_points, t0 += cnt, l0 += o.n_links;
  }
  drape_render_mesh_desc d = {nv, tris, t0, lines, l0, NULL, objs, n_obj};
  if (!rc) rc = drape_render_mesh_create(r, &d, &mesh, &e);
  drape_render_scene scene = {.has_floor = 1, .bounds_min = {-1.5f, 0, -1.5f},
                              .bounds_max = {1.5f, 2, 1.5f}};
  drape_camera_frame_box(scene.bounds_min, scene.bounds_max, 45, 1.6f, &scene.camera);

  for (int f = 0; !rc && !glfwWindowShouldClose(win) && (!frames || f < frames); f++) {
    rc = drape_world_step(w, &e); /* one frame of the scene's dt */
    for (int k = 0, v = 0; k < n_obj && !rc; k++) {
      drape_world_object o;
      drape_world_get_object(w, k, &o, NULL);
      rc = drape_world_read_points(w, k, xyz + 3 * v, &e);
      v += o.n_points;
    }
    for (int i = 0; i < nv; i++)
      for (int q = 0; q < 3; q++) pos[4 * i + q] = xyz[3 * i + q];
    drape_render_compute_normals(pos, nv, tris, t0, nrm);
    if (!rc) rc = drape_render_mesh_upload(mesh, pos, nrm, 0, nv, &e);
    int fw, fh;
    glfwGetFramebufferSize(win, &fw, &fh);
    if (!rc) rc = drape_render_draw(r, &scene, fw, fh, &e); /* into your framebuffer */
    glfwSwapBuffers(win);
    glfwPollEvents();
  }
  if (rc) fprintf(stderr, "embed_glfw: %s\n", e.msg[0] ? e.msg : "out of memory");
  else printf("embed_glfw: drew %d frames, t = %.3f s\n", drape_world_frame(w), drape_world_time(w));
  drape_render_mesh_destroy(mesh);
  drape_renderer_destroy(r);
  free(pos), free(xyz), free(nrm), free(tris), free(lines), free(objs);
  glfwDestroyWindow(win);
  glfwTerminate();
  drape_world_destroy(w);
  return rc ? 1 : 0;
}
