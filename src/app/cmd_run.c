/* `drape run SCENE`: simulates a scene's cloths and ropes for N frames and
 * writes OBJ frames and per-frame statistics.
 *
 * The frame loop is a list of hooks (begin / frame / end / abort), one per
 * output; a new output (PNG frames, video, string objects) is one more
 * entry in `hooks[]` and its flags in parse_args(). Every flag is checked
 * before anything runs; each output file is written to a temporary name and
 * renamed when complete, so a failed run leaves no half-written file. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "app/app.h"
#include "core/util.h"
#include "app/run_cables.h"
#include "cl/runtime.h"
#include "drape/cloth.h"
#include "drape/scene.h"
#include "render/run_hook.h"
#include "app/run_strings.h"

static const char *usage_text =
    "usage: drape [--device K] run SCENE [--frames N] [--obj-dir DIR] [--stats FILE.json]\n"
    "                          [--device K] [--backend cl|cpu]\n"
    "                          [--png-dir DIR] [--video FILE.mp4] [--every K] [--size WxH]\n";

static void help(void) {
  printf("%s", usage_text);
  printf("\nSimulates the cloths and ropes of a scene file (docs/scenes.md) for N frames\n"
         "of the scene's dt each (XPBD, small steps; README \"Cloth and rope solver\").\n\n"
         "  --frames N         frames to simulate (1..10000000); default: the scene's\n"
         "                     \"frames\" key\n"
         "  --obj-dir DIR      write DIR/frame_0001.obj ... (one `o` per object: cloth as\n"
         "                     `v` + `f`, rope as `v` + `l`; metres, %%.9g); DIR is created\n"
         "  --stats FILE.json  per-frame statistics: time, max and mean strain per object,\n"
         "                     kinetic energy, lowest sphere and floor clearance, ms per\n"
         "                     stage (OpenCL event profiling is switched on for this)\n"
         "  --device K         OpenCL device index (see `drape devices`; also DRAPE_DEVICE)\n"
         "  --backend cl|cpu   OpenCL kernels (default) or the CPU reference backend\n");
  printf("%s", drape_run_render_help()); /* src/render/run_hook.c */
  printf("\n"
         "A progress line goes to stderr when the run takes longer than a second.\n"
         "Exit codes: 0 done, 2 bad input (flag, value or scene), 1 other failures.\n");
}

typedef struct run_ctx {
  const char *scene_path;
  int frames;
  const char *obj_dir;
  const char *stats_path;
  int device;
  drape_backend backend;

  drape_scene scene;
  drape_scene sim_scene;     /* the scene less its implicit ropes (run_cables.h) */
  run_cables *cables;        /* implicit ropes: seed 003 cables on the CPU */
  drape_sim *sim;
  int frame;                 /* frames done */
  /* stats output */
  FILE *stats;
  char stats_tmp[4200];
  int stats_first;
  /* rendered frames: PNG files, video (src/render/run_hook.h) */
  drape_run_render_flags render_flags;
  drape_run_render *render;
  /* the seed 000 strings, advanced on a worker thread (app/run_strings.h) */
  run_strings *strings;
} run_ctx;

static int bad(const char *flag, const char *value, const char *what) {
  fprintf(stderr, "drape run: %s \"%s\": %s\n%s", flag, value ? value : "", what, usage_text);
  return 2;
}



/* ---- hook: OBJ frames ---- */

static int obj_begin(run_ctx *r, drape_err *e) {
  return r->obj_dir ? drape_make_dirs(r->obj_dir, "--obj-dir", e) : 0;
}

static int obj_frame(run_ctx *r, drape_err *e) {
  if (!r->obj_dir) return DRAPE_OK;
  char path[4200];
  snprintf(path, sizeof path, "%s/frame_%04d.obj", r->obj_dir, r->frame);
  if (!r->strings && !run_cables_count(r->cables)) return drape_sim_write_obj(r->sim, path, e);
  /* Strings are appended to the solver's objects: the solver writes a
   * ".part" file, the strings follow, and only then does it get its name. */
  char part[4300];
  snprintf(part, sizeof part, "%s.part", path);
  int rc = drape_sim_write_obj(r->sim, part, e);
  if (rc) return rc;
  FILE *f = fopen(part, "a");
  if (!f) {
    remove(part);
    return drape_fail(e, DRAPE_EIO, "cannot append to %s: %s", part, strerror(errno));
  }
  /* implicit ropes (run_cables.h), then strings, after the solver's vertices */
  const int base = drape_sim_mesh(r->sim)->n_particles;
  int bad_write = run_cables_append_obj(r->cables, f, base);
  if (r->strings)
    bad_write |= run_strings_write_obj(r->strings, f, base + run_cables_total_nodes(r->cables));
  if (fclose(f) != 0 || bad_write || rename(part, path) != 0) {
    remove(part);
    return drape_fail(e, DRAPE_EIO, "writing %s failed: %s", path, strerror(errno));
  }
  return DRAPE_OK;
}

