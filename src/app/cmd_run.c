/* `drape run SCENE`: simulates a scene's cloths and ropes for N frames and
 * writes OBJ frames and per-frame statistics.
 *
 * The frame loop is a list of hooks (begin / frame), one per output; a new
 * output (PNG frames, video, string objects) is one more entry in `hooks[]`
 * and its flags in parse_args(). Every flag and every output path is
 * checked before anything runs (issue 13 item 6: outpath.c); each output
 * file is written to a temporary name and renamed when complete, so a
 * failed run leaves no half-written file.
 *
 * Each frame first advances the world (include/drape/world.h: every
 * object of the scene) and only then runs the output hooks, so a frame in
 * which any solver diverged (DRAPE_EUNSTABLE) writes nothing anywhere. A run ends
 * with a status, recorded in the stats JSON and in the manifest run.json of
 * each frame folder: complete, diverged (exit 1), interrupted (SIGINT or
 * SIGTERM, checked at each frame boundary; exit 130 / 143) or failed. */
#include <cjson/cJSON.h>
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "app/app.h"
#include "io/io.h"
#include "drape/drape_cl.h"
#include "drape/world.h"
#include "drape/interop.h"
#include "drape/world_view.h"

static const char *usage_text =
    "usage: drape [--device K] run SCENE [--frames N] [--obj-dir DIR] [--stats FILE.json]\n"
    "                          [--device K] [--backend cl|cpu]\n"
    "                          [--png-dir DIR] [--video FILE.mp4] [--every K] [--size WxH]\n"
    "                          [--overwrite] [--obj-colliders]\n";

/* ---- the render flags: a drape_frames_def (drape/world_view.h) ---- */

typedef struct render_flags {
  drape_frames_def d;
  int size_set, every_set, samples_set, interop_set;
} render_flags;

static int bad_render(const char *flag, const char *value, const char *what) {
  fprintf(stderr, "drape run: %s \"%s\": %s\n", flag, value ? value : "", what);
  return -1;
}

/* One of the render flags (--png-dir, --video, --every, --size, --samples,
 * --interop, --png-level, --no-progress) with its value: the argv entries
 * taken (0: not a render flag), or -1 after printing what is allowed. */
static int render_arg(render_flags *rf, int argc, char **argv, int i) {
  drape_frames_def *f = &rf->d;
  static const char *flags[] = {"--png-dir", "--video",   "--every",   "--size", "--samples",
                                "--interop", "--png-level", "--no-progress"};
  const char *a = argv[i];
  int known = 0;
  for (size_t k = 0; k < sizeof flags / sizeof flags[0]; k++) known |= !strcmp(a, flags[k]);
  if (!known) return 0;
  if (!strcmp(a, "--no-progress")) {
    f->progress = 0;
    return 1;
  }
  const char *v = i + 1 < argc ? argv[i + 1] : NULL;
  long n;
  if (!strcmp(a, "--png-dir")) {
    if (!v || !*v) return bad_render(a, v, "expected a folder for frame_0001.png ...");
    f->png_dir = v;
  } else if (!strcmp(a, "--video")) {
    if (!v || !*v) return bad_render(a, v, "expected a video file name (e.g. out.mp4)");
    f->video = v;
  } else if (!strcmp(a, "--every")) {
    if (!dr_parse_long(v, 1, 1000000, &n))
      return bad_render(a, v, "expected a whole number of frames, 1..1000000 (render every K-th frame)");
    f->every = (int)n;
    rf->every_set = 1;
  } else if (!strcmp(a, "--size")) {
    if (!dr_parse_size(v, 16, 8192, &f->width, &f->height))
      return bad_render(a, v, "expected WIDTHxHEIGHT in pixels, each 16..8192 (e.g. 1280x720)");
    rf->size_set = 1;
  } else if (!strcmp(a, "--samples")) {
    if (!dr_parse_long(v, 1, 16, &n))
      return bad_render(a, v, "expected multisampling samples per pixel, 1..16 (1 = off)");
    f->samples = (int)n;
    rf->samples_set = 1;
  } else if (!strcmp(a, "--png-level")) {
    if (!dr_parse_long(v, 1, 9, &n)) return bad_render(a, v, "expected a PNG compression level, 1..9");
    f->png_level = (int)n;
  } else if (!strcmp(a, "--interop")) {
    drape_err e = {0};
    drape_interop_mode m;
    if (drape_interop_parse_mode(v, &m, &e)) {
      fprintf(stderr, "drape run: %s\n", e.msg);
      return -1;
    }
    f->interop = (int)m;
    rf->interop_set = 1;
  }
  return 2;
}

