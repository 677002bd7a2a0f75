/* `drape batch`: many runs of one scene with some values changed, on one
 * machine or a cluster (issue 19; docs/batch.md).
 *
 *   drape batch SWEEP.json --out DIR [--jobs K] [--shard I/N]
 *   drape batch SWEEP.json --out DIR --slurm [...]    a Slurm job array
 *   drape batch --summary DIR                         CSV, JSON, figure
 *
 * The sweep names a base scene and, under "vary", key paths of that scene
 * ("cloth[0].compliance.bend") with the values to try: the jobs are the
 * product of the entries, or K random draws ("samples", "seed"). Each job
 * is the base scene's JSON with its values written at their key paths,
 * saved as DIR/jobs/NNNNN/scene.json and loaded by the scene loader like
 * any file, so `drape run` on that file alone gives the same bits, and a
 * bad value gets the loader's message with its key path.
 *
 * The values of every job are fixed once, in DIR/plan.json, by the first
 * run that finds none (written to a temporary name and linked into place,
 * so of two shards starting together exactly one plan wins); every later
 * run and every shard, on any machine, takes the values from it. Why not
 * recompute them on each machine: "logspace" uses the C library's pow and
 * log10, whose last bit may differ between library versions, and a resumed
 * job must be the job that was planned.
 *
 * How jobs run: each in a child process, this same executable with the
 * hidden --job flag (one world, then exit), started without a shell
 * (io/spawn.c) in its own process group. A crash or a timeout of one job
 * is that job's failure, never the batch's; the parent kills the job's
 * whole group (ffmpeg included) on its timeout, and a job dies with its
 * parent (PR_SET_PDEATHSIG), so a killed batch leaves no job running. The
 * child writes into DIR/jobs/NNNNN.tmp; the parent adds status.json and
 * renames the folder to DIR/jobs/NNNNN, so a job folder is either complete
 * or absent, and a rerun skips the finished ones (resume). Starting a
 * process costs ~60 ms with PoCL's kernel cache warm (BENCHMARKS.md, "Batch
 * runs"), which buys the isolation; an in-process pool of worlds would save
 * that and lose it. */
#define _GNU_SOURCE /* prctl, nftw, strsignal */
#include <cjson/cJSON.h>
#include <errno.h>
#include <fcntl.h>
#include <sys/file.h>
#include <ftw.h>
#include <inttypes.h>
#include <math.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "app/app.h"
#include "io/io.h"
#include "drape/drape_cl.h"
#include "drape/render.h"
#include "drape/render_def.h"
#include "drape/scene.h"
#include "drape/world.h"
#include "drape/world_view.h"

#define BATCH_MAX_JOBS 1000000L   /* jobs in one sweep                       */
#define BATCH_MAX_KEYS 32         /* "vary" entries                          */
#define BATCH_MAX_PARALLEL 256    /* --jobs                                  */
#define BATCH_MAX_SEED 9007199254740992.0 /* 2^53: a JSON number holds it exactly */

static const char *usage_text =
    "usage: drape batch SWEEP.json --out DIR [--jobs K] [--shard I/N] [--retry-failed]\n"
    "                   [--no-summary] [--quiet]\n"
    "       drape batch SWEEP.json --list\n"
    "       drape batch SWEEP.json --out DIR --slurm [--tasks T] [--max-parallel M]\n"
    "                   [--partition P] [--gpus-per-task G] [--time LIMIT] [--jobs K]\n"
    "       drape batch --summary DIR [--x PARAM] [--y METRIC] [--by PARAM] [--no-plot]\n";

static void help(void) {
  printf("%s", usage_text);
  printf(
      "\nRuns a scene many times with values changed (docs/batch.md). SWEEP.json:\n"
      "  {\"scene\": \"base.json\", \"frames\": 120,\n"
      "   \"vary\": {\"cloth[0].compliance.bend\": [1e-4, 1e-3, 1e-2],\n"
      "            \"sphere[0].radius\": {\"linspace\": [0.3, 0.5, 3]},\n"
      "            \"wind\": [[0, 0, 0], [2, 0, 0]]}}\n"
      "A value list is a JSON list, {\"linspace\": [a, b, n]}, {\"logspace\": [a, b, n]}\n"
      "or (with \"samples\") {\"uniform\": [a, b]}. The jobs are the product of the\n"
      "entries (the last varies fastest), or with \"samples\": K and \"seed\": S, K\n"
      "random draws (splitmix64). More keys: \"obj\": true (every frame) or \"last\",\n"
      "\"video\": true, \"timeout_s\": S, \"backend\": \"cl\"|\"cpu\", \"invalid\":\n"
      "\"stop\"|\"skip\". Paths are relative to the sweep file.\n\n"
      "  --out DIR          DIR/plan.json (every job's values, fixed by the first run),\n"
      "                     DIR/jobs/NNNNN/: scene.json, stats.json, status.json,\n"
      "                     log.txt, and obj/, final.obj or video.mp4 as asked\n"
      "  --jobs K           run K jobs at a time (1..256, default 1)\n"
      "  --shard I/N        run jobs I, I+N, I+2N, ... only (0 <= I < N)\n"
      "  --retry-failed     run failed jobs again (finished jobs are skipped)\n"
      "  --no-summary       no summary when every job has finished\n"
      "  --quiet            no line per job\n"
      "  --list             print every job's values and exit (nothing written)\n"
      "  --slurm            write DIR/batch.sbatch, a Slurm job array running one\n"
      "                     shard per array task, print the sbatch command; submit\n"
      "                     nothing. --tasks T array tasks (default: the jobs, at most\n"
      "                     1000), --max-parallel M at once (default T), --partition,\n"
      "                     --gpus-per-task, --time passed to sbatch\n"
      "  --summary DIR      DIR/summary.csv, summary.json and summary.png (gnuplot):\n"
      "                     --y METRIC against --x PARAM, one line per --by PARAM\n"
      "                     (defaults: max_strain against the first varied number)\n\n"
      "A job's status.json: done, or failed with a reason: invalid (the loader\n"
      "refused its scene), diverged, timeout or error (a crash too). A rerun\n"
      "skips every finished job. SIGINT/SIGTERM stop the jobs running (their\n"
      "folders are removed) and exit 130/143. Exit codes: 0 every job of the\n"
      "shard finished (done or failed), 2 bad input, 1 other failures.\n");
}

static int bad(const char *flag, const char *value, const char *what) {
  fprintf(stderr, "drape batch: %s \"%s\": %s\n%s", flag, value ? value : "", what, usage_text);
  return 2;
}

/* ------------------------------------------------------------------ */
/* Small helpers                                                       */
/* ------------------------------------------------------------------ */

/* A whole regular file into a NUL-terminated buffer (at most 64 MiB). */
static int read_text(const char *path, const char *what, char **out, drape_err *e) {
  *out = NULL;
  int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) return drape_fail(e, DRAPE_EINVAL, "%s '%s': %s", what, path, strerror(errno));
  struct stat st;
  if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || st.st_size > (64 << 20)) {
    close(fd);
    return drape_fail(e, DRAPE_EINVAL, "%s '%s': not a regular file of at most 64 MiB", what, path);
  }
  char *t = malloc((size_t)st.st_size + 1);
  if (!t) {
    close(fd);
    return drape_fail(e, DRAPE_ENOMEM, "%s '%s': out of memory", what, path);
  }
  size_t got = 0;
  while (got < (size_t)st.st_size) {
    ssize_t r = read(fd, t + got, (size_t)st.st_size - got);
    if (r < 0 && errno == EINTR) continue;
    if (r <= 0) break;
    got += (size_t)r;
  }
  close(fd);
  t[got] = 0;
  if (got != (size_t)st.st_size || strlen(t) != got) {
    free(t);
    return drape_fail(e, DRAPE_EINVAL, "%s '%s': read error or a NUL byte", what, path);
  }
  *out = t;
  return DRAPE_OK;
}

/* A new temporary file beside path (path.tmpPID), created exclusively and
 * never through a symbolic link, so that a name planted in the output
 * folder cannot redirect the write; dr_out_commit renames it into place
 * (a rename replaces a link at the final name, it does not follow it). */
static FILE *open_tmp(const char *path, char *tmp, size_t cap) {
  snprintf(tmp, cap, "%s.tmp%ld", path, (long)getpid());
  unlink(tmp); /* a leftover of this pid's earlier run, or a planted link */
  int fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
  if (fd < 0) return NULL;
  FILE *f = fdopen(fd, "w");
  if (!f) close(fd);
  return f;
}

/* Writes text to path through a temporary name in the same folder. */
static int write_text(const char *path, const char *text, const char *flag, drape_err *e) {
  char tmp[4300];
  FILE *f = open_tmp(path, tmp, sizeof tmp);
  if (!f) return drape_fail(e, DRAPE_EIO, "%s: cannot write %s: %s", flag, tmp, strerror(errno));
  fputs(text, f);
  int bad_io = ferror(f);
  if (fclose(f) != 0 || bad_io) {
    unlink(tmp);
    return drape_fail(e, DRAPE_EIO, "%s: writing %s failed", flag, tmp);
  }
  return dr_out_commit(tmp, path, flag, e);
}

/* The folder part of a path ("." when none), and a path made absolute. */
static void dir_of(const char *path, char *out, size_t cap) {
  const char *s = strrchr(path, '/');
  if (!s) snprintf(out, cap, ".");
  else if (s == path) snprintf(out, cap, "/");
  else snprintf(out, cap, "%.*s", (int)(s - path), path);
}

static void abs_path(const char *path, char *out, size_t cap) {
  char cwd[4096];
  if (path[0] == '/' || !getcwd(cwd, sizeof cwd)) {
    snprintf(out, cap, "%s", path);
    return;
  }
  /* a joined path that does not fit stays relative rather than cut short */
  const int n = snprintf(out, cap, "%s/%s", cwd, path);
  if (n < 0 || (size_t)n >= cap) snprintf(out, cap, "%s", path);
}

static int rm_entry(const char *p, const struct stat *sb, int flag, struct FTW *ftw) {
  (void)sb;
  (void)ftw;
  return flag == FTW_DP ? rmdir(p) : unlink(p);
}

