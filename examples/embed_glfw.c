/* embed_glfw: drape inside your own GLFW loop. You own the window and the
 * loop; drape's world steps the scene and a drape_world_view
 * (<drape/world_view.h>) keeps its render meshes up to date: on OpenCL it
 * copies the solver's buffers into the GL buffers through the interop
 * paths of <drape/interop.h> (map, or hostptr on a CPU device), on the CPU
 * reference through host memory. drape's renderer then draws into your
 * framebuffer.
 *   embed_glfw SCENE.json [FRAMES]   (FRAMES: stop after that many; 0: until closed)
 * Link drape::render and glfw (find_package), or
 *   `pkg-config --cflags --libs drape-render glfw3`. */
#include <GLFW/glfw3.h>
#include <stdio.h>
#include <stdlib.h>

#include <drape/drape.h>
#include <drape/world_view.h>

int main(int argc, char **argv) {
  if (argc < 2) { fprintf(stderr, "usage: embed_glfw SCENE.json [FRAMES]\n"); return 2; }
  const int frames = argc > 2 ? atoi(argv[2]) : 0;
  drape_err e = {0};
  drape_world *w = NULL;
  if (drape_world_load(argv[1], NULL, &w, &e)) { fprintf(stderr, "%s\n", e.msg); return 1; }
  /* presentation: the scene file's colours and camera */
  drape_render_def look;
  if (drape_render_def_load(argv[1], &look, &e)) { fprintf(stderr, "%s\n", e.msg); return 1; }
  /* your window: any OpenGL 3.3 core context will do */
  if (!glfwInit()) { fprintf(stderr, "no display (GLFW)\n"); drape_world_destroy(w); return 1; }
  glfwWindowHint(GLFW_CONTEXT_VERSION_MAJOR, 3);
  glfwWindowHint(GLFW_CONTEXT_VERSION_MINOR, 3);
  glfwWindowHint(GLFW_OPENGL_PROFILE, GLFW_OPENGL_CORE_PROFILE);
  GLFWwindow *win = glfwCreateWindow(800, 500, "drape in my loop", NULL, NULL);
  if (!win) { fprintf(stderr, "no window\n"); glfwTerminate(); drape_world_destroy(w); return 1; }
  glfwMakeContextCurrent(win);

  drape_renderer *r = NULL;
  drape_world_view *view = NULL;
  drape_world_view_def vd = {&look, 0, 0};
  int rc = drape_renderer_create(NULL, &r, &e);
  if (!rc) rc = drape_world_view_create(r, w, &vd, &view, &e);
  drape_render_sphere spheres[16];
  drape_render_scene scene;
  for (int f = 0; !rc && !glfwWindowShouldClose(win) && (!frames || f < frames); f++) {
    rc = drape_world_step(w, &e); /* one frame of the scene's dt */
    if (!rc) rc = drape_world_view_update(view, &e);
    int fw, fh;
    glfwGetFramebufferSize(win, &fw, &fh);
    drape_world_view_scene(view, (float)fw / (float)(fh > 0 ? fh : 1), spheres, 16, &scene);
    if (!rc) rc = drape_render_draw(r, &scene, fw, fh, &e); /* into your framebuffer */
    glfwSwapBuffers(win);
    glfwPollEvents();
  }
  if (rc) fprintf(stderr, "embed_glfw: %s\n", e.msg);
  else printf("embed_glfw: drew %d frames, t = %.3f s, transfer %s\n", drape_world_frame(w),
              drape_world_time(w), drape_world_view_transfer(view));
  drape_world_view_destroy(view); /* before the world */
  drape_renderer_destroy(r);
  glfwDestroyWindow(win);
  glfwTerminate();
  drape_world_destroy(w);
  drape_render_def_free(&look);
  return rc ? 1 : 0;
}