static const char *render_help(void) {
  return "  --png-dir DIR      render frames headlessly (EGL, no display needed) to\n"
         "                     DIR/frame_0001.png ... (numbered by simulation frame);\n"
         "                     DIR is created\n"
         "  --video FILE.mp4   render a video through ffmpeg (.mp4 .mkv .mov .m4v .webm\n"
         "                     .avi .gif; H.264 for mp4/mkv/mov), played at 1/(dt*K) fps\n"
         "  --every K          render frames 1, 1+K, 1+2K, ... (default 1)\n"
         "  --size WxH         frame size in pixels, 16..8192 each (default: the scene's\n"
         "                     \"render\" size, else 1280x720)\n"
         "  --samples N        multisampling per pixel, 1..16 (default 4)\n"
         "  --interop MODE     OpenCL->OpenGL transfer: auto (default), copy, share\n"
         "                     (cl_khr_gl_sharing; an error where the device lacks it)\n"
         "  --png-level N      PNG compression 1 (fast) .. 9 (small), default 6\n"
         "  --no-progress      no progress line (frame i/N, fps, ETA) on stderr\n";
}

static void help(void) {
  printf("%s", usage_text);
  printf("\nSimulates the cloths and ropes of a scene file (docs/scenes.md) for N frames\n"
         "of the scene's dt each (XPBD, small steps; docs/solver.md).\n\n"
         "  --frames N         frames to simulate (1..10000000); default: the scene's\n"
         "                     \"frames\" key\n"
         "  --obj-dir DIR      write DIR/frame_0001.obj ... (one `o` per object: cloth as\n"
         "                     `v` + `f`, rope as `v` + `l`; metres, %%.9g); DIR is created;\n"
         "                     frame numbers have as many digits as N needs, at least 4\n"
         "  --obj-colliders    with --obj-dir: also DIR/colliders_0001.obj ... (the\n"
         "                     capsules and mesh colliders at each frame, one `o` each)\n"
         "  --stats FILE.json  per-frame statistics: time, max and mean strain and the\n"
         "                     constraint residual per object, kinetic energy, lowest\n"
         "                     sphere and floor clearance, ms per stage (OpenCL event\n"
         "                     profiling is switched on for this)\n"
         "  --device K         OpenCL device index (see `drape devices`; also DRAPE_DEVICE)\n"
         "  --backend cl|cpu   OpenCL kernels (default) or the CPU reference backend\n"
         "  --overwrite        reuse a frame folder that holds an earlier run's files:\n"
         "                     removes its frame_NNNN.obj, frame_NNNN.png and run.json\n"
         "                     (nothing else) before the run\n");
  printf("%s", render_help());
  printf("\n"
         "Each frame folder gets a manifest, run.json: scene path and FNV-1a hash,\n"
         "frames written, file name pattern and status (running, then complete,\n"
         "diverged, interrupted or failed); the stats JSON records the same status.\n"
         "A folder holding another run's frames or run.json is refused without\n"
         "--overwrite. Output files must be new or regular files that are not the\n"
         "scene; every output path is checked before the run starts.\n"
         "A progress line goes to stderr when the run takes longer than a second.\n"
         "SIGINT/SIGTERM stop the run at the next frame: earlier frames, the stats and\n"
         "the video so far are kept, temporary files removed.\n"
         "Exit codes: 0 done, 2 bad input (flag, value, scene or output path), 1 the\n"
         "run diverged or failed, 130/143 interrupted by SIGINT/SIGTERM.\n");
}

/* A frame folder and what goes into it (one manifest each). */
typedef struct frame_dir {
  const char *dir;
  int obj, png;
} frame_dir;

typedef struct run_ctx {
  const char *scene_path;
  int frames;
  const char *obj_dir;
  int obj_colliders;         /* --obj-colliders: DIR/colliders_NNNN.obj too */
  const char *stats_path;
  int device;
  drape_backend backend;
  int overwrite;
  int digits;                /* frame number digits (dr_frame_digits)   */
  int done;                  /* frames whose outputs were all written      */
  int obj_written;
  /* manifest (run.json) */
  frame_dir fdirs[2];
  int n_fdirs;
  uint64_t scene_hash;
  char started[32];

  drape_scene scene;
  drape_render_def view;     /* the scene file's camera, frame size, colours */
  drape_world *world;        /* every object of the scene (world.h)        */
  double crossing_ms;        /* wall ms spent counting crossings (--stats)  */
  drape_sim *sim;            /* its cloth and rope solver                  */
  int frame;                 /* frames done */
  /* stats output */
  FILE *stats;
  char stats_tmp[4200];
  int stats_first;
  /* rendered frames: PNG files, video (drape/world_view.h) */
  render_flags render_flags;
  drape_frames *render;      /* NULL: nothing rendered                   */
} run_ctx;

static int bad(const char *flag, const char *value, const char *what) {
  fprintf(stderr, "drape run: %s \"%s\": %s\n%s", flag, value ? value : "", what, usage_text);
  return 2;
}