/* rm -r of a folder drape made (a job's temporary folder). */
static void remove_tree(const char *dir) {
  struct stat st;
  if (lstat(dir, &st) != 0) return;
  nftw(dir, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
}

static int is_dir(const char *p) {
  struct stat st;
  return stat(p, &st) == 0 && S_ISDIR(st.st_mode);
}

static void sleep_ms(double ms) {
  struct timespec ts = {(time_t)(ms / 1000), (long)(fmod(ms, 1000.0) * 1e6)};
  nanosleep(&ts, NULL);
}

/* Number formatting of the loader: the shortest text that reads back. */
static void fmt_value(const cJSON *v, char *out, size_t cap) {
  if (cJSON_IsNumber(v)) {
    drape_fmt_double(out, cap, v->valuedouble);
    return;
  }
  char *t = cJSON_PrintUnformatted(v);
  snprintf(out, cap, "%s", t ? t : "?");
  free(t);
}

/* ------------------------------------------------------------------ */
/* The sweep file                                                      */
/* ------------------------------------------------------------------ */

typedef enum { GEN_LIST, GEN_LINSPACE, GEN_LOGSPACE, GEN_UNIFORM } gen_kind;

typedef struct vary_entry {
  const char *path;   /* the key path, as written (owned by the sweep's JSON) */
  gen_kind kind;
  const cJSON *list;  /* GEN_LIST: the values                                 */
  double a, b;        /* linspace, logspace, uniform                          */
  long count;         /* values (0: uniform, a continuum)                     */
} vary_entry;

typedef struct sweep {
  const char *path;           /* the sweep file as given                      */
  char label[4200];           /* "sweep file 'PATH'"                          */
  cJSON *root;
  char scene_path[4200];      /* the base scene, relative to the sweep        */
  char scene_dir[4200];       /* its folder, absolute (mesh files)            */
  cJSON *base;                /* the base scene's JSON                        */
  int frames;
  int n_vary;
  vary_entry vary[BATCH_MAX_KEYS];
  int random;                 /* "samples" given                              */
  long samples;
  uint64_t seed;
  long n_jobs;
  int obj;                    /* 0 none, 1 every frame, 2 the last one        */
  int video;
  double timeout_s;           /* 0: none                                      */
  int cpu;                    /* "backend": "cpu"                             */
  int skip_invalid;           /* "invalid": "skip"                            */
  uint64_t sweep_hash, scene_hash;
  /* the plan: values[j] is job j's array of values, one per vary entry */
  cJSON *plan;                /* owns the values (read or made)               */
  const cJSON **values;
  int digits;                 /* of NNNNN: 5, more for 100000+ jobs           */
} sweep;

static int sfail(drape_err *e, const sweep *s, const char *key, const char *fmt, ...)
    DRAPE_PRINTF(4, 5);
static int sfail(drape_err *e, const sweep *s, const char *key, const char *fmt, ...) {
  char msg[900];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  return drape_fail(e, DRAPE_EINVAL, "%s: %s: %s", s->label, key, msg);
}

/* JSON that cJSON accepts but a scene file would not: duplicate keys and
 * numbers beyond double (cJSON makes 1e999 infinite). */
static int json_check(const sweep *s, const cJSON *n, const char *path, drape_err *e) {
  if (cJSON_IsNumber(n) && !isfinite(n->valuedouble))
    return sfail(e, s, path, "a number too large for a double");
  for (const cJSON *c = n->child; c; c = c->next) {
    char p[600];
    if (cJSON_IsObject(n)) {
      for (const cJSON *d = n->child; d != c; d = d->next)
        if (!strcmp(d->string, c->string))
          return sfail(e, s, path[0] ? path : "sweep", "duplicate key \"%s\"", c->string);
      snprintf(p, sizeof p, "%s%s%s", path, path[0] ? "." : "", c->string);
    } else {
      int i = 0;
      for (const cJSON *d = n->child; d != c; d = d->next) i++;
      snprintf(p, sizeof p, "%s[%d]", path, i);
    }
    int rc = json_check(s, c, p, e);
    if (rc) return rc;
  }
  return DRAPE_OK;
}

/* cJSON's parse with the error's line and column. */
static cJSON *parse_json_text(const char *text, const char *label, drape_err *e) {
  const char *end = NULL;
  cJSON *j = cJSON_ParseWithOpts(text, &end, 1);
  if (j) return j;
  int line = 1, col = 1;
  for (const char *p = text; end && p < end && *p; p++) {
    if (*p == '\n') line++, col = 1;
    else col++;
  }
  drape_fail(e, DRAPE_EINVAL, "%s: JSON syntax error at line %d, column %d (strict JSON: no "
             "comments, no trailing commas)", label, line, col);
  return NULL;
}

/* A key path: NAME([INDEX])* separated by dots, as the loader's messages
 * spell them ("cloth[0].compliance.bend"). */
static int key_path_ok(const char *p) {
  int want_name = 1;
  for (;;) {
    if (want_name) {
      if (!(*p == '_' || (*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z'))) return 0;
      while (*p == '_' || (*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
             (*p >= '0' && *p <= '9'))
        p++;
      want_name = 0;
    }
    if (*p == 0) return 1;
    if (*p == '.') {
      p++;
      want_name = 1;
    } else if (*p == '[') {
      p++;
      if (!(*p >= '0' && *p <= '9')) return 0;
      while (*p >= '0' && *p <= '9') p++;
      if (*p++ != ']') return 0;
    } else {
      return 0;
    }
  }
}

/* Writes `value` (taken over) at key path `path` of the scene's JSON. An
 * object along the way that the scene does not have is made (the loader
 * then says whether it knows the key); an array index must exist. On
 * failure *why says what is missing and the value is freed. */
static int set_path(cJSON *root, const char *path, cJSON *value, char *why, size_t cap) {
  cJSON *cur = root;
  const char *p = path;
  char done[600] = "";
  while (*p) {
    char name[128];
    size_t n = strcspn(p, ".[");
    snprintf(name, sizeof name, "%.*s", (int)n, p);
    p += n;
    if (!cJSON_IsObject(cur)) {
      snprintf(why, cap, "%s is not an object in the scene, so it has no key \"%s\"",
               done[0] ? done : "the scene", name);
      cJSON_Delete(value);
      return -1;
    }
    size_t dl = strlen(done);
    snprintf(done + dl, sizeof done - dl, "%s%s", dl ? "." : "", name);
    cJSON *child = cJSON_GetObjectItemCaseSensitive(cur, name);
    if (*p == 0) { /* the leaf: replace or add */
      if (child) cJSON_ReplaceItemInObjectCaseSensitive(cur, name, value);
      else cJSON_AddItemToObject(cur, name, value);
      return 0;
    }
    if (!child) {
      if (*p == '[') {
        snprintf(why, cap, "the scene has no %s", done);
        cJSON_Delete(value);
        return -1;
      }
      child = cJSON_AddObjectToObject(cur, name);
    }
    cur = child;
    while (*p == '[') {
      long idx = strtol(p + 1, NULL, 10);
      p = strchr(p, ']') + 1;
      int size = cJSON_IsArray(cur) ? cJSON_GetArraySize(cur) : -1;
      if (size < 0 || idx >= size) {
        if (size <= 0)
          snprintf(why, cap, "the scene has no %s[%ld] (%s is %s)", done, idx, done,
                   size < 0 ? "not a list" : "an empty list");
        else
          snprintf(why, cap, "the scene has no %s[%ld] (it has %s[0] .. %s[%d])", done, idx, done,
                   done, size - 1);
        cJSON_Delete(value);
        return -1;
      }
      dl = strlen(done);
      snprintf(done + dl, sizeof done - dl, "[%ld]", idx);
      if (*p == 0) {
        cJSON_ReplaceItemInArray(cur, (int)idx, value);
        return 0;
      }
      cur = cJSON_GetArrayItem(cur, (int)idx);
    }
    if (*p == '.') p++;
  }
  cJSON_Delete(value);
  snprintf(why, cap, "empty key path");
  return -1;
}

static int num_list(const cJSON *a, int n_min, int n_max, double *v) {
  int n = cJSON_IsArray(a) ? cJSON_GetArraySize(a) : -1;
  if (n < n_min || n > n_max) return -1;
  int i = 0;
  for (const cJSON *c = a->child; c; c = c->next) {
    if (!cJSON_IsNumber(c)) return -1;
    v[i++] = c->valuedouble;
  }
  return n;
}

static int parse_vary(sweep *s, const char *key, const cJSON *val, vary_entry *ve, drape_err *e) {
  char where[700];
  snprintf(where, sizeof where, "vary \"%s\"", key);
  memset(ve, 0, sizeof *ve);
  ve->path = key;
  if (!key_path_ok(key))
    return sfail(e, s, where, "not a key path (expected names and indices as scene errors "
                 "spell them, e.g. cloth[0].compliance.bend or sphere[0].radius)");
  if (cJSON_IsArray(val)) {
    int n = cJSON_GetArraySize(val);
    if (n < 1) return sfail(e, s, where, "an empty list (give at least one value)");
    ve->kind = GEN_LIST;
    ve->list = val;
    ve->count = n;
    return DRAPE_OK;
  }
  const cJSON *g = cJSON_IsObject(val) ? val->child : NULL;
  if (!g || g->next)
    return sfail(e, s, where, "expected a list of values, {\"linspace\": [a, b, n]}, "
                 "{\"logspace\": [a, b, n]} or {\"uniform\": [a, b]}");
  double v[3];
  if (!strcmp(g->string, "uniform")) {
    if (num_list(g, 2, 2, v) != 2 || !(v[0] <= v[1]))
      return sfail(e, s, where, "uniform: expected [a, b], two numbers with a <= b");
    ve->kind = GEN_UNIFORM;
    ve->a = v[0];
    ve->b = v[1];
    return DRAPE_OK;
  }
  int lin = !strcmp(g->string, "linspace"), lg = !strcmp(g->string, "logspace");
  if (!lin && !lg)
    return sfail(e, s, where, "\"%s\": unknown generator (allowed: linspace, logspace, uniform)",
                 g->string);
  if (num_list(g, 3, 3, v) != 3 || v[2] != floor(v[2]) || v[2] < 1 || v[2] > (double)BATCH_MAX_JOBS)
    return sfail(e, s, where, "%s: expected [a, b, n], n a whole number 1..%ld", g->string,
                 BATCH_MAX_JOBS);
  if (lg && !(v[0] > 0 && v[1] > 0))
    return sfail(e, s, where, "logspace: a and b must be > 0 (the values run from a to b "
                 "evenly on a log scale)");
  ve->kind = lin ? GEN_LINSPACE : GEN_LOGSPACE;
  ve->a = v[0];
  ve->b = v[1];
  ve->count = (long)v[2];
  return DRAPE_OK;
}

/* Value i of a linspace/logspace entry: exactly a and b at the ends. */
static double gen_value(const vary_entry *ve, long i) {
  if (ve->count == 1 || i == 0) return ve->a;
  if (i == ve->count - 1) return ve->b;
  const double t = (double)i / (double)(ve->count - 1);
  if (ve->kind == GEN_LINSPACE) return ve->a + (ve->b - ve->a) * t;
  /* in decades: the exponents of 1e-5 .. 1e-1 are exact, so the values
   * between are the doubles nearest 1e-4, 1e-3, ... (exp(log) was not) */
  return pow(10.0, log10(ve->a) + (log10(ve->b) - log10(ve->a)) * t);
}

/* splitmix64 (Steele, Lea and Flood, "Fast splittable pseudorandom number
 * generators", OOPSLA 2014; the constants of Vigna's splitmix64.c): output
 * n (0-based) of the generator whose state starts at `seed` and grows by
 * the golden gamma each call. Any output is reached at once, so a shard
 * or a resumed run draws job j's values without drawing the ones before. */
static uint64_t splitmix64_at(uint64_t seed, uint64_t n) {
  uint64_t z = seed + (n + 1) * UINT64_C(0x9E3779B97F4A7C15);
  z = (z ^ (z >> 30)) * UINT64_C(0xBF58476D1CE4E5B9);
  z = (z ^ (z >> 27)) * UINT64_C(0x94D049BB133111EB);
  return z ^ (z >> 31);
}

/* Draw k of job j: the top 53 bits of output j * n_vary + k as a double in
 * [0, 1) (exact: every such double is a whole multiple of 2^-53). */
static double draw(const sweep *s, long j, int k) {
  return (double)(splitmix64_at(s->seed, (uint64_t)j * (uint64_t)s->n_vary + (uint64_t)k) >> 11) *
         0x1.0p-53;
}

/* Job j's value of entry k, as a new JSON value. */
static cJSON *job_value(const sweep *s, long j, int k) {
  const vary_entry *ve = &s->vary[k];
  long idx;
  if (s->random) {
    const double u = draw(s, j, k);
    if (ve->kind == GEN_UNIFORM) return cJSON_CreateNumber(ve->a + (ve->b - ve->a) * u);
    idx = (long)(u * (double)ve->count);
    if (idx >= ve->count) idx = ve->count - 1;
  } else {
    long stride = 1;
    for (int q = s->n_vary - 1; q > k; q--) stride *= s->vary[q].count;
    idx = (j / stride) % ve->count;
  }
  if (ve->kind == GEN_LIST) return cJSON_Duplicate(cJSON_GetArrayItem(ve->list, (int)idx), 1);
  return cJSON_CreateNumber(gen_value(ve, idx));
}

static int sweep_parse(sweep *s, const char *path, drape_err *e) {
  memset(s, 0, sizeof *s);
  s->path = path;
  snprintf(s->label, sizeof s->label, "sweep file '%s'", path);
  char *text;
  int rc = read_text(path, "sweep file", &text, e);
  if (rc) return rc;
  s->root = parse_json_text(text, s->label, e);
  free(text);
  if (!s->root) return DRAPE_EINVAL;
  if (!cJSON_IsObject(s->root)) return sfail(e, s, "sweep", "expected an object {...}");
  if ((rc = json_check(s, s->root, "", e))) return rc;
  static const char *known[] = {"description", "scene", "frames", "vary", "samples", "seed",
                                "obj", "video", "timeout_s", "backend", "invalid", NULL};
  for (const cJSON *c = s->root->child; c; c = c->next) {
    int ok = 0;
    for (int i = 0; known[i]; i++) ok |= !strcmp(c->string, known[i]);
    if (!ok)
      return sfail(e, s, c->string, "unknown key (allowed: description, scene, frames, vary, "
                   "samples, seed, obj, video, timeout_s, backend, invalid)");
  }
  const cJSON *sc = cJSON_GetObjectItemCaseSensitive(s->root, "scene");
  if (!cJSON_IsString(sc) || !sc->valuestring[0])
    return sfail(e, s, "scene", "missing or not a file name (the base scene, relative to the "
                 "sweep file)");
  char sweep_dir[4200];
  dir_of(path, sweep_dir, sizeof sweep_dir);
  const int len = sc->valuestring[0] == '/'
                      ? snprintf(s->scene_path, sizeof s->scene_path, "%s", sc->valuestring)
                      : snprintf(s->scene_path, sizeof s->scene_path, "%s/%s", sweep_dir,
                                 sc->valuestring);
  if (len >= (int)sizeof s->scene_path) return sfail(e, s, "scene", "path too long");
  /* The base scene must be a good scene by itself: the loader's message. */
  drape_scene base;
  if ((rc = drape_scene_load(s->scene_path, &base, e))) return rc;
  const int scene_frames = base.frames;
  drape_scene_free(&base);
  if ((rc = read_text(s->scene_path, "scene file", &text, e))) return rc;
  s->base = cJSON_Parse(text);
  free(text);
  if (!s->base) return sfail(e, s, "scene", "'%s' could not be read again", s->scene_path);
  char sd[4200];
  dir_of(s->scene_path, sd, sizeof sd);
  abs_path(sd, s->scene_dir, sizeof s->scene_dir);

  const cJSON *fr = cJSON_GetObjectItemCaseSensitive(s->root, "frames");
  if (fr) {
    if (!cJSON_IsNumber(fr) || fr->valuedouble != floor(fr->valuedouble) || fr->valuedouble < 1 ||
        fr->valuedouble > 10000000)
      return sfail(e, s, "frames", "expected a whole number of frames, 1..10000000");
    s->frames = (int)fr->valuedouble;
  } else if (scene_frames > 0) {
    s->frames = scene_frames;
  } else {
    return sfail(e, s, "frames", "missing, and the scene '%s' has no \"frames\" key either",
                 s->scene_path);
  }

  const cJSON *vary = cJSON_GetObjectItemCaseSensitive(s->root, "vary");
  if (!cJSON_IsObject(vary) || !vary->child)
    return sfail(e, s, "vary", "missing or empty: expected an object of key paths and their "
                 "values, e.g. {\"sphere[0].radius\": [0.3, 0.4]}");
  for (const cJSON *c = vary->child; c; c = c->next) {
    if (s->n_vary == BATCH_MAX_KEYS)
      return sfail(e, s, "vary", "more than %d key paths", BATCH_MAX_KEYS);
    if ((rc = parse_vary(s, c->string, c, &s->vary[s->n_vary], e))) return rc;
    s->n_vary++;
  }

  const cJSON *sa = cJSON_GetObjectItemCaseSensitive(s->root, "samples");
  const cJSON *se = cJSON_GetObjectItemCaseSensitive(s->root, "seed");
  if (sa) {
    if (!cJSON_IsNumber(sa) || sa->valuedouble != floor(sa->valuedouble) || sa->valuedouble < 1 ||
        sa->valuedouble > (double)BATCH_MAX_JOBS)
      return sfail(e, s, "samples", "expected a whole number of random draws, 1..%ld",
                   BATCH_MAX_JOBS);
    if (!se)
      return sfail(e, s, "seed", "missing: random draws need a seed (a whole number "
                   "0..9007199254740992) so that they can be drawn again");
    if (!cJSON_IsNumber(se) || se->valuedouble != floor(se->valuedouble) || se->valuedouble < 0 ||
        se->valuedouble > BATCH_MAX_SEED)
      return sfail(e, s, "seed", "expected a whole number 0..9007199254740992 (2^53)");
    s->random = 1;
    s->samples = (long)sa->valuedouble;
    s->seed = (uint64_t)se->valuedouble;
    s->n_jobs = s->samples;
  } else {
    if (se) return sfail(e, s, "seed", "only with \"samples\" (the number of random draws)");
    double n = 1;
    for (int k = 0; k < s->n_vary; k++) {
      if (s->vary[k].kind == GEN_UNIFORM) {
        char where[700];
        snprintf(where, sizeof where, "vary \"%s\"", s->vary[k].path);
        return sfail(e, s, where, "uniform: only with \"samples\" and \"seed\" (random draws); "
                     "use linspace for a grid");
      }
      n *= (double)s->vary[k].count;
    }
    if (n > (double)BATCH_MAX_JOBS)
      return sfail(e, s, "vary", "the product of the entries is %.0f jobs, more than the %ld "
                   "allowed", n, BATCH_MAX_JOBS);
    s->n_jobs = (long)n;
  }

  const cJSON *o = cJSON_GetObjectItemCaseSensitive(s->root, "obj");
  if (o) {
    if (cJSON_IsBool(o)) s->obj = cJSON_IsTrue(o);
    else if (cJSON_IsString(o) && !strcmp(o->valuestring, "last")) s->obj = 2;
    else return sfail(e, s, "obj", "expected true (every frame), \"last\" or false");
  }
  const cJSON *v = cJSON_GetObjectItemCaseSensitive(s->root, "video");
  if (v) {
    if (!cJSON_IsBool(v)) return sfail(e, s, "video", "expected true or false");
    s->video = cJSON_IsTrue(v);
  }
  const cJSON *t = cJSON_GetObjectItemCaseSensitive(s->root, "timeout_s");
  if (t) {
    if (!cJSON_IsNumber(t) || !(t->valuedouble > 0) || t->valuedouble > 1e7)
      return sfail(e, s, "timeout_s", "expected seconds per job, > 0 and at most 1e7");
    s->timeout_s = t->valuedouble;
  }
  const cJSON *b = cJSON_GetObjectItemCaseSensitive(s->root, "backend");
  if (b) {
    if (cJSON_IsString(b) && !strcmp(b->valuestring, "cpu")) s->cpu = 1;
    else if (!(cJSON_IsString(b) && !strcmp(b->valuestring, "cl")))
      return sfail(e, s, "backend", "expected \"cl\" (OpenCL kernels) or \"cpu\" (CPU reference)");
  }
  const cJSON *inv = cJSON_GetObjectItemCaseSensitive(s->root, "invalid");
  if (inv) {
    if (cJSON_IsString(inv) && !strcmp(inv->valuestring, "skip")) s->skip_invalid = 1;
    else if (!(cJSON_IsString(inv) && !strcmp(inv->valuestring, "stop")))
      return sfail(e, s, "invalid", "expected \"stop\" (a job the loader refuses stops the "
                   "batch before anything runs; default) or \"skip\" (it is marked failed)");
  }
  const cJSON *d = cJSON_GetObjectItemCaseSensitive(s->root, "description");
  if (d && !cJSON_IsString(d)) return sfail(e, s, "description", "expected a string");
  s->digits = 5;
  for (long m = 100000; m < s->n_jobs; m *= 10) s->digits++;
  if (dr_hash_file_fnv1a64(path, &s->sweep_hash) || dr_hash_file_fnv1a64(s->scene_path, &s->scene_hash))
    return drape_fail(e, DRAPE_EIO, "%s: cannot hash the sweep or scene file", s->label);
  return DRAPE_OK;
}

static void sweep_free(sweep *s) {
  cJSON_Delete(s->root);
  cJSON_Delete(s->base);
  cJSON_Delete(s->plan);
  free(s->values);
  memset(s, 0, sizeof *s);
}

/* ------------------------------------------------------------------ */
/* The plan: every job's values, fixed in DIR/plan.json                */
/* ------------------------------------------------------------------ */

static cJSON *plan_make(const sweep *s) {
  cJSON *p = cJSON_CreateObject();
  cJSON_AddStringToObject(p, "drape", drape_version());
  char buf[4300];
  abs_path(s->path, buf, sizeof buf);
  cJSON_AddStringToObject(p, "sweep", buf);
  snprintf(buf, sizeof buf, "%016" PRIx64, s->sweep_hash);
  cJSON_AddStringToObject(p, "sweep_fnv1a64", buf);
  abs_path(s->scene_path, buf, sizeof buf);
  cJSON_AddStringToObject(p, "scene", buf);
  snprintf(buf, sizeof buf, "%016" PRIx64, s->scene_hash);
  cJSON_AddStringToObject(p, "scene_fnv1a64", buf);
  cJSON_AddNumberToObject(p, "frames", s->frames);
  cJSON_AddStringToObject(p, "mode", s->random ? "samples" : "product");
  if (s->random) cJSON_AddNumberToObject(p, "seed", (double)s->seed);
  cJSON_AddNumberToObject(p, "digits", s->digits);
  cJSON *keys = cJSON_AddArrayToObject(p, "keys");
  for (int k = 0; k < s->n_vary; k++) cJSON_AddItemToArray(keys, cJSON_CreateString(s->vary[k].path));
  cJSON *jobs = cJSON_AddArrayToObject(p, "jobs");
  for (long j = 0; j < s->n_jobs; j++) {
    cJSON *row = cJSON_CreateArray();
    for (int k = 0; k < s->n_vary; k++) cJSON_AddItemToArray(row, job_value(s, j, k));
    cJSON_AddItemToArray(jobs, row);
  }
  return p;
}

/* Indexes the plan's job rows (cJSON lists are linked lists). */
static int plan_index(sweep *s, const char *where, drape_err *e) {
  const cJSON *jobs = cJSON_GetObjectItemCaseSensitive(s->plan, "jobs");
  free(s->values);
  s->values = calloc((size_t)s->n_jobs, sizeof *s->values);
  if (!s->values) return drape_fail(e, DRAPE_ENOMEM, "out of memory for %ld jobs", s->n_jobs);
  long j = 0;
  for (const cJSON *r = jobs ? jobs->child : NULL; r; r = r->next, j++) {
    if (j >= s->n_jobs || !cJSON_IsArray(r) || cJSON_GetArraySize(r) != s->n_vary) break;
    s->values[j] = r;
  }
  if (j != s->n_jobs)
    return drape_fail(e, DRAPE_EINVAL, "%s: holds %ld jobs of %d values, not %ld of %d: it "
                      "belongs to another sweep", where, j, s->n_vary, s->n_jobs, s->n_vary);
  return DRAPE_OK;
}

/* Reads DIR/plan.json when it exists (*found = 1); it must come from the
 * same sweep and scene files. */
static int plan_read(sweep *s, const char *out_dir, int *found, drape_err *e) {
  char path[4300], *text = NULL;
  snprintf(path, sizeof path, "%s/plan.json", out_dir);
  *found = 0;
  if (access(path, F_OK) != 0) return DRAPE_OK;
  drape_err re = {0};
  if (read_text(path, "plan", &text, &re))
    return drape_fail(e, DRAPE_EINVAL, "--out \"%s\": %s", out_dir, re.msg);
  cJSON *p = cJSON_Parse(text);
  free(text);
  const cJSON *sh = cJSON_GetObjectItemCaseSensitive(p, "sweep_fnv1a64");
  const cJSON *ch = cJSON_GetObjectItemCaseSensitive(p, "scene_fnv1a64");
  char want_s[20], want_c[20];
  snprintf(want_s, sizeof want_s, "%016" PRIx64, s->sweep_hash);
  snprintf(want_c, sizeof want_c, "%016" PRIx64, s->scene_hash);
  if (!cJSON_IsString(sh) || !cJSON_IsString(ch) || strcmp(sh->valuestring, want_s) ||
      strcmp(ch->valuestring, want_c)) {
    const cJSON *sw = cJSON_GetObjectItemCaseSensitive(p, "sweep");
    drape_fail(e, DRAPE_EINVAL, "--out \"%s\": its plan.json was made from %s %s; the %s "
               "has changed since (its jobs would not match their values): choose a new "
               "--out folder", out_dir, cJSON_IsString(sw) ? "the sweep" : "another sweep",
               cJSON_IsString(sw) ? sw->valuestring : "",
               !cJSON_IsString(sh) || strcmp(sh->valuestring, want_s) ? "sweep file"
                                                                       : "base scene file");
    cJSON_Delete(p);
    return DRAPE_EINVAL;
  }
  cJSON_Delete(s->plan);
  s->plan = p;
  *found = 1;
  char where[4400];
  snprintf(where, sizeof where, "--out \"%s\": plan.json", out_dir);
  return plan_index(s, where, e);
}

/* Writes the plan made here as DIR/plan.json: under a temporary name, then
 * linked into place, which fails with EEXIST when another shard was first;
 * its plan is then read and used. */
static int plan_commit(sweep *s, const char *out_dir, drape_err *e) {
  char path[4300], tmp[4400];
  snprintf(path, sizeof path, "%s/plan.json", out_dir);
  snprintf(tmp, sizeof tmp, "%s/.plan.json.tmp%ld", out_dir, (long)getpid());
  char *t = cJSON_Print(s->plan);
  FILE *f = fopen(tmp, "w");
  if (!f) {
    free(t);
    return drape_fail(e, DRAPE_EIO, "--out \"%s\": cannot write %s: %s", out_dir, tmp,
                      strerror(errno));
  }
  fputs(t, f);
  fputc('\n', f);
  free(t);
  int bad_io = ferror(f);
  if (fclose(f) != 0 || bad_io) {
    unlink(tmp);
    return drape_fail(e, DRAPE_EIO, "--out \"%s\": writing %s failed", out_dir, tmp);
  }
  int lrc = link(tmp, path), lerr = errno;
  unlink(tmp);
  if (lrc == 0) return DRAPE_OK;
  if (lerr != EEXIST)
    return drape_fail(e, DRAPE_EIO, "--out \"%s\": cannot create plan.json: %s", out_dir,
                      strerror(lerr));
  int found = 0;
  return plan_read(s, out_dir, &found, e);
}

/* ------------------------------------------------------------------ */
/* A job's scene                                                       */
/* ------------------------------------------------------------------ */

static void job_name(const sweep *s, long j, char *out, size_t cap) {
  snprintf(out, cap, "%0*ld", s->digits, j);
}

/* "k1 = v1, k2 = v2" */
static void job_params_text(const sweep *s, long j, char *out, size_t cap) {
  out[0] = 0;
  for (int k = 0; k < s->n_vary; k++) {
    char v[200];
    fmt_value(cJSON_GetArrayItem(s->values[j], k), v, sizeof v);
    size_t l = strlen(out);
    snprintf(out + l, cap - l, "%s%s = %s", k ? ", " : "", s->vary[k].path, v);
  }
}

/* The base scene with job j's values, "frames" and the files it names
 * made absolute (the job's scene lives in another folder). NULL on a key path
 * the scene does not have (e set, naming the vary entry). */
static char *job_scene_text(const sweep *s, long j, drape_err *e) {
  cJSON *sc = cJSON_Duplicate(s->base, 1);
  for (int k = 0; k < s->n_vary; k++) {
    char why[800];
    cJSON *v = cJSON_Duplicate(cJSON_GetArrayItem(s->values[j], k), 1);
    if (set_path(sc, s->vary[k].path, v, why, sizeof why)) {
      cJSON_Delete(sc);
      char where[700];
      snprintf(where, sizeof where, "vary \"%s\"", s->vary[k].path);
      sfail(e, s, where, "%s ('%s')", why, s->scene_path);
      return NULL;
    }
  }
  cJSON *fr = cJSON_CreateNumber(s->frames);
  if (cJSON_GetObjectItemCaseSensitive(sc, "frames")) cJSON_ReplaceItemInObjectCaseSensitive(sc, "frames", fr);
  else cJSON_AddItemToObject(sc, "frames", fr);
  /* every file a scene names, relative to the base scene's folder: a
   * cloth's or collider's mesh.file and a collider's sequence.files */
  static const char *const arrays[2] = {"cloth", "collider"};
  static const char *const holders[2][2] = {{"mesh", "file"}, {"sequence", "files"}};
  for (int a = 0; a < 2; a++) {
    const cJSON *objs = cJSON_GetObjectItemCaseSensitive(sc, arrays[a]);
    for (const cJSON *c = cJSON_IsArray(objs) ? objs->child : NULL; c; c = c->next)
      for (int h = 0; h < (a ? 2 : 1); h++) {
        cJSON *holder = cJSON_GetObjectItemCaseSensitive(c, holders[h][0]);
        cJSON *file = cJSON_GetObjectItemCaseSensitive(holder, holders[h][1]);
        if (cJSON_IsString(file) && file->valuestring[0] && file->valuestring[0] != '/') {
          char full[8500];
          snprintf(full, sizeof full, "%s/%s", s->scene_dir, file->valuestring);
          cJSON_ReplaceItemInObjectCaseSensitive(holder, holders[h][1], cJSON_CreateString(full));
        }
      }
  }
  char *t = cJSON_Print(sc);
  cJSON_Delete(sc);
  return t;
}

/* Jobs first, first + step, ... (a shard's own: every shard checks only
 * what it runs) through the loader before anything runs. A key path the
 * scene lacks stops here; a value the loader refuses stops here too
 * unless "invalid": "skip", which records the message in invalid[j]. */
static int check_jobs(const sweep *s, char **invalid, long first, long step, drape_err *e) {
  for (long j = first; j < s->n_jobs; j += step) {
    char *text = job_scene_text(s, j, e);
    if (!text) return DRAPE_EINVAL;
    char name[32], params[1500], label[4000];
    job_name(s, j, name, sizeof name);
    job_params_text(s, j, params, sizeof params);
    if (snprintf(label, sizeof label, "%s, job %s (%s)", s->label, name, params) >= (int)sizeof label)
      label[sizeof label - 1] = 0; /* a long label is cut, the loader's message is not */
    drape_scene sc;
    drape_err le = {0};
    int rc = drape_scene_parse_in(text, label, s->scene_dir, &sc, &le);
    free(text);
    drape_scene_free(&sc);
    if (rc && (!invalid || !s->skip_invalid)) {
      *e = le;
      if (rc == DRAPE_EINVAL && strlen(e->msg) + 60 < sizeof e->msg)
        strcat(e->msg, " (\"invalid\": \"skip\" runs the other jobs)");
      return rc;
    }
    if (rc) invalid[j] = strdup(le.msg);
  }
  return DRAPE_OK;
}

/* ------------------------------------------------------------------ */
/* One job, in the child process (`--job TMPDIR`)                      */
/* ------------------------------------------------------------------ */

typedef struct job_opts {
  const char *dir;
  long index;
  int frames;
  int obj;       /* 0 none, 1 every frame (obj/frame_NNNN.obj), 2 final.obj */
  int video;
  int cpu;
  long parent;
} job_opts;

typedef struct job_metrics {
  double max_strain, mean_strain, lowest_y, kinetic_energy, floor_clear, sphere_clear;
  int torn;
} job_metrics;

/* The last frame's figures, over the cloths and ropes (strings have no
 * strain): the largest max strain, the mean of the objects' mean strains,
 * the lowest point of any object (m, y up), the sim's kinetic energy. */
static int job_measure(drape_world *w, job_metrics *m, drape_err *e) {
  drape_world_stats st;
  int rc = drape_world_get_stats(w, &st, e);
  if (rc) return rc;
  m->max_strain = -INFINITY;
  m->mean_strain = 0;
  m->lowest_y = INFINITY;
  m->torn = 0;
  int n = 0;
  for (int i = 0; i < st.n_objects; i++) {
    drape_world_object o;
    drape_world_get_object(w, i, &o, NULL);
    if (o.kind != DRAPE_WORLD_STRING) {
      const drape_world_object_stats *os = &st.objects[i];
      if (os->max_strain > m->max_strain) m->max_strain = os->max_strain;
      m->mean_strain += os->mean_strain;
      m->torn += os->torn;
      n++;
    }
    float *xyz = malloc(sizeof(float) * 3 * (size_t)(o.n_points > 0 ? o.n_points : 1));
    if (!xyz) return drape_fail(e, DRAPE_ENOMEM, "out of memory");
    rc = drape_world_read_points(w, i, xyz, e);
    for (int p = 0; !rc && p < o.n_points; p++)
      if (xyz[3 * p + 1] < m->lowest_y) m->lowest_y = xyz[3 * p + 1];
    free(xyz);
    if (rc) return rc;
  }
  m->mean_strain = n ? m->mean_strain / n : NAN;
  if (!n) m->max_strain = NAN;
  m->kinetic_energy = st.kinetic_energy;
  m->floor_clear = st.min_floor_clearance;
  m->sphere_clear = st.min_sphere_clearance;
  return DRAPE_OK;
}

static void json_kv(FILE *f, const char *key, double v, int last) {
  fprintf(f, "\"%s\": ", key);
  dr_json_num(f, v);
  if (!last) fputs(", ", f);
}

/* Test hook (docs/testing.md): DRAPE_BATCH_FAULT="crash@3,hang@5" makes
 * job 3 abort and job 5 sleep forever, to check that a crash and a timeout
 * fail that job alone. */
static const char *fault_for(long index) {
  const char *f = getenv("DRAPE_BATCH_FAULT");
  static const char *kinds[] = {"crash", "hang"};
  for (const char *p = f; p && *p;) {
    for (int k = 0; k < 2; k++) {
      size_t n = strlen(kinds[k]);
      if (!strncmp(p, kinds[k], n) && p[n] == '@' && strtol(p + n + 1, NULL, 10) == index)
        return kinds[k];
    }
    p = strchr(p, ',');
    if (p) p++;
  }
  return NULL;
}

static int run_job(dr_app *app, const job_opts *o) {
  /* Die with the batch: a killed batch leaves no job behind to write into
   * a folder the next run removes. */
  prctl(PR_SET_PDEATHSIG, SIGKILL);
  if (o->parent > 0 && (long)getppid() != o->parent) return 1;
  char path[4300];
  snprintf(path, sizeof path, "%s/log.txt", o->dir);
  if (!freopen(path, "a", stderr)) return 1;
  dr_interrupt_install();
  const char *fault = fault_for(o->index);
  if (fault && !strcmp(fault, "crash")) abort();

  drape_err e = {0};
  drape_scene scene;
  drape_render_def view = drape_render_def_default();
  drape_world *w = NULL;
  drape_frames *render = NULL;
  FILE *stats = NULL;
  int done = 0, sig = 0;
  double sim_s = 0;
  job_metrics m = {NAN, NAN, NAN, NAN, NAN, NAN, 0};
  char scene_path[4300];
  snprintf(scene_path, sizeof scene_path, "%s/scene.json", o->dir);
  int rc = drape_scene_load(scene_path, &scene, &e);
  const int loaded = rc == 0;
  drape_world_def wd = drape_world_def_default();
  wd.backend = o->cpu ? DRAPE_BACKEND_CPU : DRAPE_BACKEND_CL;
  wd.kernel_form = app->kernel_form;
  int want = -1;
  if (!rc && !o->cpu) rc = drape_cl_requested_device(app->device, &want, &e);
  wd.use_device = want >= 0;
  wd.device_index = want;
  if (!rc && o->video) {
    rc = drape_render_def_load(scene_path, &view, &e);
    char video[4300];
    snprintf(video, sizeof video, "%s/video.mp4", o->dir);
    drape_frames_def fd = drape_frames_def_default();
    fd.video = video;
    fd.total_frames = o->frames;
    fd.frame_digits = dr_frame_digits(o->frames);
    fd.label = "drape batch";
    fd.progress = 0;
    if (!rc) rc = drape_frames_open(&fd, &scene, &view, &wd, &render, &e);
  }
  if (!rc) rc = drape_world_create(&scene, &wd, &w, &e);
  if (!rc) rc = drape_world_check_frames(w, o->frames, &e);
  if (!rc && render) rc = drape_frames_attach(render, w, &e);
  if (!rc && o->obj == 1) {
    snprintf(path, sizeof path, "%s/obj", o->dir);
    rc = dr_make_dirs(path, "obj", &e);
  }
  if (!rc) {
    snprintf(path, sizeof path, "%s/stats.json", o->dir);
    if (!(stats = fopen(path, "w"))) rc = drape_fail(&e, DRAPE_EIO, "cannot write %s", path);
  }
  if (!rc) {
    fputs("{\n  \"scene\": \"scene.json\",\n  \"device\": ", stats);
    dr_json_str(stats, drape_world_device_name(w));
    fputs(",\n  \"frames\": [", stats);
  }
  const int digits = dr_frame_digits(o->frames);
  for (int fr = 1; !rc && fr <= o->frames; fr++) {
    if ((sig = dr_interrupted())) break;
    if (fault && !strcmp(fault, "hang"))
      for (;;) pause();
    const double t0 = drape_now();
    rc = drape_world_step(w, &e);
    const double dt = drape_now() - t0;
    sim_s += dt;
    if (!rc) rc = job_measure(w, &m, &e);
    if (rc) break;
    fprintf(stats, "%s\n    {\"frame\": %d, \"time\": %.9g, ", fr > 1 ? "," : "", fr,
            drape_world_time(w));
    json_kv(stats, "kinetic_energy", m.kinetic_energy, 0);
    json_kv(stats, "max_strain", m.max_strain, 0);
    json_kv(stats, "mean_strain", m.mean_strain, 0);
    json_kv(stats, "lowest_y", m.lowest_y, 0);
    json_kv(stats, "min_floor_clearance", m.floor_clear, 0);
    json_kv(stats, "min_sphere_clearance", m.sphere_clear, 0);
    json_kv(stats, "ms", 1e3 * dt, 1);
    fputc('}', stats);
    if (o->obj == 1 || (o->obj == 2 && fr == o->frames)) {
      if (o->obj == 1) snprintf(path, sizeof path, "%s/obj/frame_%0*d.obj", o->dir, digits, fr);
      else snprintf(path, sizeof path, "%s/final.obj", o->dir);
      rc = drape_world_write_obj(w, path, &e);
    }
    if (!rc && render) rc = drape_frames_add(render, &e);
    if (!rc) done = fr;
  }
  if (stats) {
    fputs("\n  ]\n}\n", stats);
    if (fclose(stats) != 0 && !rc) rc = drape_fail(&e, DRAPE_EIO, "writing stats.json failed");
  }
  if (render) {
    if (!rc && !sig) {
      int frc = drape_frames_finish(render, &e);
      if (frc) rc = frc;
    } else {
      drape_frames_abort(render);
    }
  }
  const char *status = !rc && !sig ? "done" : "failed";
  const char *reason = sig ? "error" : !rc ? NULL
                       : rc == DRAPE_EUNSTABLE ? "diverged"
                       : rc == DRAPE_EINVAL ? "invalid" : "error";
  if (sig) snprintf(e.msg, sizeof e.msg, "interrupted by signal %d after frame %d", sig, done);
  if (rc || sig) fprintf(stderr, "drape batch: job %ld: %s\n", o->index, e.msg);
  snprintf(path, sizeof path, "%s/result.json", o->dir);
  FILE *f = fopen(path, "w");
  if (f) {
    fprintf(f, "{\"status\": \"%s\", \"reason\": ", status);
    if (reason) dr_json_str(f, reason);
    else fputs("null", f);
    fputs(", \"error\": ", f);
    if (rc || sig) dr_json_str(f, e.msg);
    else fputs("null", f);
    fprintf(f, ", \"frames_done\": %d, ", done);
    json_kv(f, "ms_per_frame", done ? 1e3 * sim_s / done : NAN, 0);
    json_kv(f, "sim_s", sim_s, 0);
    fputs("\"device\": ", f);
    dr_json_str(f, w ? drape_world_device_name(w) : "");
    fputs(", \"kernel_form\": ", f);
    dr_json_str(f, w ? drape_sim_kernel_form(drape_world_sim(w)) : "");
    fputs(", \"metrics\": {", f);
    json_kv(f, "max_strain", m.max_strain, 0);
    json_kv(f, "mean_strain", m.mean_strain, 0);
    json_kv(f, "lowest_y", m.lowest_y, 0);
    json_kv(f, "kinetic_energy", m.kinetic_energy, 0);
    json_kv(f, "min_floor_clearance", m.floor_clear, 0);
    json_kv(f, "min_sphere_clearance", m.sphere_clear, 0);
    fprintf(f, "\"torn\": %d}}\n", m.torn);
    fclose(f);
  }
  drape_world_destroy(w);
  drape_frames_destroy(render);
  if (loaded) drape_scene_free(&scene);
  drape_render_def_free(&view);
  return rc || sig ? 1 : 0;
}

/* ------------------------------------------------------------------ */
/* The batch: jobs in child processes, K at a time                     */
/* ------------------------------------------------------------------ */

typedef struct batch_opts {
  const char *sweep_path;
  const char *out_dir;
  int jobs;               /* at a time                                     */
  long shard_i, shard_n;
  int retry_failed, no_summary, quiet, list;
  /* --slurm */
  int slurm;
  long tasks, max_parallel, gpus_per_task;
  const char *partition, *time_limit;
  /* --summary */
  const char *summary_dir;
  const char *x, *y, *by;
  int no_plot;
  /* --job (internal) */
  job_opts job;
  const char *internal;   /* a flag of --job seen (refused without it) */
} batch_opts;

typedef struct slot {
  pid_t pid;              /* 0: free                                       */
  long job;
  double t0;
  int timed_out;
} slot;

typedef struct runner {
  const sweep *s;
  const batch_opts *o;
  dr_app *app;
  char exe[4200];
  char jobs_dir[4300];
  char **invalid;
  long done, failed, skipped;
} runner;

static void job_dirs(const runner *r, long j, char *final, char *tmp, size_t cap) {
  char name[32];
  job_name(r->s, j, name, sizeof name);
  snprintf(final, cap, "%s/%s", r->jobs_dir, name);
  snprintf(tmp, cap, "%s/%s.tmp", r->jobs_dir, name);
}

/* A finished job's status ("done"/"failed") and reason, from its
 * status.json; 0 when the job has not finished. */
static int job_finished(const char *final, char *status, char *reason, size_t cap) {
  char path[4400], *text = NULL;
  snprintf(path, sizeof path, "%s/status.json", final);
  if (access(path, F_OK) != 0 || read_text(path, "status", &text, NULL)) return 0;
  cJSON *j = cJSON_Parse(text);
  free(text);
  const cJSON *st = cJSON_GetObjectItemCaseSensitive(j, "status");
  const cJSON *re = cJSON_GetObjectItemCaseSensitive(j, "reason");
  int ok = cJSON_IsString(st);
  if (ok) snprintf(status, cap, "%s", st->valuestring);
  if (ok) snprintf(reason, cap, "%s", cJSON_IsString(re) ? re->valuestring : "");
  cJSON_Delete(j);
  return ok;
}

/* Writes status.json into the job's temporary folder and renames the folder
 * into place (over an earlier failed attempt with --retry-failed). */
static int job_commit(runner *r, long j, cJSON *status, drape_err *e) {
  char final[4400], tmp[4400], path[4500];
  job_dirs(r, j, final, tmp, sizeof final);
  snprintf(path, sizeof path, "%s/status.json", tmp);
  char *text = cJSON_Print(status);
  FILE *f = fopen(path, "w");
  int ok = f && fputs(text, f) >= 0 && fputc('\n', f) != EOF;
  if (f && fclose(f) != 0) ok = 0;
  free(text);
  if (!ok) return drape_fail(e, DRAPE_EIO, "cannot write %s: %s", path, strerror(errno));
  dr_signals_block();
  char old[4500] = "";
  if (is_dir(final)) {
    snprintf(old, sizeof old, "%s.old", final);
    remove_tree(old);
    if (rename(final, old) != 0) old[0] = 0;
  }
  int rc = rename(tmp, final);
  int err = errno;
  if (old[0]) remove_tree(old);
  dr_signals_unblock();
  if (rc) return drape_fail(e, DRAPE_EIO, "cannot rename %s to %s: %s", tmp, final, strerror(err));
  return DRAPE_OK;
}

/* status.json: job, status, reason, error, params, frames_requested, then
 * what the job's process reported (frames_done, ms_per_frame, sim_s,
 * device, kernel_form, metrics), then wall_s, host, finished. `res` is the
 * process's result.json (NULL: status, reason and error as given). */
static cJSON *status_new(const runner *r, long j, const cJSON *res, const char *status,
                         const char *reason, const char *error) {
  cJSON *st = cJSON_CreateObject();
  cJSON_AddNumberToObject(st, "job", (double)j);
  static const char *head[] = {"status", "reason", "error"};
  const char *given[] = {status, reason, error};
  for (int h = 0; h < 3; h++) {
    const cJSON *v = res ? cJSON_GetObjectItemCaseSensitive(res, head[h]) : NULL;
    if (v) cJSON_AddItemToObject(st, head[h], cJSON_Duplicate(v, 1));
    else if (given[h]) cJSON_AddStringToObject(st, head[h], given[h]);
    else cJSON_AddNullToObject(st, head[h]);
  }
  cJSON *params = cJSON_CreateObject();
  for (int k = 0; k < r->s->n_vary; k++)
    cJSON_AddItemToObject(params, r->s->vary[k].path,
                          cJSON_Duplicate(cJSON_GetArrayItem(r->s->values[j], k), 1));
  cJSON_AddItemToObject(st, "params", params);
  cJSON_AddNumberToObject(st, "frames_requested", r->s->frames);
  for (const cJSON *c = res ? res->child : NULL; c; c = c->next) {
    int skip = 0;
    for (int h = 0; h < 3; h++) skip |= !strcmp(c->string, head[h]);
    if (!skip) cJSON_AddItemToObject(st, c->string, cJSON_Duplicate(c, 1));
  }
  if (!res) cJSON_AddNumberToObject(st, "frames_done", 0);
  return st;
}

static void status_finish(cJSON *st, double wall_s) {
  cJSON_AddNumberToObject(st, "wall_s", wall_s);
  char host[256] = "";
  gethostname(host, sizeof host - 1);
  cJSON_AddStringToObject(st, "host", host);
  char now[32];
  dr_utc_now(now, sizeof now);
  cJSON_AddStringToObject(st, "finished", now);
}

static void report_job(runner *r, long j, const char *status, const char *reason,
                       const char *error, double ms_frame, double wall) {
  if (!strcmp(status, "done")) r->done++;
  else r->failed++;
  if (r->o->quiet) return;
  char name[32];
  job_name(r->s, j, name, sizeof name);
  if (!strcmp(status, "done"))
    printf("drape batch: job %s done: %.3g ms/frame, %.2f s\n", name, ms_frame, wall);
  else
    printf("drape batch: job %s failed (%s): %s\n", name, reason, error ? error : "");
  fflush(stdout);
}

/* A job the loader refused ("invalid": "skip"): its folder with the scene
 * and a status, no process. */
static int job_invalid(runner *r, long j, const char *scene_text, drape_err *e) {
  char final[4400], tmp[4400], path[4500];
  job_dirs(r, j, final, tmp, sizeof final);
  remove_tree(tmp);
  if (mkdir(tmp, 0777) != 0) return drape_fail(e, DRAPE_EIO, "cannot create %s: %s", tmp, strerror(errno));
  snprintf(path, sizeof path, "%s/scene.json", tmp);
  int rc = write_text(path, scene_text, "--out", e);
  if (rc) return rc;
  cJSON *st = status_new(r, j, NULL, "failed", "invalid", r->invalid[j]);
  status_finish(st, 0);
  rc = job_commit(r, j, st, e);
  cJSON_Delete(st);
  if (!rc) report_job(r, j, "failed", "invalid", r->invalid[j], NAN, 0);
  return rc;
}

static int job_start(runner *r, long j, slot *sl, drape_err *e) {
  char final[4400], tmp[4400], path[4500];
  job_dirs(r, j, final, tmp, sizeof final);
  remove_tree(tmp); /* a killed earlier run's */
  char *text = job_scene_text(r->s, j, e);
  if (!text) return DRAPE_EINVAL;
  if (r->invalid[j]) {
    int rc = job_invalid(r, j, text, e);
    free(text);
    sl->pid = 0;
    return rc;
  }
  if (mkdir(tmp, 0777) != 0) {
    free(text);
    return drape_fail(e, DRAPE_EIO, "cannot create %s: %s", tmp, strerror(errno));
  }
  snprintf(path, sizeof path, "%s/scene.json", tmp);
  int rc = write_text(path, text, "--out", e);
  free(text);
  if (rc) return rc;
  char dev[32], index[32], frames[32], parent[32];
  snprintf(dev, sizeof dev, "%d", r->app->device);
  snprintf(index, sizeof index, "%ld", j);
  snprintf(frames, sizeof frames, "%d", r->s->frames);
  snprintf(parent, sizeof parent, "%ld", (long)getpid());
  static const char *forms[] = {"auto", "gpu", "cpu"};
  const char *argv[24];
  int n = 0;
  argv[n++] = r->exe;
  if (r->app->device >= 0) {
    argv[n++] = "--device";
    argv[n++] = dev;
  }
  if (r->app->kernel_form > 0 && r->app->kernel_form < 3) {
    argv[n++] = "--kernel-form";
    argv[n++] = forms[r->app->kernel_form];
  }
  argv[n++] = "batch";
  argv[n++] = "--job";
  argv[n++] = tmp;
  argv[n++] = "--index";
  argv[n++] = index;
  argv[n++] = "--frames";
  argv[n++] = frames;
  argv[n++] = "--obj";
  argv[n++] = r->s->obj == 1 ? "all" : r->s->obj == 2 ? "last" : "none";
  argv[n++] = "--backend";
  argv[n++] = r->s->cpu ? "cpu" : "cl";
  argv[n++] = "--parent";
  argv[n++] = parent;
  if (r->s->video) argv[n++] = "--video";
  argv[n] = NULL;
  dr_spawn_opts so = dr_spawn_opts_default();
  so.own_group = 1;   /* the job and its ffmpeg are killed as one group */
  so.stdout_null = 1; /* it writes log.txt; the batch prints the lines   */
  memset(sl, 0, sizeof *sl);
  sl->job = j;
  sl->t0 = drape_now();
  return dr_spawn(argv, &so, &sl->pid, e);
}

/* The job's process has ended (wait status st): its status.json from its
 * result.json, or the crash or timeout; then the folder goes into place. */
static int job_end(runner *r, slot *sl, int st, drape_err *e) {
  const long j = sl->job;
  const double wall = drape_now() - sl->t0;
  char final[4400], tmp[4400], path[4500];
  job_dirs(r, j, final, tmp, sizeof final);
  snprintf(path, sizeof path, "%s/result.json", tmp);
  char *text = NULL;
  cJSON *res = NULL;
  if (!sl->timed_out && access(path, F_OK) == 0 && !read_text(path, "result", &text, NULL))
    res = cJSON_Parse(text);
  free(text);
  unlink(path);
  cJSON *status;
  char why[300];
  const cJSON *res_st = cJSON_GetObjectItemCaseSensitive(res, "status");
  if (cJSON_IsString(res_st) && !strcmp(res_st->valuestring, "done") &&
      !(WIFEXITED(st) && WEXITSTATUS(st) == 0)) {
    /* finished, then failed on the way out (a crash at exit, a leak that
     * a sanitizer build reports): not a job to trust */
    snprintf(why, sizeof why, "the job finished but its process then %s %d; see log.txt",
             WIFEXITED(st) ? "exited with status" : "was killed by signal",
             WIFEXITED(st) ? WEXITSTATUS(st) : WTERMSIG(st));
    status = status_new(r, j, res, NULL, NULL, NULL);
    cJSON_ReplaceItemInObjectCaseSensitive(status, "status", cJSON_CreateString("failed"));
    cJSON_ReplaceItemInObjectCaseSensitive(status, "reason", cJSON_CreateString("error"));
    cJSON_ReplaceItemInObjectCaseSensitive(status, "error", cJSON_CreateString(why));
  } else if (cJSON_IsString(res_st)) {
    status = status_new(r, j, res, NULL, NULL, NULL);
  } else {
    if (sl->timed_out)
      snprintf(why, sizeof why, "ran past timeout_s = %g s: killed", r->s->timeout_s);
    else if (WIFSIGNALED(st))
      snprintf(why, sizeof why, "the job's process was killed by signal %d (%s); see log.txt",
               WTERMSIG(st), strsignal(WTERMSIG(st)));
    else
      snprintf(why, sizeof why, "the job's process exited with status %d and no result; see "
               "log.txt", WIFEXITED(st) ? WEXITSTATUS(st) : -1);
    status = status_new(r, j, NULL, "failed", sl->timed_out ? "timeout" : "error", why);
  }
  cJSON_Delete(res);
  status_finish(status, wall);
  const cJSON *s_st = cJSON_GetObjectItemCaseSensitive(status, "status");
  const cJSON *s_re = cJSON_GetObjectItemCaseSensitive(status, "reason");
  const cJSON *s_er = cJSON_GetObjectItemCaseSensitive(status, "error");
  const cJSON *s_ms = cJSON_GetObjectItemCaseSensitive(status, "ms_per_frame");
  char stname[16], rname[16], ename[1100];
  snprintf(stname, sizeof stname, "%s", s_st->valuestring);
  snprintf(rname, sizeof rname, "%s", cJSON_IsString(s_re) ? s_re->valuestring : "");
  snprintf(ename, sizeof ename, "%s", cJSON_IsString(s_er) ? s_er->valuestring : "");
  const double ms = cJSON_IsNumber(s_ms) ? s_ms->valuedouble : NAN;
  int rc = job_commit(r, j, status, e);
  cJSON_Delete(status);
  sl->pid = 0;
  if (!rc) report_job(r, j, stname, rname, ename, ms, wall);
  return rc;
}

/* Stops every running job (SIGKILL to its group) and removes its folder. */
static void kill_all(runner *r, slot *slots, int n) {
  for (int i = 0; i < n; i++) {
    if (!slots[i].pid) continue;
    kill(-slots[i].pid, SIGKILL);
    dr_spawn_wait(slots[i].pid);
    char final[4400], tmp[4400];
    job_dirs(r, slots[i].job, final, tmp, sizeof final);
    remove_tree(tmp);
    slots[i].pid = 0;
  }
}

static int summary_write(const char *dir, const batch_opts *o, int quiet, drape_err *e);

/* The jobs of this shard that have not finished, K at a time. */
static int batch_run(dr_app *app, const sweep *s, const batch_opts *o, char **invalid) {
  runner r;
  memset(&r, 0, sizeof r);
  r.s = s;
  r.o = o;
  r.app = app;
  r.invalid = invalid;
  ssize_t n = readlink("/proc/self/exe", r.exe, sizeof r.exe - 1);
  if (n <= 0) snprintf(r.exe, sizeof r.exe, "%s", app->argv0);
  else r.exe[n] = 0;
  snprintf(r.jobs_dir, sizeof r.jobs_dir, "%s/jobs", o->out_dir);
  drape_err e = {0};
  if (dr_make_dirs(r.jobs_dir, "--out", &e)) return drape_app_report(&e);
  long *todo = malloc(sizeof(long) * (size_t)(s->n_jobs / o->shard_n + 1));
  long n_todo = 0, mine = 0;
  for (long j = o->shard_i; j < s->n_jobs; j += o->shard_n) {
    char final[4400], tmp[4400], st[32], re[32];
    job_dirs(&r, j, final, tmp, sizeof final);
    mine++;
    if (job_finished(final, st, re, sizeof st) && (strcmp(st, "failed") || !o->retry_failed)) {
      r.skipped++;
      continue;
    }
    todo[n_todo++] = j;
  }
  if (!o->quiet || n_todo == 0) {
    printf("drape batch: %ld jobs", s->n_jobs);
    if (o->shard_n > 1) printf(", shard %ld/%ld: %ld of them", o->shard_i, o->shard_n, mine);
    printf("; %ld finished before, %ld to run, %d at a time, in %s\n", r.skipped, n_todo, o->jobs,
           o->out_dir);
    fflush(stdout);
  }
  slot slots[BATCH_MAX_PARALLEL];
  memset(slots, 0, sizeof slots);
  long next = 0;
  int running = 0, rc = DRAPE_OK, sig = 0;
  const double t_batch = drape_now();
  dr_interrupt_install();
  while (!rc && (next < n_todo || running)) {
    if ((sig = dr_interrupted())) break;
    for (int i = 0; i < o->jobs && next < n_todo && !rc; i++) {
      if (slots[i].pid) continue;
      rc = job_start(&r, todo[next++], &slots[i], &e);
      if (!rc && slots[i].pid) running++;
    }
    int reaped = 0;
    for (int i = 0; i < o->jobs && !rc; i++) {
      if (!slots[i].pid) continue;
      int st = 0;
      pid_t w = waitpid(slots[i].pid, &st, WNOHANG);
      if (w == slots[i].pid) {
        running--;
        reaped = 1;
        rc = job_end(&r, &slots[i], st, &e);
      } else if (s->timeout_s > 0 && !slots[i].timed_out &&
                 drape_now() - slots[i].t0 > s->timeout_s) {
        slots[i].timed_out = 1;
        kill(-slots[i].pid, SIGKILL);
      }
    }
    if (!reaped && running) sleep_ms(2);
  }
  kill_all(&r, slots, o->jobs);
  free(todo);
  if (sig) {
    printf("drape batch: interrupted by %s: the running jobs were stopped and their folders "
           "removed; %ld jobs finished in this run (rerun to resume)\n",
           sig == SIGINT ? "SIGINT" : "SIGTERM", r.done + r.failed);
    return dr_interrupt_exit_code(sig);
  }
  if (rc) return drape_app_report(&e);
  printf("drape batch: %ld done, %ld failed, %ld skipped (finished before) in %.1f s\n", r.done,
         r.failed, r.skipped, drape_now() - t_batch);
  /* The summary once every job of the sweep has finished: the shard that
   * ends last sees them all (its own renames come before its count). */
  long finished = 0;
  for (long j = 0; j < s->n_jobs; j++) {
    char final[4400], tmp[4400], st[32], re[32];
    job_dirs(&r, j, final, tmp, sizeof final);
    finished += job_finished(final, st, re, sizeof st);
  }
  if (finished == s->n_jobs && !o->no_summary) {
    drape_err se = {0};
    batch_opts so = *o;
    so.x = so.y = so.by = NULL;
    if (summary_write(o->out_dir, &so, 0, &se)) fprintf(stderr, "drape batch: summary: %s\n", se.msg);
  } else if (finished < s->n_jobs) {
    printf("drape batch: %ld of %ld jobs finished; the summary comes when all have (or: drape "
           "batch --summary %s)\n", finished, s->n_jobs, o->out_dir);
  }
  return 0;
}

/* ------------------------------------------------------------------ */
/* Summary: CSV, JSON, gnuplot figure                                  */
/* ------------------------------------------------------------------ */

static const char *metric_names[] = {"max_strain", "mean_strain", "lowest_y", "kinetic_energy",
                                     "min_floor_clearance", "min_sphere_clearance", "torn"};
#define N_METRICS 7

/* A parameter column: key k, component comp (-1: the value itself). */
typedef struct pcol {
  char name[200];
  int key, comp;
  int numeric;
} pcol;

typedef struct srow {
  char status[16], reason[16];
  cJSON *st;          /* the status.json, or NULL when missing */
} srow;

static double row_metric(const srow *r, const char *name) {
  if (!r->st) return NAN;
  const cJSON *v = NULL;
  if (!strcmp(name, "ms_per_frame") || !strcmp(name, "sim_s") || !strcmp(name, "wall_s") ||
      !strcmp(name, "frames_done"))
    v = cJSON_GetObjectItemCaseSensitive(r->st, name);
  else
    v = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(r->st, "metrics"), name);
  return cJSON_IsNumber(v) ? v->valuedouble : NAN;
}

static double param_num(const cJSON *vals, const pcol *c) {
  const cJSON *v = cJSON_GetArrayItem(vals, c->key);
  if (c->comp >= 0) v = cJSON_GetArrayItem(v, c->comp);
  return cJSON_IsNumber(v) ? v->valuedouble : NAN;
}

static void csv_num(FILE *f, double v) {
  if (isfinite(v)) fprintf(f, "%.9g", v);
}

static int cmp_xy(const void *a, const void *b) {
  const double *p = a, *q = b;
  return (p[0] > q[0]) - (p[0] < q[0]);
}

/* Lines join a --by group's points along x on a grid (product); random
 * draws are points only (a line through them would zigzag). */
static int summary_plot(const char *dir, const pcol *cols, int n_cols, const cJSON *const *vals,
                        const srow *rows, long n, int random, const batch_opts *o, int quiet,
                        drape_err *e) {
  /* x: --x, else the first numeric column that takes two values or more */
  const pcol *xc = NULL, *bc = NULL;
  for (int c = 0; c < n_cols; c++) {
    if (o->x ? strcmp(cols[c].name, o->x) != 0 : !cols[c].numeric) continue;
    if (!o->x) {
      int varies = 0;
      for (long j = 1; j < n && !varies; j++) varies = param_num(vals[j], &cols[c]) != param_num(vals[0], &cols[c]);
      if (!varies) continue;
    }
    xc = &cols[c];
    break;
  }
  for (int c = 0; o->by && c < n_cols; c++)
    if (!strcmp(cols[c].name, o->by)) bc = &cols[c];
  const char *y = o->y ? o->y : "max_strain";
  if (!xc) {
    if (!quiet) printf("drape batch: no parameter takes two numeric values: no figure\n");
    return DRAPE_OK;
  }
  char gp[4096];
  if (!drape_find_on_path("gnuplot", gp, sizeof gp)) {
    if (!quiet) printf("drape batch: gnuplot not found (apt-get install gnuplot-nox): no figure\n");
    return DRAPE_OK;
  }
  /* summary_plot.dat: x y per done job, one block per value of --by */
  double *pts = malloc(sizeof(double) * 3 * (size_t)(n ? n : 1));
  double *groups = malloc(sizeof(double) * (size_t)(n ? n : 1));
  long np = 0;
  int ng = 0;
  double xmin = INFINITY, xmax = -INFINITY;
  for (long j = 0; j < n; j++) {
    if (strcmp(rows[j].status, "done")) continue;
    const double x = param_num(vals[j], xc), yv = row_metric(&rows[j], y);
    const double g = bc ? param_num(vals[j], bc) : 0;
    if (!isfinite(x) || !isfinite(yv)) continue;
    pts[3 * np] = g;
    pts[3 * np + 1] = x;
    pts[3 * np + 2] = yv;
    np++;
    if (x < xmin) xmin = x;
    if (x > xmax) xmax = x;
    int seen = 0;
    for (int q = 0; q < ng; q++) seen |= groups[q] == g || (isnan(g) && isnan(groups[q]));
    if (!seen) groups[ng++] = g;
  }
  qsort(groups, (size_t)ng, sizeof *groups, cmp_xy);
  char path[4400], tmp[4500];
  snprintf(path, sizeof path, "%s/summary_plot.dat", dir);
  FILE *f = open_tmp(path, tmp, sizeof tmp);
  if (!f) {
    free(pts);
    free(groups);
    return drape_fail(e, DRAPE_EIO, "cannot write %s: %s", tmp, strerror(errno));
  }
  fprintf(f, "# %s %s (one block per %s)\n", xc->name, y, bc ? bc->name : "figure");
  double *xy = malloc(sizeof(double) * 2 * (size_t)(np ? np : 1));
  for (int q = 0; q < ng; q++) {
    long m = 0;
    for (long i = 0; i < np; i++)
      if (pts[3 * i] == groups[q] || (isnan(pts[3 * i]) && isnan(groups[q]))) {
        xy[2 * m] = pts[3 * i + 1];
        xy[2 * m + 1] = pts[3 * i + 2];
        m++;
      }
    qsort(xy, (size_t)m, 2 * sizeof(double), cmp_xy);
    for (long i = 0; i < m; i++) fprintf(f, "%.9g %.9g\n", xy[2 * i], xy[2 * i + 1]);
    fputs("\n\n", f);
  }
  free(xy);
  free(pts);
  int bad_io = ferror(f);
  if (fclose(f) != 0 || bad_io) {
    unlink(tmp);
    free(groups);
    return drape_fail(e, DRAPE_EIO, "writing %s failed", tmp);
  }
  int crc = dr_out_commit(tmp, path, "--summary", e);
  if (crc) {
    free(groups);
    return crc;
  }
  snprintf(path, sizeof path, "%s/summary.gp", dir);
  f = open_tmp(path, tmp, sizeof tmp);
  if (!f) {
    free(groups);
    return drape_fail(e, DRAPE_EIO, "cannot write %s: %s", tmp, strerror(errno));
  }
  /* gnuplot runs in DIR (no shell) and reads only fixed names there;
   * every title is a quoted gnuplot string. */
  char png[64];
  snprintf(png, sizeof png, "summary.png.tmp%ld", (long)getpid());
  fputs("set terminal pngcairo size 1000,700 font ',11'\nset output ", f);
  dr_gp_str(f, png);
  fputs("\nset grid\nset key outside right\nset xlabel ", f);
  dr_gp_str(f, xc->name);
  fputs(" noenhanced\nset ylabel ", f);
  dr_gp_str(f, y);
  fputs(" noenhanced\nset title ", f);
  char title[600];
  snprintf(title, sizeof title, "drape batch: %s against %s (%ld jobs done)", y, xc->name, np);
  dr_gp_str(f, title);
  fputs(" noenhanced\n", f);
  if (xmin > 0 && xmax >= 100 * xmin) fputs("set logscale x\nset format x '%g'\n", f);
  fputs("plot ", f);
  for (int q = 0; q < ng; q++) {
    char t[300], v[64];
    drape_fmt_double(v, sizeof v, groups[q]);
    snprintf(t, sizeof t, "%s = %s", bc ? bc->name : "", v);
    fprintf(f, "%s'summary_plot.dat' index %d using 1:2 with %s lw 2 pt 7 title ", q ? ", " : "",
            q, bc && !random ? "linespoints" : "points");
    if (bc) dr_gp_str(f, t);
    else fputs("''", f);
    fputs(" noenhanced", f);
  }
  if (!ng) fputs("NaN notitle", f);
  fputc('\n', f);
  free(groups);
  bad_io = ferror(f);
  if (fclose(f) != 0 || bad_io) {
    unlink(tmp);
    return drape_fail(e, DRAPE_EIO, "writing %s failed", tmp);
  }
  if ((crc = dr_out_commit(tmp, path, "--summary", e))) return crc;
  const char *argv[] = {gp, "summary.gp", NULL};
  dr_spawn_opts so = dr_spawn_opts_default();
  so.cwd = dir;
  char tmp_png[4400], final_png[4400];
  snprintf(tmp_png, sizeof tmp_png, "%s/%s", dir, png);
  snprintf(final_png, sizeof final_png, "%s/summary.png", dir);
  drape_err ge = {0};
  unlink(tmp_png); /* gnuplot opens it by name: no planted link there */
  if (dr_spawn_run(argv, &so, "summary.png", &ge) || dr_out_commit(tmp_png, final_png, "--summary", &ge)) {
    unlink(tmp_png);
    return drape_fail(e, DRAPE_EIO, "%s; no figure (the CSV and JSON are complete)", ge.msg);
  }
  if (!quiet) printf("drape batch: figure %s: %s against %s\n", final_png, y, xc->name);
  return DRAPE_OK;
}

static int summary_write(const char *dir, const batch_opts *o, int quiet, drape_err *e) {
  char path[4400], *text = NULL;
  snprintf(path, sizeof path, "%s/plan.json", dir);
  if (read_text(path, "plan", &text, NULL))
    return drape_fail(e, DRAPE_EINVAL, "--summary \"%s\": no plan.json there (not a drape batch "
                      "--out folder, or no run has started)", dir);
  cJSON *plan = cJSON_Parse(text);
  free(text);
  const cJSON *keys = cJSON_GetObjectItemCaseSensitive(plan, "keys");
  const cJSON *jobs = cJSON_GetObjectItemCaseSensitive(plan, "jobs");
  const cJSON *dg = cJSON_GetObjectItemCaseSensitive(plan, "digits");
  if (!cJSON_IsArray(keys) || !cJSON_IsArray(jobs) || !cJSON_IsNumber(dg)) {
    cJSON_Delete(plan);
    return drape_fail(e, DRAPE_EINVAL, "--summary \"%s\": plan.json is not a drape batch plan", dir);
  }
  /* The plan is a file in the output folder, so it is checked as input:
   * its numbers within what a sweep can make, every row of the same width
   * (a huge digit count or key list would cost minutes, and misname the
   * jobs' folders). */
  const double dgv = dg->valuedouble;
  const int n_keys = cJSON_GetArraySize(keys);
  long n = 0;
  for (const cJSON *r = jobs->child; r && n <= BATCH_MAX_JOBS; r = r->next) n++;
  const char *bad = !(dgv >= 5 && dgv <= 7 && dgv == floor(dgv)) ? "digits: not 5, 6 or 7"
                    : n_keys < 1 || n_keys > BATCH_MAX_KEYS    ? "keys: not 1 to 32 key paths"
                    : n > BATCH_MAX_JOBS                       ? "jobs: more than a sweep can have"
                                                               : NULL;
  for (const cJSON *k = keys->child; !bad && k; k = k->next)
    if (!cJSON_IsString(k)) bad = "keys: not all key paths (strings)";
  for (const cJSON *r = jobs->child; !bad && r; r = r->next)
    if (!cJSON_IsArray(r) || cJSON_GetArraySize(r) != n_keys) bad = "jobs: a row is not one value per key";
  if (bad) {
    cJSON_Delete(plan);
    return drape_fail(e, DRAPE_EINVAL, "--summary \"%s\": plan.json is not a drape batch plan "
                      "(%s)", dir, bad);
  }
  const int digits = (int)dgv;
  const cJSON **vals = calloc((size_t)(n ? n : 1), sizeof *vals);
  srow *rows = calloc((size_t)(n ? n : 1), sizeof *rows);
  pcol *cols = calloc((size_t)n_keys * 8 + 1, sizeof *cols);
  int n_cols = 0, rc = DRAPE_OK;
  long j = 0;
  for (const cJSON *r = jobs->child; r; r = r->next) vals[j++] = r;
  /* parameter columns: a number; a list of numbers of one length (one
   * column per component, "wind[0]" ...); anything else as JSON text */
  for (int k = 0; k < n_keys; k++) {
    const char *kn = cJSON_GetArrayItem(keys, k)->valuestring;
    int all_num = 1, vec = -1;
    for (long i = 0; i < n; i++) {
      const cJSON *v = cJSON_GetArrayItem(vals[i], k);
      all_num &= cJSON_IsNumber(v);
      int len = -2;
      if (cJSON_IsArray(v) && cJSON_GetArraySize(v) <= 8) {
        len = cJSON_GetArraySize(v);
        for (const cJSON *c = v->child; c; c = c->next)
          if (!cJSON_IsNumber(c)) len = -2;
      }
      vec = i == 0 ? len : (vec == len ? vec : -2);
    }
    if (all_num || vec <= 0) {
      snprintf(cols[n_cols].name, sizeof cols[n_cols].name, "%s", kn);
      cols[n_cols].key = k;
      cols[n_cols].comp = -1;
      cols[n_cols++].numeric = all_num && n > 0;
    } else {
      for (int c = 0; c < vec; c++) {
        snprintf(cols[n_cols].name, sizeof cols[n_cols].name, "%s[%d]", kn, c);
        cols[n_cols].key = k;
        cols[n_cols].comp = c;
        cols[n_cols++].numeric = 1;
      }
    }
  }
  /* the flags' names, before anything is written */
  const char *want[2] = {o->x, o->by};
  const char *flag[2] = {"--x", "--by"};
  for (int w = 0; w < 2 && !rc; w++) {
    if (!want[w]) continue;
    int found = 0;
    char list[2000] = "";
    for (int c = 0; c < n_cols; c++) {
      if (!cols[c].numeric) continue;
      found |= !strcmp(cols[c].name, want[w]);
      size_t l = strlen(list);
      snprintf(list + l, sizeof list - l, "%s%s", l ? ", " : "", cols[c].name);
    }
    if (!found)
      rc = drape_fail(e, DRAPE_EINVAL, "%s \"%s\": not a numeric parameter of this batch "
                      "(allowed: %s)", flag[w], want[w], list[0] ? list : "none");
  }
  if (!rc && o->y) {
    int found = !strcmp(o->y, "ms_per_frame") || !strcmp(o->y, "wall_s") || !strcmp(o->y, "sim_s");
    for (int m = 0; m < N_METRICS; m++) found |= !strcmp(o->y, metric_names[m]);
    if (!found)
      rc = drape_fail(e, DRAPE_EINVAL, "--y \"%s\": not a metric (allowed: max_strain, "
                      "mean_strain, lowest_y, kinetic_energy, min_floor_clearance, "
                      "min_sphere_clearance, torn, ms_per_frame, sim_s, wall_s)", o->y);
  }
  long n_done = 0, n_failed = 0, n_missing = 0;
  for (j = 0; j < n && !rc; j++) {
    snprintf(path, sizeof path, "%s/jobs/%0*ld/status.json", dir, digits, j);
    snprintf(rows[j].status, sizeof rows[j].status, "missing");
    if (access(path, F_OK) == 0 && !read_text(path, "status", &text, NULL)) {
      rows[j].st = cJSON_Parse(text);
      free(text);
      const cJSON *st = cJSON_GetObjectItemCaseSensitive(rows[j].st, "status");
      const cJSON *re = cJSON_GetObjectItemCaseSensitive(rows[j].st, "reason");
      if (cJSON_IsString(st)) snprintf(rows[j].status, sizeof rows[j].status, "%s", st->valuestring);
      if (cJSON_IsString(re)) snprintf(rows[j].reason, sizeof rows[j].reason, "%s", re->valuestring);
    }
    n_done += !strcmp(rows[j].status, "done");
    n_failed += !strcmp(rows[j].status, "failed");
    n_missing += !strcmp(rows[j].status, "missing");
  }
  static const char *timing[] = {"frames_done", "ms_per_frame", "sim_s", "wall_s"};
  /* summary.csv */
  FILE *f = NULL;
  char tmp[4500];
  if (!rc) {
    snprintf(path, sizeof path, "%s/summary.csv", dir);
    snprintf(tmp, sizeof tmp, "%s.tmp%ld", path, (long)getpid());
    if (!(f = fopen(tmp, "w"))) rc = drape_fail(e, DRAPE_EIO, "cannot write %s: %s", tmp, strerror(errno));
  }
  if (!rc) {
    fputs("job,status,reason", f);
    for (int c = 0; c < n_cols; c++) fprintf(f, ",%s", cols[c].name);
    for (int m = 0; m < N_METRICS; m++) fprintf(f, ",%s", metric_names[m]);
    for (int t = 0; t < 4; t++) fprintf(f, ",%s", timing[t]);
    fputc('\n', f);
    for (j = 0; j < n; j++) {
      fprintf(f, "%ld,%s,%s", j, rows[j].status, rows[j].reason);
      for (int c = 0; c < n_cols; c++) {
        fputc(',', f);
        if (cols[c].numeric || cols[c].comp >= 0) {
          csv_num(f, param_num(vals[j], &cols[c]));
        } else { /* JSON text, CSV-quoted */
          char *t = cJSON_PrintUnformatted(cJSON_GetArrayItem(vals[j], cols[c].key));
          fputc('"', f);
          for (const char *p = t ? t : ""; *p; p++) {
            if (*p == '"') fputc('"', f);
            fputc(*p, f);
          }
          fputc('"', f);
          free(t);
        }
      }
      for (int m = 0; m < N_METRICS; m++) {
        fputc(',', f);
        csv_num(f, row_metric(&rows[j], metric_names[m]));
      }
      for (int t = 0; t < 4; t++) {
        fputc(',', f);
        csv_num(f, row_metric(&rows[j], timing[t]));
      }
      fputc('\n', f);
    }
    int bad_io = ferror(f);
    if (fclose(f) != 0 || bad_io) rc = drape_fail(e, DRAPE_EIO, "writing %s failed", tmp);
    if (!rc) rc = dr_out_commit(tmp, path, "--summary", e);
    else unlink(tmp);
  }
  /* summary.json */
  if (!rc) {
    cJSON *out = cJSON_CreateObject();
    cJSON_AddStringToObject(out, "drape", drape_version());
    cJSON_AddNumberToObject(out, "jobs", (double)n);
    cJSON_AddNumberToObject(out, "done", (double)n_done);
    cJSON_AddNumberToObject(out, "failed", (double)n_failed);
    cJSON_AddNumberToObject(out, "missing", (double)n_missing);
    cJSON_AddItemToObject(out, "keys", cJSON_Duplicate(keys, 1));
    cJSON *ms = cJSON_AddArrayToObject(out, "metrics");
    for (int m = 0; m < N_METRICS; m++) cJSON_AddItemToArray(ms, cJSON_CreateString(metric_names[m]));
    cJSON *arr = cJSON_AddArrayToObject(out, "rows");
    for (j = 0; j < n; j++) {
      cJSON *row = cJSON_CreateObject();
      cJSON_AddNumberToObject(row, "job", (double)j);
      cJSON_AddStringToObject(row, "status", rows[j].status);
      if (rows[j].reason[0]) cJSON_AddStringToObject(row, "reason", rows[j].reason);
      else cJSON_AddNullToObject(row, "reason");
      cJSON *p = cJSON_AddObjectToObject(row, "params");
      for (int k = 0; k < n_keys; k++)
        cJSON_AddItemToObject(p, cJSON_GetArrayItem(keys, k)->valuestring,
                              cJSON_Duplicate(cJSON_GetArrayItem(vals[j], k), 1));
      cJSON *mm = cJSON_AddObjectToObject(row, "metrics");
      for (int m = 0; m < N_METRICS; m++) {
        const double v = row_metric(&rows[j], metric_names[m]);
        if (isfinite(v)) cJSON_AddNumberToObject(mm, metric_names[m], v);
        else cJSON_AddNullToObject(mm, metric_names[m]);
      }
      for (int t = 0; t < 4; t++) {
        const double v = row_metric(&rows[j], timing[t]);
        if (isfinite(v)) cJSON_AddNumberToObject(row, timing[t], v);
        else cJSON_AddNullToObject(row, timing[t]);
      }
      const cJSON *er = cJSON_GetObjectItemCaseSensitive(rows[j].st, "error");
      if (cJSON_IsString(er)) cJSON_AddStringToObject(row, "error", er->valuestring);
      cJSON_AddItemToArray(arr, row);
    }
    char *t = cJSON_Print(out);
    cJSON_Delete(out);
    size_t l = strlen(t);
    char *t2 = malloc(l + 2);
    memcpy(t2, t, l);
    t2[l] = '\n';
    t2[l + 1] = 0;
    free(t);
    snprintf(path, sizeof path, "%s/summary.json", dir);
    rc = write_text(path, t2, "--summary", e);
    free(t2);
  }
  if (!rc && !quiet)
    printf("drape batch: summary of %ld jobs (%ld done, %ld failed, %ld not run): %s/summary.csv, "
           "%s/summary.json\n", n, n_done, n_failed, n_missing, dir, dir);
  const cJSON *mode = cJSON_GetObjectItemCaseSensitive(plan, "mode");
  const int random = cJSON_IsString(mode) && !strcmp(mode->valuestring, "samples");
  if (!rc && !o->no_plot) rc = summary_plot(dir, cols, n_cols, vals, rows, n, random, o, quiet, e);
  for (j = 0; j < n; j++) cJSON_Delete(rows[j].st);
  free(rows);
  free(cols);
  free(vals);
  cJSON_Delete(plan);
  return rc;
}

/* ------------------------------------------------------------------ */
/* Slurm: a job array, one shard per array task                         */
/* ------------------------------------------------------------------ */

/* Single-quoted for bash: every ' becomes '\''. */
static void sh_quote(FILE *f, const char *s) {
  fputc('\'', f);
  for (; *s; s++) {
    if (*s == '\'') fputs("'\\''", f);
    else fputc(*s, f);
  }
  fputc('\'', f);
}

static int slurm_write(dr_app *app, const sweep *s, const batch_opts *o, drape_err *e) {
  char out_abs[4300], sweep_abs[4300], exe[4200], logs[4400], path[4400];
  abs_path(o->out_dir, out_abs, sizeof out_abs);
  abs_path(o->sweep_path, sweep_abs, sizeof sweep_abs);
  /* #SBATCH lines are not parsed by a shell: names that need quoting
   * there (or Slurm's % patterns) are refused rather than mangled. */
  if (strpbrk(out_abs, " \t\n\"'%\\$`"))
    return drape_fail(e, DRAPE_EINVAL, "--out \"%s\": with --slurm the folder's path may not "
                      "hold blanks, quotes, %%, $, ` or \\ (it goes into #SBATCH lines)", o->out_dir);
  ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
  if (n <= 0) snprintf(exe, sizeof exe, "%s", app->argv0);
  else exe[n] = 0;
  snprintf(logs, sizeof logs, "%s/slurm", o->out_dir);
  int rc = dr_make_dirs(logs, "--out", e);
  if (rc) return rc;
  long tasks = o->tasks ? o->tasks : (s->n_jobs < 1000 ? s->n_jobs : 1000);
  if (tasks > s->n_jobs) tasks = s->n_jobs;
  long par = o->max_parallel ? o->max_parallel : tasks;
  snprintf(path, sizeof path, "%s/batch.sbatch", o->out_dir);
  char tmp[4500];
  FILE *f = open_tmp(path, tmp, sizeof tmp);
  if (!f) return drape_fail(e, DRAPE_EIO, "--out: cannot write %s: %s", tmp, strerror(errno));
  fprintf(f, "#!/bin/bash\n"
             "# drape batch (drape %s): the %ld jobs of %s as a Slurm job array of\n"
             "# %ld tasks; task I runs shard I/%ld (jobs I, I+%ld, ...). Written by\n"
             "# `drape batch --slurm`; submit with: sbatch %s/batch.sbatch\n"
             "# Finished jobs are skipped, so submitting again resumes.\n",
          drape_version(), s->n_jobs, sweep_abs, tasks, tasks, tasks, out_abs);
  fprintf(f, "#SBATCH --job-name=drape-batch\n#SBATCH --array=0-%ld%%%ld\n", tasks - 1, par);
  fprintf(f, "#SBATCH --ntasks=1\n#SBATCH --cpus-per-task=%d\n", o->jobs);
  fprintf(f, "#SBATCH --output=%s/slurm/task_%%A_%%a.out\n", out_abs);
  if (o->partition) fprintf(f, "#SBATCH --partition=%s\n", o->partition);
  if (o->gpus_per_task) fprintf(f, "#SBATCH --gpus-per-task=%ld\n", o->gpus_per_task);
  if (o->time_limit) fprintf(f, "#SBATCH --time=%s\n", o->time_limit);
  fputs("set -eu\nexec ", f);
  sh_quote(f, exe);
  if (app->device >= 0) fprintf(f, " --device %d", app->device);
  static const char *forms[] = {"auto", "gpu", "cpu"};
  if (app->kernel_form > 0 && app->kernel_form < 3) fprintf(f, " --kernel-form %s", forms[app->kernel_form]);
  fputs(" batch ", f);
  sh_quote(f, sweep_abs);
  fputs(" --out ", f);
  sh_quote(f, out_abs);
  fprintf(f, " --jobs %d --shard \"$SLURM_ARRAY_TASK_ID/$SLURM_ARRAY_TASK_COUNT\"\n", o->jobs);
  int bad_io = ferror(f);
  if (fclose(f) != 0 || bad_io) {
    unlink(tmp);
    return drape_fail(e, DRAPE_EIO, "writing %s failed", tmp);
  }
  chmod(tmp, 0755);
  if ((rc = dr_out_commit(tmp, path, "--out", e))) return rc;
  printf("drape batch: wrote %s/batch.sbatch: %ld jobs as %ld array tasks, at most %ld at once;\n"
         "each task runs its shard, %d job(s) at a time; logs in %s/slurm/.\n"
         "submit it with:\n", out_abs, s->n_jobs, tasks, par, o->jobs, out_abs);
  printf("sbatch %s/batch.sbatch\n", out_abs);
  return DRAPE_OK;
}

/* ------------------------------------------------------------------ */
/* The command                                                         */
/* ------------------------------------------------------------------ */

static int parse_args(batch_opts *o, int argc, char **argv) {
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i];
    const char *v = i + 1 < argc ? argv[i + 1] : NULL;
    long n;
    if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
      help();
      return -1;
    } else if (!strcmp(a, "--out")) {
      if (!v || !*v) return bad(a, v, "expected a folder for the jobs");
      o->out_dir = v;
      i++;
    } else if (!strcmp(a, "--jobs")) {
      if (!dr_parse_long(v, 1, BATCH_MAX_PARALLEL, &n))
        return bad(a, v, "expected the jobs to run at a time, 1..256");
      o->jobs = (int)n;
      i++;
    } else if (!strcmp(a, "--shard")) {
      char ib[32], nb[32];
      const char *sl = v ? strchr(v, '/') : NULL;
      long si, sn;
      if (!sl || sl - v >= 31 || strlen(sl + 1) >= 31)
        return bad(a, v, "expected I/N: shard I of N, 0 <= I < N (e.g. 0/4)");
      snprintf(ib, sizeof ib, "%.*s", (int)(sl - v), v);
      snprintf(nb, sizeof nb, "%s", sl + 1);
      if (!dr_parse_long(nb, 1, BATCH_MAX_JOBS, &sn) || !dr_parse_long(ib, 0, sn - 1, &si))
        return bad(a, v, "expected I/N: shard I of N, 0 <= I < N <= 1000000 (e.g. 0/4)");
      o->shard_i = si;
      o->shard_n = sn;
      i++;
    } else if (!strcmp(a, "--retry-failed")) {
      o->retry_failed = 1;
    } else if (!strcmp(a, "--no-summary")) {
      o->no_summary = 1;
    } else if (!strcmp(a, "--quiet")) {
      o->quiet = 1;
    } else if (!strcmp(a, "--list")) {
      o->list = 1;
    } else if (!strcmp(a, "--slurm")) {
      o->slurm = 1;
    } else if (!strcmp(a, "--tasks")) {
      if (!dr_parse_long(v, 1, 1000000, &o->tasks))
        return bad(a, v, "expected the number of array tasks, 1..1000000");
      i++;
    } else if (!strcmp(a, "--max-parallel")) {
      if (!dr_parse_long(v, 1, 1000000, &o->max_parallel))
        return bad(a, v, "expected the array tasks to run at once, 1..1000000");
      i++;
    } else if (!strcmp(a, "--gpus-per-task")) {
      if (!dr_parse_long(v, 1, 64, &o->gpus_per_task))
        return bad(a, v, "expected GPUs per array task, 1..64");
      i++;
    } else if (!strcmp(a, "--partition")) {
      if (!v || !*v || v[strspn(v, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-.,")])
        return bad(a, v, "expected a Slurm partition name (letters, digits, _ - . ,)");
      o->partition = v;
      i++;
    } else if (!strcmp(a, "--time")) {
      if (!v || !*v || v[strspn(v, "0123456789:-")])
        return bad(a, v, "expected a Slurm time limit (MINUTES, HH:MM:SS, D-HH:MM:SS)");
      o->time_limit = v;
      i++;
    } else if (!strcmp(a, "--summary")) {
      if (!v || !*v) return bad(a, v, "expected a batch's --out folder");
      o->summary_dir = v;
      i++;
    } else if (!strcmp(a, "--x") || !strcmp(a, "--y") || !strcmp(a, "--by")) {
      if (!v || !*v) return bad(a, v, a[2] == 'y' ? "expected a metric name" : "expected a parameter name");
      if (a[2] == 'x') o->x = v;
      else if (a[2] == 'y') o->y = v;
      else o->by = v;
      i++;
    } else if (!strcmp(a, "--no-plot")) {
      o->no_plot = 1;
    } else if (!strcmp(a, "--job")) { /* internal: one job, in the child */
      if (!v || !*v) return bad(a, v, "expected a job folder");
      o->job.dir = v;
      i++;
    } else if (!strcmp(a, "--index") || !strcmp(a, "--frames") || !strcmp(a, "--parent")) {
      o->internal = a;
      if (!dr_parse_long(v, 0, 100000000, &n)) return bad(a, v, "expected a whole number");
      if (a[2] == 'i') o->job.index = n;
      else if (a[2] == 'f') o->job.frames = (int)n;
      else o->job.parent = n;
      i++;
    } else if (!strcmp(a, "--obj")) {
      o->internal = a;
      if (!v || (strcmp(v, "none") && strcmp(v, "all") && strcmp(v, "last")))
        return bad(a, v, "expected none, all or last");
      o->job.obj = !strcmp(v, "all") ? 1 : !strcmp(v, "last") ? 2 : 0;
      i++;
    } else if (!strcmp(a, "--backend")) {
      o->internal = a;
      if (!v || (strcmp(v, "cl") && strcmp(v, "cpu"))) return bad(a, v, "expected cl or cpu");
      o->job.cpu = !strcmp(v, "cpu");
      i++;
    } else if (!strcmp(a, "--video")) {
      o->internal = a;
      o->job.video = 1;
    } else if (a[0] == '-' && a[1]) {
      fprintf(stderr, "drape batch: unknown option '%s'\n%s", a, usage_text);
      return 2;
    } else if (!o->sweep_path) {
      o->sweep_path = a;
    } else {
      fprintf(stderr, "drape batch: unexpected argument '%s' (one sweep file only)\n%s", a,
              usage_text);
      return 2;
    }
  }
  return 0;
}

int cmd_batch(dr_app *app, int argc, char **argv) {
  batch_opts o;
  memset(&o, 0, sizeof o);
  o.jobs = 1;
  o.shard_n = 1;
  int prc = parse_args(&o, argc, argv);
  if (prc) return prc < 0 ? 0 : prc;
  if (!o.job.dir && o.internal) {
    fprintf(stderr, "drape batch: unknown option '%s' (frames, outputs and backend are keys of "
            "the sweep file)\n%s", o.internal, usage_text);
    return 2;
  }
  if (o.job.dir) {
    if (o.job.frames < 1) return bad("--frames", "", "the job needs --frames");
    return run_job(app, &o.job);
  }
  drape_err e = {0};
  if (o.summary_dir) {
    if (o.sweep_path)
      return bad("--summary", o.summary_dir, "takes a batch folder and no sweep file");
    if (!is_dir(o.summary_dir))
      return bad("--summary", o.summary_dir, "not a folder (give a batch's --out folder)");
    int rc = summary_write(o.summary_dir, &o, 0, &e);
    return rc ? drape_app_report(&e) : 0;
  }
  if (!o.sweep_path) {
    fprintf(stderr, "drape batch: missing SWEEP (a JSON sweep file; docs/batch.md)\n%s", usage_text);
    return 2;
  }
  if (!o.list && !o.out_dir) return bad("--out", "", "missing: the folder for the jobs");
  if ((o.tasks || o.max_parallel || o.partition || o.gpus_per_task || o.time_limit) && !o.slurm)
    return bad("--slurm", "", "--tasks, --max-parallel, --partition, --gpus-per-task and --time "
               "go with --slurm");
  if (o.slurm && o.shard_n > 1)
    return bad("--shard", "", "not with --slurm (each array task takes its own shard)");
  if (o.out_dir && dr_out_dir_check(o.out_dir, "--out", &e)) return drape_app_report(&e);
  /* the paths go into job scenes, logs and batch.sbatch's comments: a
   * newline there would end a comment line and run what follows */
  static const char *const path_flags[2] = {"SWEEP", "--out"};
  const char *const paths[2] = {o.sweep_path, o.out_dir};
  for (int k = 0; k < 2; k++)
    for (const unsigned char *c = (const unsigned char *)paths[k]; c && *c; c++)
      if (*c < 0x20 || *c == 0x7f) {
        fprintf(stderr, "drape batch: %s \"%s\": a path may not hold control characters "
                "(here byte 0x%02x at %ld: newline, tab, ...)\n", path_flags[k], paths[k], *c,
                (long)(c - (const unsigned char *)paths[k]));
        return 2;
      }
  sweep s;
  if (sweep_parse(&s, o.sweep_path, &e)) {
    sweep_free(&s);
    return drape_app_report(&e);
  }
  int rc = DRAPE_OK, want_device = -1;
  char **invalid = calloc((size_t)s.n_jobs, sizeof *invalid);
  /* DRAPE_DEVICE is read again by each job; a bad one stops here, once */
  if (!s.cpu && (rc = drape_cl_requested_device(app->device, &want_device, &e))) goto out;
  /* The values: an earlier run's plan, else made here (written below,
   * once every job's scene has passed the loader). */
  int planned = 0;
  if (!o.list && is_dir(o.out_dir) && (rc = plan_read(&s, o.out_dir, &planned, &e))) goto out;
  if (!planned) {
    s.plan = plan_make(&s);
    if ((rc = plan_index(&s, "plan", &e))) goto out;
  }
  /* one job first: a key path the scene lacks is named once, not N times */
  char *t0 = job_scene_text(&s, 0, &e);
  if (!t0) {
    rc = DRAPE_EINVAL;
    goto out;
  }
  free(t0);
  if (o.list) {
    printf("job");
    for (int k = 0; k < s.n_vary; k++) printf("\t%s", s.vary[k].path);
    printf("\n");
    for (long j = 0; j < s.n_jobs; j++) {
      char name[32];
      job_name(&s, j, name, sizeof name);
      printf("%s", name);
      for (int k = 0; k < s.n_vary; k++) {
        char v[300];
        fmt_value(cJSON_GetArrayItem(s.values[j], k), v, sizeof v);
        printf("\t%s", v);
      }
      printf("\n");
    }
    rc = check_jobs(&s, NULL, 0, 1, &e);
    goto out;
  }
  /* a shard checks its own jobs; the Slurm script, every job it will run */
  const long first = o.slurm ? 0 : o.shard_i, step = o.slurm ? 1 : o.shard_n;
  if ((rc = check_jobs(&s, invalid, first, step, &e))) goto out;
  if ((rc = dr_make_dirs(o.out_dir, "--out", &e))) goto out;
  /* One run per shard of a folder at a time: two runs of the same shard
   * would each mark jobs done while the other was still writing them. The
   * lock is the kernel's (flock), so it goes with the process, however it
   * ends; shards of one sweep run side by side, each with its own lock. */
  if (!o.slurm) {
    char lock[4400];
    snprintf(lock, sizeof lock, "%s/.lock-shard-%ld-of-%ld", o.out_dir, o.shard_i, o.shard_n);
    const int fd = open(lock, O_WRONLY | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0644);
    if (fd < 0) {
      rc = drape_fail(&e, DRAPE_EIO, "--out \"%s\": cannot open the lock %s: %s", o.out_dir, lock,
                      strerror(errno));
      goto out;
    }
    if (flock(fd, LOCK_EX | LOCK_NB) != 0) {
      close(fd);
      rc = drape_fail(&e, DRAPE_EINVAL, "--out \"%s\": another drape batch holds the lock on this "
                      "folder for shard %ld/%ld (%s); wait for it to finish, or give another --out",
                      o.out_dir, o.shard_i, o.shard_n, lock);
      goto out;
    }
    /* held until the process exits */
  }
  if (!planned) {
    const cJSON *mine = s.plan;
    if ((rc = plan_commit(&s, o.out_dir, &e))) goto out;
    if (s.plan != mine) { /* another shard's plan won: check its values */
      for (long j = 0; j < s.n_jobs; j++) {
        free(invalid[j]);
        invalid[j] = NULL;
      }
      if ((rc = check_jobs(&s, invalid, first, step, &e))) goto out;
    }
  }
  if (o.slurm) {
    rc = slurm_write(app, &s, &o, &e);
    goto out;
  }
  {
    int code = batch_run(app, &s, &o, invalid);
    for (long j = 0; j < s.n_jobs; j++) free(invalid[j]);
    free(invalid);
    sweep_free(&s);
    return code;
  }
out:
  for (long j = 0; invalid && j < s.n_jobs; j++) free(invalid[j]);
  free(invalid);
  sweep_free(&s);
  return rc ? drape_app_report(&e) : 0;
}
