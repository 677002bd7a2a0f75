/* hello_drape: a cloth over a sphere, built in code, 120 frames; prints
 * the lowest point of the cloth. Build against an installed drape:
 *   cmake -S examples -B build-ex -DCMAKE_PREFIX_PATH=PREFIX  (find_package)
 *   cc hello_drape.c $(pkg-config --cflags --libs drape)    (pkg-config)
 * Run with "cpu" as argument for the CPU reference instead of OpenCL. */
#include <stdio.h>
#include <stdlib.h>

#include <drape/drape.h>

int main(int argc, char **argv) {
  drape_err e = {0};
  drape_scene scene;
  drape_scene_init(&scene); /* defaults: gravity, dt 1/60 s, 20 substeps */
  drape_cloth_def cloth = drape_cloth_def_default();
  cloth.rows = cloth.cols = 48;
  cloth.spacing = 0.025; /* a 1.2 m square, flat, 1 m up */
  cloth.origin[0] = cloth.origin[2] = -0.5 * cloth.spacing * (cloth.cols - 1);
  cloth.origin[1] = 1.0;
  drape_scene_add_cloth(&scene, &cloth);
  drape_sphere_def ball = drape_sphere_def_default();
  ball.center[1] = 0.5;
  ball.radius = 0.3;
  drape_scene_add_sphere(&scene, &ball);
  scene.has_floor = 1;

  drape_world_def def = drape_world_def_default(); /* zero means default: OpenCL */
  if (argc > 1 && argv[1][0] == 'c') def.backend = DRAPE_BACKEND_CPU;
  drape_world *world = NULL;
  int rc = drape_world_create(&scene, &def, &world, &e);
  drape_scene_free(&scene); /* the world keeps what it needs */
  for (int f = 0; f < 120 && !rc; f++) rc = drape_world_step(world, &e);
  drape_world_object sheet;
  if (!rc) rc = drape_world_get_object(world, 0, &sheet, &e);
  float *x = rc ? NULL : malloc(sizeof(float) * 3 * (size_t)sheet.n_points);
  if (!rc && !(rc = x ? drape_world_read_points(world, 0, x, &e) : DRAPE_ENOMEM)) {
    float low = x[1];
    for (int i = 1; i < sheet.n_points; i++)
      if (x[3 * i + 1] < low) low = x[3 * i + 1];
    printf("drape %s: after %.2f s the cloth's lowest point is at y = %.4f m\n", drape_version(),
           drape_world_time(world), low);
  }
  if (rc) fprintf(stderr, "hello_drape: %s\n", e.msg[0] ? e.msg : "out of memory");
  free(x);
  drape_world_destroy(world);
  return rc ? 1 : 0;
}