/* ---- hook: OBJ frames ---- */

static int obj_frame(run_ctx *r, drape_err *e) {
  if (!r->obj_dir) return DRAPE_OK;
  char path[4200];
  snprintf(path, sizeof path, "%s/frame_%0*d.obj", r->obj_dir, r->digits, r->frame);
  int rc = drape_world_write_obj(r->world, path, e); /* every object, one file */
  r->obj_written += rc == 0;
  if (!rc && r->obj_colliders) { /* capsules and mesh colliders (drape/cloth.h) */
    snprintf(path, sizeof path, "%s/colliders_%0*d.obj", r->obj_dir, r->digits, r->frame);
    rc = drape_sim_write_colliders_obj(drape_world_sim(r->world), path, e);
  }
  return rc;
}

/* ---- hook: statistics JSON ---- */

/* `, "key": number` (null when not finite: JSON has no NaN) */
static void json_field(FILE *f, const char *key, double v) {
  fprintf(f, ", \"%s\": ", key);
  dr_json_num(f, v);
}

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
  FILE *f = r->stats;
  fputs("{\n  \"scene\": ", f);
  dr_json_str(f, r->scene_path);
  fprintf(f, ",\n  \"backend\": \"%s\",\n  \"device\": ", r->backend == DRAPE_BACKEND_CPU ? "cpu" : "cl");
  dr_json_str(f, drape_world_device_name(r->world));
  fprintf(f, ",\n  \"kernel_form\": \"%s\"", drape_sim_kernel_form(r->sim));
  fprintf(f, ",\n  \"dt\": %.9g, \"substeps\": %d, \"iterations\": %d,\n", r->scene.dt, p.substeps,
          p.iterations);
  fprintf(f, "  \"particles\": %d, \"constraints\": %d, \"colours\": %d, \"tether_slots\": %d,\n",
          m->n_particles, m->n_constraints, m->n_colours, m->tether_slots);
  /* colour balance: fewest and most constraints in a colour; the mesh
   * cloths' dihedral bending, coloured apart */
  fprintf(f, "  \"colour_sizes\": [%d, %d], \"bend_constraints\": %d, \"bend_colours\": %d, "
             "\"bend_colour_sizes\": [%d, %d],\n",
          m->colour_min, m->colour_max, m->n_bend_constraints, m->n_bend_colours,
          m->bend_colour_min, m->bend_colour_max);
  /* the objects with statistics: the solver's cloths and ropes, then the
   * implicit ropes (the strings have their own output, the OBJ) */
  fputs("  \"objects\": [", f);
  for (int i = 0, n = 0; i < drape_world_object_count(r->world); i++) {
    drape_world_object o;
    drape_world_get_object(r->world, i, &o, NULL);
    if (o.kind == DRAPE_WORLD_STRING) continue;
    fputs(n++ ? ", {\"name\": " : "{\"name\": ", f);
    dr_json_str(f, o.name);
    fprintf(f, ", \"kind\": \"%s\"%s, \"particles\": %d}",
            o.kind == DRAPE_WORLD_CLOTH ? "cloth" : "rope",
            o.kind == DRAPE_WORLD_CABLE ? ", \"solver\": \"implicit\"" : "", o.n_points);
  }
  fputs("],\n  \"frames\": [\n", f);
  r->stats_first = 1;
  return ferror(f) ? drape_fail(e, DRAPE_EIO, "writing %s failed", r->stats_tmp) : DRAPE_OK;
}