/* ---- hook: statistics JSON ---- */

static int stats_begin(run_ctx *r, drape_err *e) {
  if (!r->stats_path) return DRAPE_OK;
  snprintf(r->stats_tmp, sizeof r->stats_tmp, "%s.tmp%ld", r->stats_path, (long)getpid());
  r->stats = fopen(r->stats_tmp, "w");
  if (!r->stats)
    return drape_fail(e, DRAPE_EINVAL, "--stats \"%s\": cannot write %s: %s", r->stats_path,
                      r->stats_tmp, strerror(errno));
  const drape_mesh *m = drape_sim_mesh(r->sim);
  drape_sim_params p;
  drape_sim_get_params(r->sim, &p);
  struct drape_cl *cl = drape_sim_cl(r->sim);
  FILE *f = r->stats;
  fputs("{\n  \"scene\": ", f);
  drape_json_str(f, r->scene_path);
  fprintf(f, ",\n  \"backend\": \"%s\",\n  \"device\": ", r->backend == DRAPE_BACKEND_CPU ? "cpu" : "cl");
  drape_json_str(f, cl ? cl->device_name : "CPU reference (1 thread)");
  fprintf(f, ",\n  \"dt\": %.9g, \"substeps\": %d, \"iterations\": %d,\n", r->scene.dt, p.substeps,
          p.iterations);
  fprintf(f, "  \"particles\": %d, \"constraints\": %d, \"colours\": %d, \"tether_slots\": %d,\n",
          m->n_particles, m->n_constraints, m->n_colours, m->tether_slots);
  fputs("  \"objects\": [", f);
  for (int i = 0; i < m->n_objects; i++) {
    fputs(i ? ", {\"name\": " : "{\"name\": ", f);
    drape_json_str(f, m->objects[i].name);
    fprintf(f, ", \"kind\": \"%s\", \"particles\": %d}",
            m->objects[i].kind == DRAPE_OBJ_CLOTH ? "cloth" : "rope", m->objects[i].n_particles);
  }
  run_cables_json_objects(r->cables, f, m->n_objects > 0, 0); /* implicit ropes */
  fputs("],\n  \"frames\": [\n", f);
  r->stats_first = 1;
  return ferror(f) ? drape_fail(e, DRAPE_EIO, "writing %s failed", r->stats_tmp) : DRAPE_OK;
}

static int stats_frame(run_ctx *r, drape_err *e) {
  if (!r->stats) return DRAPE_OK;
  drape_timings tm;
  drape_sim_timings(r->sim, &tm); /* before stats adds its read-back */
  drape_stats st;
  int rc = drape_sim_stats(r->sim, &st, e);
  if (rc) return rc;
  const drape_mesh *m = drape_sim_mesh(r->sim);
  FILE *f = r->stats;
  fprintf(f, "%s    {\"frame\": %d, \"time\": %.9g, \"kinetic_energy\": ", r->stats_first ? "" : ",\n",
          st.frame, st.time);
  r->stats_first = 0;
  drape_json_num(f, st.kinetic_energy);
  fputs(", \"min_sphere_clearance\": ", f);
  drape_json_num(f, st.min_sphere_clearance);
  fputs(", \"min_floor_clearance\": ", f);
  drape_json_num(f, st.min_floor_clearance);
  fputs(",\n     \"objects\": [", f);
  for (int i = 0; i < st.n_objects; i++) {
    fputs(i ? ", {\"name\": " : "{\"name\": ", f);
    drape_json_str(f, m->objects[i].name);
    fputs(", \"max_strain\": ", f);
    drape_json_num(f, st.objects[i].max_strain);
    fputs(", \"mean_strain\": ", f);
    drape_json_num(f, st.objects[i].mean_strain);
    fputs(", \"mean_abs_strain\": ", f);
    drape_json_num(f, st.objects[i].mean_abs_strain);
    fputs(", \"min_strain\": ", f);
    drape_json_num(f, st.objects[i].min_strain);
    fprintf(f, ", \"torn\": %d}", st.objects[i].torn);
  }
  run_cables_json_objects(r->cables, f, st.n_objects > 0, 1); /* implicit ropes */
  fputs("],\n     \"ms\": {\"frame\": ", f);
  drape_json_num(f, tm.ms_frame);
  for (int s = 0; s < DRAPE_STAGE_COUNT; s++) {
    fprintf(f, ", \"%s\": ", drape_stage_name((drape_stage)s));
    if (tm.stage_times_valid) drape_json_num(f, tm.ms[s]);
    else fputs("null", f);
  }
  fprintf(f, "},\n     \"bytes_to_device\": %llu}", (unsigned long long)tm.bytes_to_device);
  return ferror(f) ? drape_fail(e, DRAPE_EIO, "writing %s failed", r->stats_tmp) : DRAPE_OK;
}

