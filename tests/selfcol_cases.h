/* Shared by the scene tests of issue 18's cases (test_selfcol_throw.c,
 * test_selfcol_garment.c, test_selfcol_rope.c): a scene file loaded from
 * the source tree, a run that counts crossings exactly
 * (drape_sim_count_crossings, docs/selfcollision.md "Counting crossings")
 * at every checked frame, and the same-bits check of the CPU reference
 * against OpenCL in both kernel forms. Header-only: each test is its own
 * executable. */
#ifndef DRAPE_TEST_SELFCOL_CASES_H
#define DRAPE_TEST_SELFCOL_CASES_H

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cloth_util.h"
#include "drape/cloth.h"
#include "drape/scene.h"
#include "support.h"

static inline long case_crossings(drape_sim *sim) {
  long n = -1;
  drape_err e = {0};
  if (drape_sim_count_crossings(sim, &n, &e)) fail_msg("%s", e.msg);
  return n;
}

/* What a run saw at its checked frames. */
typedef struct case_run {
  long most;          /* the largest crossing count                  */
  int first;          /* the first frame with crossings (0: none)    */
  int checked;        /* frames counted                              */
  double strain;      /* the largest max strain of any object        */
  double lag;         /* the largest lag of a driven particle, m     */
} case_run;

/* Steps `frames` frames on OpenCL (auto kernel form); at every `every`-th
 * frame and the last: the exact crossing count and every object's max
 * strain, which must be finite. */
static inline case_run case_run_counting(const drape_scene *sc, int frames, int every,
                                         const char *label) {
  drape_sim *sim = make_sim_form(sc, DRAPE_BACKEND_CL, DRAPE_KERNEL_FORM_AUTO);
  case_run r = {0, 0, 0, 0, 0};
  for (int f = 1; f <= frames; f++) {
    step_frames(sim, 1);
    if (f % every && f != frames) continue;
    const long c = case_crossings(sim);
    const drape_stats st = get_stats(sim);
    for (int k = 0; k < st.n_objects; k++) {
      assert_true(isfinite(st.objects[k].max_strain));
      if (st.objects[k].max_strain > r.strain) r.strain = st.objects[k].max_strain;
    }
    assert_true(isfinite(st.max_drive_lag));
    if (st.max_drive_lag > r.lag) r.lag = st.max_drive_lag;
    r.checked++;
    if (c > r.most) r.most = c;
    if (c > 0 && !r.first) r.first = f;
    if (c > 0 || f % 30 == 0 || f == frames)
      fprintf(stderr, "  %s, frame %d: %ld crossings, driven particles %.3g m behind\n", label, f,
              c, st.max_drive_lag);
  }
  drape_sim_destroy(sim);
  fprintf(stderr, "%s: %d frames, %d counted: at most %ld crossings (first at frame %d), max "
          "strain %.3g, driven particles at most %.3g m behind\n", label, frames, r.checked,
          r.most, r.first, r.strain, r.lag);
  return r;
}

/* The CPU reference, OpenCL twice in the vector form and once in the GPU
 * form step `frames` frames: the same positions to the bit. */
static inline void case_same_bits(const drape_scene *sc, int frames, const char *label) {
  const drape_backend be[4] = {DRAPE_BACKEND_CPU, DRAPE_BACKEND_CL, DRAPE_BACKEND_CL,
                               DRAPE_BACKEND_CL};
  const drape_kernel_form form[4] = {DRAPE_KERNEL_FORM_AUTO, DRAPE_KERNEL_FORM_CPU,
                                     DRAPE_KERNEL_FORM_CPU, DRAPE_KERNEL_FORM_GPU};
  float *ref = NULL;
  size_t bytes = 0;
  long cross_ref = -1;
  for (int run = 0; run < 4; run++) {
    drape_sim *sim = make_sim_form(sc, be[run], form[run]);
    step_frames(sim, frames);
    float *x = read_x(sim);
    const long c = case_crossings(sim);
    if (!ref) {
      ref = x;
      bytes = sizeof(float) * 4 * (size_t)drape_sim_mesh(sim)->n_particles;
      cross_ref = c;
    } else {
      assert_memory_equal(x, ref, bytes); /* CPU = OpenCL vector = again = GPU form */
      assert_int_equal(c, cross_ref);
      free(x);
    }
    drape_sim_destroy(sim);
  }
  fprintf(stderr, "%s, %d frames: CPU reference, OpenCL twice (vector form), GPU form: same "
          "bits (%ld crossings)\n", label, frames, cross_ref);
  free(ref);
}

#endif