static int stats_frame(run_ctx *r, drape_err *e) {
  if (!r->stats) return DRAPE_OK;
  drape_timings tm;
  drape_sim_timings(r->sim, &tm); /* before stats adds its read-back */
  drape_world_stats st;
  int rc = drape_world_get_stats(r->world, &st, e);
  long crossings = 0;
  const double tc = drape_now();
  if (!rc) rc = drape_world_count_crossings(r->world, &crossings, e);
  r->crossing_ms += (drape_now() - tc) * 1e3;
  if (rc) return rc;
  FILE *f = r->stats;
  fprintf(f, "%s    {\"frame\": %d, \"time\": %.9g, \"kinetic_energy\": ", r->stats_first ? "" : ",\n",
          st.frame, st.time);
  r->stats_first = 0;
  dr_json_num(f, st.kinetic_energy);
  fputs(", \"min_sphere_clearance\": ", f);
  dr_json_num(f, st.min_sphere_clearance);
  json_field(f, "min_floor_clearance", st.min_floor_clearance);
  json_field(f, "max_drive_lag", st.max_drive_lag);
  fprintf(f, ", \"crossings\": %ld", crossings);
  fputs(",\n     \"objects\": [", f);
  for (int i = 0, n = 0; i < st.n_objects; i++) {
    drape_world_object o;
    drape_world_get_object(r->world, i, &o, NULL);
    if (o.kind == DRAPE_WORLD_STRING) continue;
    const drape_world_object_stats *os = &st.objects[i];
    fputs(n++ ? ", {\"name\": " : "{\"name\": ", f);
    dr_json_str(f, o.name);
    json_field(f, "max_strain", os->max_strain);
    json_field(f, "mean_strain", os->mean_strain);
    json_field(f, "mean_abs_strain", os->mean_abs_strain);
    json_field(f, "min_strain", os->min_strain);
    fprintf(f, ", \"torn\": %d", os->torn);
    /* the XPBD solve's residual; a cable has its own Newton solve */
    if (o.kind != DRAPE_WORLD_CABLE) json_field(f, "residual", os->residual);
    if (o.kind == DRAPE_WORLD_CLOTH) {
      json_field(f, "lowest", os->lowest);
      json_field(f, "covered_area", os->covered_area);
      /* only where the scene declares the test: a drape coefficient of a
       * cloth without a support disk would mean nothing */
      if (r->scene.cloth[o.scene_index].drape_disk_radius > 0)
        json_field(f, "drape_coefficient", os->drape_coefficient);
    }
    if (o.kind == DRAPE_WORLD_CABLE) { /* the seed 003 cable's own figures */
      json_field(f, "sag", os->sag);
      json_field(f, "kinetic_energy", os->kinetic_energy);
      json_field(f, "elastic_energy", os->elastic_energy);
      fprintf(f, ", \"newton_iterations\": %d", os->newton_iterations);
    }
    fputc('}', f);
  }
  fputs("],\n     \"ms\": {\"frame\": ", f);
  dr_json_num(f, tm.ms_frame);
  for (int s = 0; s < DRAPE_STAGE_COUNT; s++) {
    fprintf(f, ", \"%s\": ", drape_stage_name((drape_stage)s));
    if (tm.stage_times_valid) dr_json_num(f, tm.ms[s]);
    else fputs("null", f);
  }
  fprintf(f, "},\n     \"bytes_to_device\": %llu}", (unsigned long long)tm.bytes_to_device);
  return ferror(f) ? drape_fail(e, DRAPE_EIO, "writing %s failed", r->stats_tmp) : DRAPE_OK;
}

/* Finishes the JSON with the run's status ("complete", "diverged",
 * "interrupted", "failed") and its error message (null when complete). */
static int stats_end(run_ctx *r, const char *status, const char *error, drape_err *e) {
  if (!r->stats) return DRAPE_OK;
  FILE *f = r->stats;
  fprintf(f, "\n  ],\n  \"frames_requested\": %d, \"frames_done\": %d,\n  \"status\": \"%s\", "
          "\"error\": ", r->frames, r->done, status);
  if (error) dr_json_str(f, error);
  else fputs("null", f);
  /* the exact crossing count's own wall time (host; not in ms_frame) */
  fprintf(f, ",\n  \"crossings_ms_per_frame\": %.6g", r->done ? r->crossing_ms / r->done : 0.0);
  fputs("\n}\n", f);
  int bad_io = ferror(f);
  int rc_close = fclose(f);
  r->stats = NULL;
  if (bad_io || rc_close != 0) {
    remove(r->stats_tmp);
    return drape_fail(e, DRAPE_EIO, "writing %s failed: %s", r->stats_tmp, strerror(errno));
  }
  return dr_out_commit(r->stats_tmp, r->stats_path, "--stats", e);
}

static void stats_abort(run_ctx *r) {
  if (!r->stats) return;
  fclose(r->stats);
  r->stats = NULL;
  remove(r->stats_tmp);
}

/* ---- hook: rendered frames, PNG files and video (drape_frames) ---- */

static int render_begin(run_ctx *r, drape_err *e) {
  return r->render ? drape_frames_attach(r->render, r->world, e) : DRAPE_OK;
}
static int render_frame(run_ctx *r, drape_err *e) {
  return r->render ? drape_frames_add(r->render, e) : DRAPE_OK;
}

/* ---- the hook table: outputs of the frame loop, in call order ----
 * Stats first: drape_sim_stats also looks at every particle, so a state it
 * finds non-finite stops the frame before any file of it is written. The
 * ends are explicit in finish_outputs(): the video before the stats and
 * manifest, so a video that fails to finish is in the recorded status. */
typedef struct run_hook {
  const char *name;
  int (*begin)(run_ctx *r, drape_err *e);   /* after the solver exists          */
  int (*frame)(run_ctx *r, drape_err *e);   /* after every object's step        */
} run_hook;