static int stats_end(run_ctx *r, drape_err *e) {
  if (!r->stats) return DRAPE_OK;
  fputs("\n  ]\n}\n", r->stats);
  int bad_io = ferror(r->stats);
  int rc_close = fclose(r->stats);
  r->stats = NULL;
  if (bad_io || rc_close != 0) {
    remove(r->stats_tmp);
    return drape_fail(e, DRAPE_EIO, "writing %s failed: %s", r->stats_tmp, strerror(errno));
  }
  if (rename(r->stats_tmp, r->stats_path) != 0) {
    int err = errno;
    remove(r->stats_tmp);
    return drape_fail(e, DRAPE_EIO, "cannot rename %s to %s: %s", r->stats_tmp, r->stats_path,
                      strerror(err));
  }
  return DRAPE_OK;
}

static void stats_abort(run_ctx *r) {
  if (!r->stats) return;
  fclose(r->stats);
  r->stats = NULL;
  remove(r->stats_tmp);
}

/* ---- hook: rendered frames, PNG files and video (src/render/run_hook.c) ---- */

static int render_begin(run_ctx *r, drape_err *e) {
  return drape_run_render_begin(r->render, r->sim, e);
}
static int render_frame(run_ctx *r, drape_err *e) {
  return drape_run_render_frame(r->render, r->sim, r->frame, e);
}
static int render_end(run_ctx *r, drape_err *e) { return drape_run_render_end(r->render, e); }
static void render_abort(run_ctx *r) { drape_run_render_abort(r->render); }

/* ---- the hook table: outputs of the frame loop, in call order ---- */
typedef struct run_hook {
  const char *name;
  int (*begin)(run_ctx *r, drape_err *e);   /* after the solver exists     */
  int (*frame)(run_ctx *r, drape_err *e);   /* after each frame's step      */
  int (*end)(run_ctx *r, drape_err *e);     /* after the last frame         */
  void (*abort)(run_ctx *r);                /* on failure: remove temp files */
} run_hook;

/* ---- hook: implicit ropes (app/run_cables.h), stepped before the outputs ---- */
static int cables_frame(run_ctx *r, drape_err *e) { return run_cables_step(r->cables, r->frame, e); }

static const run_hook hooks[] = {
    {"cables", NULL, cables_frame, NULL, NULL},
    {"obj", obj_begin, obj_frame, NULL, NULL},
    {"stats", stats_begin, stats_frame, stats_end, stats_abort},
    {"render", render_begin, render_frame, render_end, render_abort},
    /* further outputs (e.g. string objects) go here */
};
#define N_HOOKS ((int)(sizeof hooks / sizeof hooks[0]))

static int parse_args(run_ctx *r, int argc, char **argv) {
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i];
    const char *val = i + 1 < argc ? argv[i + 1] : NULL;
    int taken = 0;
    if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
      help();
      return -1;
    } else if (!strcmp(a, "--frames")) {
      if (!drape_parse_int(val, 1, 10000000, &r->frames))
        return bad("--frames", val, "expected a whole number of frames, 1..10000000");
      i++;
    } else if (!strcmp(a, "--obj-dir")) {
      if (!val || !*val) return bad("--obj-dir", val, "expected a directory");
      r->obj_dir = val;
      i++;
    } else if (!strcmp(a, "--stats")) {
      if (!val || !*val) return bad("--stats", val, "expected a file name (FILE.json)");
      r->stats_path = val;
      i++;
    } else if (!strcmp(a, "--device")) {
      if (!drape_parse_int(val, 0, 1000000, &r->device))
        return bad("--device", val, "expected a device index (0, 1, ...; see `drape devices`)");
      i++;
    } else if (!strcmp(a, "--backend")) {
      if (val && !strcmp(val, "cl")) r->backend = DRAPE_BACKEND_CL;
      else if (val && !strcmp(val, "cpu")) r->backend = DRAPE_BACKEND_CPU;
      else return bad("--backend", val, "expected cl (OpenCL kernels) or cpu (CPU reference)");
      i++;
    } else if ((taken = drape_run_render_arg(&r->render_flags, argc, argv, i)) != 0) {
      if (taken < 0) return 2;
      i += taken - 1;
    } else if (a[0] == '-' && a[1] != 0) {
      fprintf(stderr, "drape run: unknown option '%s'\n%s", a, usage_text);
      return 2;
    } else if (!r->scene_path) {
      r->scene_path = a;
    } else {
      fprintf(stderr, "drape run: unexpected argument '%s' (one scene file only)\n%s", a,
              usage_text);
      return 2;
    }
  }
  if (!r->scene_path) {
    fprintf(stderr, "drape run: missing SCENE (a JSON scene file, e.g. scenes/drape_sphere.json)\n%s",
            usage_text);
    return 2;
  }
  return 0;
}

