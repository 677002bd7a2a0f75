/* hello_drape: a cloth over a sphere, built in code, 120 frames; prints
 * the lowest point of the cloth. Build against an installed drape:
 *   cmake -S examples -B build-ex -DCMAKE_PREFIX_PATH=PREFIX  (find_package)
 *   cc hello_drape.c $(pkg-config --cflags --libs drape)    (pkg-config) */
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

  drape_sim_opts opts = drape_sim_opts_default();
  if (argc > 1 && argv[1][0] == 'c') opts.backend = DRAPE_BACKEND_CPU; /* "cpu" */
  drape_sim *sim = NULL;
  if (drape_sim_create(&scene, &opts, &sim, &e)) goto fail;
  for (int f = 0; f < 120; f++)
    if (drape_sim_step(sim, &e)) goto fail;

  const int n = drape_sim_mesh(sim)->n_particles;
  float *x = malloc(sizeof(float) * 4 * (size_t)n);
  if (!x || drape_sim_read_positions(sim, x, &e)) goto fail;
  float low = x[1];
  for (int i = 1; i < n; i++)
    if (x[4 * i + 1] < low) low = x[4 * i + 1];
  printf("drape %s: after %.2f s the cloth's lowest point is at y = %.4f m\n", drape_version(),
         drape_sim_time(sim), low);
  free(x);
  drape_sim_destroy(sim);
  drape_scene_free(&scene);
  return 0;
fail:
  fprintf(stderr, "hello_drape: %s\n", e.msg);
  drape_sim_destroy(sim);
  drape_scene_free(&scene);
  return 1;
}