static const run_hook hooks[] = {
    {"stats", stats_begin, stats_frame},
    {"obj", NULL, obj_frame},
    {"render", render_begin, render_frame},
    /* further outputs (e.g. string objects) go here */
};
#define N_HOOKS ((int)(sizeof hooks / sizeof hooks[0]))

/* ---- output folders and the manifest run.json (issue 13 items 6, 9) ---- */

/* 1 when a and b name the same folder (same inode; by name when one of
 * them does not exist yet). */
static int same_dir(const char *a, const char *b) {
  struct stat sa, sb;
  if (stat(a, &sa) == 0 && stat(b, &sb) == 0) return sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
  size_t na = strlen(a), nb = strlen(b);
  while (na > 1 && a[na - 1] == '/') na--;
  while (nb > 1 && b[nb - 1] == '/') nb--;
  return na == nb && !strncmp(a, b, na);
}

/* What an existing run.json says, for the refusal message. */
static void describe_manifest(const char *dir, char *out, size_t cap) {
  out[0] = 0;
  char path[4200];
  snprintf(path, sizeof path, "%s/run.json", dir);
  FILE *f = fopen(path, "rb");
  if (!f) return;
  char buf[16384];
  size_t n = fread(buf, 1, sizeof buf - 1, f);
  fclose(f);
  buf[n] = 0;
  cJSON *j = cJSON_Parse(buf);
  const cJSON *sc = cJSON_GetObjectItemCaseSensitive(j, "scene");
  const cJSON *st = cJSON_GetObjectItemCaseSensitive(j, "status");
  if (cJSON_IsString(sc) && cJSON_IsString(st))
    snprintf(out, cap, "; its run.json: scene %s, status %s", sc->valuestring, st->valuestring);
  cJSON_Delete(j);
}

/* Every output path, before anything is created or run: exit 2 on a bad
 * one. Frame folders holding another run's files are refused unless
 * --overwrite. */
static int check_outputs(run_ctx *r, drape_err *e) {
  const char *inputs[1] = {r->scene_path};
  const char *video = r->render_flags.d.video, *png_dir = r->render_flags.d.png_dir;
  int rc;
  if (r->stats_path && (rc = dr_out_file_check(r->stats_path, "--stats", inputs, 1, e)))
    return rc;
  if (video && (rc = dr_out_file_check(video, "--video", inputs, 1, e))) return rc;
  if (video && r->stats_path && !strcmp(video, r->stats_path))
    return drape_fail(e, DRAPE_EINVAL, "--stats \"%s\": the same file as --video", r->stats_path);
  if (r->obj_dir && (rc = dr_out_dir_check(r->obj_dir, "--obj-dir", e))) return rc;
  if (png_dir && (rc = dr_out_dir_check(png_dir, "--png-dir", e))) return rc;
  r->n_fdirs = 0;
  if (r->obj_dir) r->fdirs[r->n_fdirs++] = (frame_dir){r->obj_dir, 1, 0};
  if (png_dir) {
    if (r->n_fdirs && same_dir(png_dir, r->obj_dir)) r->fdirs[0].png = 1;
    else r->fdirs[r->n_fdirs++] = (frame_dir){png_dir, 0, 1};
  }
  for (int i = 0; i < r->n_fdirs; i++) {
    const frame_dir *d = &r->fdirs[i];
    const char *flag = d->obj ? "--obj-dir" : "--png-dir";
    /* A file output inside a frame folder under a name drape uses there. */
    const char *files[2] = {r->stats_path, video};
    for (int k = 0; k < 2; k++) {
      if (!files[k]) continue;
      const char *slash = strrchr(files[k], '/');
      char parent[4096];
      snprintf(parent, sizeof parent, "%.*s", slash ? (int)(slash - files[k]) : 1,
               slash ? files[k] : ".");
      if (slash == files[k]) snprintf(parent, sizeof parent, "/");
      if (dr_is_frame_file(slash ? slash + 1 : files[k]) && same_dir(parent, d->dir))
        return drape_fail(e, DRAPE_EINVAL, "%s \"%s\": is a name drape uses in the %s folder",
                          k ? "--video" : "--stats", files[k], flag);
    }
    char first[300];
    int n = dr_frame_files_scan(d->dir, first, sizeof first);
    if (n < 0)
      return drape_fail(e, DRAPE_EINVAL, "%s \"%s\": cannot read the folder: %s", flag, d->dir,
                        strerror(errno));
    if (n > 0 && !r->overwrite) {
      char what[600];
      describe_manifest(d->dir, what, sizeof what);
      return drape_fail(e, DRAPE_EINVAL,
                        "%s \"%s\": holds another run's files (%s%s%s); drape does not mix runs "
                        "in one folder: choose an empty folder, or give --overwrite to remove "
                        "frame_NNNN.obj, frame_NNNN.png and run.json there first", flag, d->dir,
                        first, n > 1 ? " and more" : "", what);
    }
  }
  return DRAPE_OK;
}