static void progress(run_ctx *r, double t0, double *last, int force) {
  double now = drape_now(), el = now - t0;
  if (el < 1.0 || (!force && now - *last < (isatty(2) ? 0.25 : 5.0))) return;
  *last = now;
  fprintf(stderr, "%sdrape run: frame %d/%d (%3.0f%%), %.1f s, %.1f ms/frame%s",
          isatty(2) ? "\r" : "", r->frame, r->frames, 100.0 * r->frame / r->frames, el,
          1e3 * el / (r->frame ? r->frame : 1), isatty(2) && !force ? "" : "\n");
  fflush(stderr);
}

int cmd_run(drape_app *app, int argc, char **argv) {
  run_ctx r;
  memset(&r, 0, sizeof r);
  r.device = -1;
  r.backend = DRAPE_BACKEND_CL;
  int prc = parse_args(&r, argc, argv);
  if (prc) return prc < 0 ? 0 : prc;
  drape_err e = {0};
  if (r.device < 0) r.device = app->device;
  int want = -1;
  if (r.backend == DRAPE_BACKEND_CL && drape_cl_requested_device(r.device, &want, &e))
    return drape_app_report(&e);
  if (drape_scene_load(r.scene_path, &r.scene, &e)) return drape_app_report(&e);
  if (!r.frames) r.frames = r.scene.frames;
  if (r.frames <= 0) {
    drape_scene_free(&r.scene);
    return bad("--frames", "", "missing: the scene has no \"frames\" key, so give --frames N");
  }

  drape_sim_opts o = drape_sim_opts_default();
  o.backend = r.backend;
  o.device_index = want;
  o.profiling = r.stats_path != NULL;
  /* The renderer first: it checks its outputs and may make the OpenCL
   * context (GL sharing), which the solver then uses through o.cl. */
  int rc = drape_run_render_prepare(&r.render_flags, &r.scene, r.frames, &o, &r.render, &e);
  if (!rc) rc = run_cables_prepare(&r.scene, &r.cables, &r.sim_scene, &e);
  if (!rc) rc = drape_sim_create(&r.sim_scene, &o, &r.sim, &e);
  if (!rc) rc = run_strings_create(&r.scene, &r.strings, &e);
  int h = 0;
  if (!rc)
    for (; h < N_HOOKS; h++)
      if (hooks[h].begin && (rc = hooks[h].begin(&r, &e))) break;
  const double t0 = drape_now();
  double last = t0;
  for (r.frame = 1; !rc && r.frame <= r.frames; r.frame++) {
    /* The strings advance on the worker thread while this one steps the
     * cloth (and waits for the device). */
    run_strings_start(r.strings, r.frame * r.scene.dt);
    rc = drape_sim_step(r.sim, &e);
    drape_err se = {0};
    int src = run_strings_wait(r.strings, &se);
    if (!rc && src) {
      rc = src;
      e = se;
    }
    for (int k = 0; !rc && k < run_strings_count(r.strings); k++) {
      const drape_string *st = run_strings_get(r.strings, k);
      if (r.render)
        rc = drape_run_render_set_string(r.render, k, drape_string_positions(st),
                                         drape_string_node_count(st), run_strings_z(r.strings, k),
                                         &e);
    }
    if (rc) break;
    for (int k = 0; k < N_HOOKS && !rc; k++)
      if (hooks[k].frame) rc = hooks[k].frame(&r, &e);
    if (!rc && !drape_run_render_owns_progress(r.render))
      progress(&r, t0, &last, r.frame == r.frames);
  }
  if (!rc) r.frame = r.frames;
  for (int k = 0; k < N_HOOKS && !rc; k++)
    if (hooks[k].end) rc = hooks[k].end(&r, &e);
  if (rc)
    for (int k = 0; k < N_HOOKS; k++)
      if (hooks[k].abort) hooks[k].abort(&r);
  run_strings_free(r.strings);
  drape_sim_destroy(r.sim);
  run_cables_free(r.cables);
  drape_run_render_free(r.render); /* after the solver: it may own the OpenCL runtime */
  drape_scene_free(&r.scene);
  return rc ? drape_app_report(&e) : 0;
}