/* After every check passed: clears the folders (--overwrite), creates them. */
static int prepare_folders(run_ctx *r, drape_err *e) {
  for (int i = 0; i < r->n_fdirs; i++) {
    const frame_dir *d = &r->fdirs[i];
    const char *flag = d->obj ? "--obj-dir" : "--png-dir";
    if (r->overwrite) {
      int n = dr_frame_files_remove(d->dir, flag, e);
      if (n < 0) return e->code;
      if (n > 0) fprintf(stderr, "drape run: --overwrite: removed %d earlier files from %s\n", n,
                         d->dir);
      /* Left: only things named like drape's files that are not regular
       * files (a folder or FIFO called frame_0001.obj); a rename would
       * replace them, so refuse. */
      char first[300];
      if (dr_frame_files_scan(d->dir, first, sizeof first) > 0)
        return drape_fail(e, DRAPE_EINVAL, "%s \"%s\": %s there is not a regular file; drape "
                          "neither removes nor replaces it", flag, d->dir, first);
    }
    int rc = dr_make_dirs(d->dir, flag, e);
    if (rc) return rc;
  }
  return DRAPE_OK;
}

/* Writes DIR/run.json for every frame folder (temporary name, then renamed).
 * `status`: running, complete, diverged, interrupted or failed. */
static int manifest_write(run_ctx *r, const char *status, const char *error, drape_err *e) {
  char finished[32] = "";
  if (strcmp(status, "running")) dr_utc_now(finished, sizeof finished);
  const int every = r->render_flags.d.every > 0 ? r->render_flags.d.every : 1;
  const int png_written = r->done > 0 ? (r->done - 1) / every + 1 : 0;
  for (int i = 0; i < r->n_fdirs; i++) {
    const frame_dir *d = &r->fdirs[i];
    char path[4200], tmp[4300];
    snprintf(path, sizeof path, "%s/run.json", d->dir);
    snprintf(tmp, sizeof tmp, "%s.tmp%ld", path, (long)getpid());
    FILE *f = fopen(tmp, "w");
    if (!f)
      return drape_fail(e, DRAPE_EIO, "%s: cannot write %s: %s", d->obj ? "--obj-dir" : "--png-dir",
                        tmp, strerror(errno));
    fprintf(f, "{\n  \"drape\": \"%s\",\n  \"status\": \"%s\",\n  \"error\": ", drape_version(),
            status);
    if (error) dr_json_str(f, error);
    else fputs("null", f);
    fputs(",\n  \"scene\": ", f);
    dr_json_str(f, r->scene_path);
    /* FNV-1a 64 tells scene files apart; it is not a cryptographic hash. */
    fprintf(f, ",\n  \"scene_fnv1a64\": \"%016" PRIx64 "\",\n  \"backend\": \"%s\",\n"
            "  \"frames_requested\": %d,\n  \"frames_done\": %d,\n  \"outputs\": [",
            r->scene_hash, r->backend == DRAPE_BACKEND_CPU ? "cpu" : "cl", r->frames, r->done);
    if (d->obj)
      fprintf(f, "\n    {\"kind\": \"obj\", \"files\": \"frame_%%0%dd.obj\", \"every\": 1, "
              "\"written\": %d}%s", r->digits, r->obj_written, d->png ? "," : "");
    if (d->png)
      fprintf(f, "\n    {\"kind\": \"png\", \"files\": \"frame_%%0%dd.png\", \"every\": %d, "
              "\"written\": %d}", r->digits, every, png_written);
    fprintf(f, "\n  ],\n  \"pid\": %ld,\n  \"started\": \"%s\",\n  \"finished\": ",
            (long)getpid(), r->started);
    if (finished[0]) fprintf(f, "\"%s\"", finished);
    else fputs("null", f);
    fputs("\n}\n", f);
    int bad_io = ferror(f);
    if (fclose(f) != 0 || bad_io) {
      unlink(tmp);
      return drape_fail(e, DRAPE_EIO, "writing %s failed: %s", tmp, strerror(errno));
    }
    int rc = dr_out_commit(tmp, path, d->obj ? "--obj-dir" : "--png-dir", e);
    if (rc) return rc;
  }
  return DRAPE_OK;
}

static int parse_args(run_ctx *r, int argc, char **argv) {
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i];
    const char *val = i + 1 < argc ? argv[i + 1] : NULL;
    int taken = 0;
    if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
      help();
      return -1;
    } else if (!strcmp(a, "--frames")) {
      if (!dr_parse_int(val, 1, 10000000, &r->frames))
        return bad("--frames", val, "expected a whole number of frames, 1..10000000");
      i++;
    } else if (!strcmp(a, "--obj-dir")) {
      if (!val || !*val) return bad("--obj-dir", val, "expected a directory");
      r->obj_dir = val;
      i++;
    } else if (!strcmp(a, "--obj-colliders")) {
      r->obj_colliders = 1;
    } else if (!strcmp(a, "--stats")) {
      if (!val || !*val) return bad("--stats", val, "expected a file name (FILE.json)");
      r->stats_path = val;
      i++;
    } else if (!strcmp(a, "--device")) {
      if (!dr_parse_int(val, 0, 1000000, &r->device))
        return bad("--device", val, "expected a device index (0, 1, ...; see `drape devices`)");
      i++;
    } else if (!strcmp(a, "--overwrite")) {
      r->overwrite = 1;
    } else if (!strcmp(a, "--backend")) {
      if (val && !strcmp(val, "cl")) r->backend = DRAPE_BACKEND_CL;
      else if (val && !strcmp(val, "cpu")) r->backend = DRAPE_BACKEND_CPU;
      else return bad("--backend", val, "expected cl (OpenCL kernels) or cpu (CPU reference)");
      i++;
    } else if ((taken = render_arg(&r->render_flags, argc, argv, i)) != 0) {
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
  if (r->obj_colliders && !r->obj_dir)
    return bad("--obj-colliders", NULL, "needs --obj-dir DIR (the colliders go beside the frames)");
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

/* Ends every output with the run's status: the video first (finished with
 * the frames so far unless the run failed), then the stats JSON and the
 * manifests. Returns the first error of its own (e2), if any. */
static int finish_outputs(run_ctx *r, const char *status, const char *error, drape_err *e2) {
  int rc = DRAPE_OK, failed = !strcmp(status, "failed");
  const char *how = !strcmp(status, "diverged") ? "diverged" : "was interrupted";
  if (r->render) {
    const char *video = r->render_flags.d.video;
    if (failed) {
      if (drape_frames_abort(r->render) && video)
        fprintf(stderr, "drape run: removed the unfinished video %s (the run failed)\n", video);
    } else {
      int rendered, drc;
      double a, b;
      drape_frames_timings(r->render, &rendered, &a, &b);
      if ((drc = drape_frames_finish(r->render, e2))) {
        rc = drc;
        if (video) fprintf(stderr, "drape run: the video %s was removed: %s\n", video, e2->msg);
      } else if (video && strcmp(status, "complete")) {
        if (rendered > 0)
          fprintf(stderr, "drape run: finished the video %s with the %d frames rendered before "
                  "the run %s\n", video, rendered, how);
        else
          fprintf(stderr, "drape run: no video written (no frame was rendered before the run "
                  "%s)\n", how);
      }
    }
  }
  /* A video that could not be finished fails a run that was complete. */
  if (rc && !strcmp(status, "complete")) {
    status = "failed";
    error = e2->msg;
  }
  if (!strcmp(status, "failed") && r->done == 0) {
    /* Failed before any frame (a bad value found late, an OpenCL error):
     * nothing to describe, so no stats file and no manifest are left, and
     * the same command with the mistake fixed needs no --overwrite. */
    stats_abort(r);
    for (int i = 0; i < r->n_fdirs; i++) {
      char path[4200];
      snprintf(path, sizeof path, "%s/run.json", r->fdirs[i].dir);
      unlink(path);
    }
    return rc;
  }
  drape_err se = {0};
  int src = stats_end(r, status, error, &se);
  if (src) {
    stats_abort(r);
    if (!rc) {
      rc = src;
      *e2 = se;
    }
  }
  drape_err me = {0};
  int mrc = manifest_write(r, status, error, &me);
  if (mrc && !rc) {
    rc = mrc;
    *e2 = me;
  }
  return rc;
}

int cmd_run(dr_app *app, int argc, char **argv) {
  run_ctx r;
  memset(&r, 0, sizeof r);
  r.device = -1;
  r.backend = DRAPE_BACKEND_CL;
  r.render_flags.d.progress = 1; /* --no-progress clears it */
  int prc = parse_args(&r, argc, argv);
  if (prc) return prc < 0 ? 0 : prc;
  /* From here on SIGINT/SIGTERM only set a flag, looked at per frame. */
  dr_interrupt_install();
  drape_err e = {0};
  if (r.device < 0) r.device = app->device;
  int want = -1;
  if (r.backend == DRAPE_BACKEND_CL && drape_cl_requested_device(r.device, &want, &e))
    return drape_app_report(&e);
  if (drape_scene_load(r.scene_path, &r.scene, &e)) return drape_app_report(&e);
  /* Presentation from the same file (already checked by the scene loader). */
  if (drape_render_def_load(r.scene_path, &r.view, &e)) {
    drape_scene_free(&r.scene);
    drape_render_def_free(&r.view);
    return drape_app_report(&e);
  }
  if (!r.frames) r.frames = r.scene.frames;
  if (r.frames <= 0) {
    drape_scene_free(&r.scene);
    drape_render_def_free(&r.view);
    return bad("--frames", "", "missing: the scene has no \"frames\" key, so give --frames N");
  }
  r.digits = dr_frame_digits(r.frames);
  r.render_flags.d.frame_digits = r.digits;
  r.render_flags.d.total_frames = r.frames;
  r.render_flags.d.label = "drape run";
  /* Every output path before anything is made or run. */
  if (check_outputs(&r, &e) || prepare_folders(&r, &e)) {
    drape_scene_free(&r.scene);
    drape_render_def_free(&r.view);
    return drape_app_report(&e);
  }
  if (dr_hash_file_fnv1a64(r.scene_path, &r.scene_hash) != 0) r.scene_hash = 0;
  dr_utc_now(r.started, sizeof r.started);

  drape_world_def wd = drape_world_def_default(); /* the renderer may set wd.cl */
  wd.backend = r.backend;
  wd.use_device = want >= 0;
  wd.device_index = want;
  wd.profiling = r.stats_path != NULL;
  wd.kernel_form = app->kernel_form;
  int rc = manifest_write(&r, "running", NULL, &e);
  /* The renderer first: it checks its outputs and may make the OpenCL
   * context (GL sharing), which the world then uses through wd.cl. */
  const render_flags *rf = &r.render_flags;
  if (!rc && (rf->d.png_dir || rf->d.video))
    rc = drape_frames_open(&rf->d, &r.scene, &r.view, &wd, &r.render, &e);
  else if (rf->size_set || rf->every_set || rf->samples_set || rf->interop_set)
    fprintf(stderr, "drape run: note: --size/--every/--samples/--interop only matter with "
            "--png-dir or --video\n");
  if (!rc) rc = drape_world_create(&r.scene, &wd, &r.world, &e);
  if (!rc) r.sim = drape_world_sim(r.world);
  if (!rc) rc = drape_world_check_frames(r.world, r.frames, &e);
  for (int h = 0; !rc && h < N_HOOKS; h++)
    if (hooks[h].begin) rc = hooks[h].begin(&r, &e);
  const double t0 = drape_now();
  double last = t0;
  int sig = 0;
  for (r.frame = 1; !rc && r.frame <= r.frames; r.frame++) {
    if ((sig = dr_interrupted())) break;
    /* Every object first (the world: strings on a worker thread while
     * this one steps the device, then the implicit ropes). A failure of any
     * (DRAPE_EUNSTABLE: diverged) stops the run before any output of this
     * frame. */
    rc = drape_world_step(r.world, &e);
    if (rc) break;
    /* Then the outputs. */
    for (int k = 0; k < N_HOOKS && !rc; k++)
      if (hooks[k].frame) rc = hooks[k].frame(&r, &e);
    if (rc) break;
    r.done = r.frame;
    if (!r.render) progress(&r, t0, &last, r.frame == r.frames);
  }
  const char *status = sig ? "interrupted" : !rc ? "complete"
                       : rc == DRAPE_EUNSTABLE ? "diverged" : "failed";
  char error[1100];
  if (sig)
    snprintf(error, sizeof error, "interrupted by %s after frame %d of %d",
             sig == SIGINT ? "SIGINT" : "SIGTERM", r.done, r.frames);
  else
    snprintf(error, sizeof error, "%s", e.msg);
  if (sig) {
    if (!r.render && r.done > 0) progress(&r, t0, &last, 1);
    fprintf(stderr, "drape run: %s; stopping\n", error);
  }
  drape_err fe = {0};
  int frc = finish_outputs(&r, status, rc || sig ? error : NULL, &fe);
  if (rc == DRAPE_EUNSTABLE && r.done > 0 &&
      (r.obj_dir || r.stats_path || r.render_flags.d.png_dir || r.render_flags.d.video))
    fprintf(stderr, "drape run: frames 1..%d were written; frame %d and later were not\n", r.done,
            r.done + 1);
  drape_world_destroy(r.world);
  drape_frames_destroy(r.render); /* after the world: it may own the OpenCL runtime */
  drape_scene_free(&r.scene);
  drape_render_def_free(&r.view);
  if (rc) {
    if (frc) fprintf(stderr, "drape: %s\n", fe.msg);
    /* A failure while running names the scene, as a bad scene does. */
    drape_err named = e;
    snprintf(named.msg, sizeof named.msg, "scene file '%s': %.900s", r.scene_path, e.msg);
    return drape_app_report(&named);
  }
  if (frc) return drape_app_report(&fe);
  return sig ? dr_interrupt_exit_code(sig) : 0;
}
