/* `drape string`: the seed 000 string from the command line, CSV out.
 * Every input is checked before anything runs; output is buffered and
 * written at the end, so bad input leaves no file. A run that diverges
 * (exit 1) writes the rows of the dumps before the divergence, none after. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <unistd.h>

#include "app/app.h"
#include "io/io.h"
#include "drape/string.h"

#define MAX_DUMPS 4096

static const char *usage_text =
    "usage: drape string [--nodes N] [--length L0] [--mu MU] [--EA EA] [--etaA ETAA]\n"
    "                    [--B B] [--D D] [--h H] [--anchor X,Y] [--gravity GX,GY]\n"
    "                    [--seconds T] [--hold [X,Y]] [--release-at T]\n"
    "                    [--dump-at T1,T2,...] [--out FILE] [--stats]\n";

static void help(void) {
  printf("%s", usage_text);
  printf(
      "\nRuns the seed 000 elastic string (CPU, double precision) and writes CSV\n"
      "`t,i,x,y,vx,vy` (%%.17g), one row per node at each dump time, written after\n"
      "the tick that ends at that time.\n\n"
      "  --nodes N        links N (>= 2), N+1 nodes            default 80\n"
      "  --length L0      m, manufactured length (<= 1e6; L0/N >= 1e-6 m)  default 4\n"
      "  --mu MU          kg/m, mass per length (> 0)           default 0.02\n"
      "  --EA EA          N, axial stiffness (>= 0)             default 100\n"
      "  --etaA ETAA      N s, extension friction (>= 0)        default 30\n"
      "  --B B            N m^2, bending rigidity (>= 0)        default 1e-4\n"
      "  --D D            N m^2 s, bending friction (>= 0)      default 1e-5\n"
      "  --h H            s, tick (> 0; --seconds/H <= 1e9 ticks)  default 1e-4\n"
      "  --anchor X,Y     m, fixed end                          default -0.4 L0,0.65 L0\n"
      "  --gravity GX,GY  m/s^2                                 default 0,-9.81\n"
      "  --seconds T      s simulated (a whole number of ticks) default: last dump\n"
      "                   time, else 0.1\n"
      "  --hold           hold the right end, target = its initial position\n"
      "  --hold X,Y       hold the right end with the fixed target X,Y (m)\n"
      "  --release-at T   release the held end at time T: ticks starting at or after T\n"
      "                   are free; 0 releases before the first tick (without --hold the\n"
      "                   end is held at its initial position until T)\n"
      "  --dump-at T,...  dump times in s (whole numbers of ticks)  default: --seconds\n"
      "  --out FILE       CSV file                              default: stdout\n"
      "  --stats          print ticks, substeps, energies and wall time to stderr\n\n"
      "Without --hold or --release-at the end is free from the start (--release-at 0).\n"
      "A string that diverges (a non-finite node, energy blow-up, or more than 100000\n"
      "substeps in one tick: too stiff an EA or B for L0/N, mu and h) stops the run:\n"
      "exit 1, a message naming the stiffest parameter; rows of earlier dumps are kept.\n"
      "Example (the seed's own run; endpoint 2.39531441,2.55090095 at 0.1 s):\n"
      "  drape string --seconds 0.1 | awk -F, '$2 == 80'\n");
}

static int bad(const char *flag, const char *value, const char *what) {
  fprintf(stderr, "drape string: %s \"%s\": %s\n%s", flag, value ? value : "", what, usage_text);
  return 2;
}

/* A finite double, the whole text. */
static int parse_num(const char *text, double *out) {
  if (!text || !*text) return 0;
  char *end = NULL;
  errno = 0;
  double v = strtod(text, &end);
  if (end == text || *end != 0 || !isfinite(v) || errno == ERANGE) return 0;
  *out = v;
  return 1;
}

/* Comma-separated finite doubles; returns the count, or -1 when malformed. */
static int parse_list(const char *text, double *out, int max) {
  if (!text || !*text) return -1;
  int n = 0;
  const char *p = text;
  for (;;) {
    const char *comma = strchr(p, ',');
    size_t len = comma ? (size_t)(comma - p) : strlen(p);
    char item[128];
    if (len == 0 || len >= sizeof item || n >= max) return -1;
    memcpy(item, p, len);
    item[len] = 0;
    if (!parse_num(item, &out[n])) return -1;
    n++;
    if (!comma) break;
    p = comma + 1;
  }
  return n;
}

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

/* The shortest %g text that reads back as v (0.1, not 0.10000000000000001). */
static const char *num_text(double v, char *buf, size_t cap) {
  for (int prec = 6; prec <= 17; prec++) {
    snprintf(buf, cap, "%.*g", prec, v);
    if (strtod(buf, NULL) == v) break;
  }
  return buf;
}

/* Whole ticks in t: 0 and *n when t is (within 1e-6 of) a whole number of
 * h; 1 when it is not; 2 when t/h is past DRAPE_STRING_MAX_TICKS (1e9, the
 * solver's limit per run: (long)floor(t/h + 0.5) would overflow long before
 * 1e19 ticks, and a run of 1e9 ticks is already days of CPU time). */
static int whole_ticks(double t, double h, long *n) {
  const double q = t / h;
  if (!(q <= DRAPE_STRING_MAX_TICKS)) return 2;
  const double r = floor(q + 0.5);
  if (fabs(q - r) > 1e-6) return 1;
  *n = (long)r;
  return 0;
}

/* Exit 2 unless t (given by `flag`, or the default) is a whole number of
 * ticks of --h within the tick limit: rows are labelled with the dump time,
 * so it must be the time the state is really at. */
static int check_ticks(const char *flag, int is_default, double t, double h, long *n) {
  char tb[64], hb[64];
  num_text(t, tb, sizeof tb);
  num_text(h, hb, sizeof hb);
  const char *how = is_default ? " (the default)" : "";
  switch (whole_ticks(t, h, n)) {
    case 0:
      return 0;
    case 2:
      fprintf(stderr,
              "drape string: %s \"%s\"%s with --h %s is %.3g ticks: at most %.0e ticks per "
              "run (%s / --h <= %.0e): give a larger --h or a shorter %s\n",
              flag, tb, how, hb, t / h, DRAPE_STRING_MAX_TICKS, flag, DRAPE_STRING_MAX_TICKS,
              flag);
      return 2;
    default:
      fprintf(stderr,
              "drape string: %s \"%s\"%s is not a whole number of ticks of --h %s (%.6g "
              "ticks): the state only exists at multiples of --h; give %s as a multiple of --h "
              "(or a smaller --h)\n",
              flag, tb, how, hb, t / h, flag);
      return 2;
  }
}

static void dump(FILE *f, double t, const drape_string *s) {
  const double *r = drape_string_positions(s), *v = drape_string_velocities(s);
  const int n = drape_string_node_count(s);
  for (int i = 0; i < n; i++)
    fprintf(f, "%.17g,%d,%.17g,%.17g,%.17g,%.17g\n", t, i, r[2 * i], r[2 * i + 1], v[2 * i],
            v[2 * i + 1]);
}

/* The rows of dump k (times[k] for k < n_dumps; the last time is the end
 * of the run, not a dump). */
typedef struct dump_ctx {
  FILE *f;
  const double *times;
  int n_dumps;
} dump_ctx;

static int dump_at(void *user, int k, const drape_string *s) {
  const dump_ctx *d = user;
  if (k < d->n_dumps) dump(d->f, d->times[k], s);
  return 0;
}

int cmd_string(dr_app *app, int argc, char **argv) {
  (void)app;
  drape_string_params p = drape_string_params_default();
  int have_anchor = 0, hold = 0, hold_xy = 0, stats = 0;
  double hold_at[2] = {0, 0}, seconds = -1, release_at = -1;
  static double dumps[MAX_DUMPS];
  int n_dumps = 0;
  const char *out_path = NULL;

  for (int i = 1; i < argc; i++) {
    const char *a = argv[i];
    if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
      help();
      return 0;
    }
    if (!strcmp(a, "--stats")) {
      stats = 1;
      continue;
    }
    if (!strncmp(a, "--hold", 6) && (a[6] == 0 || a[6] == '=')) {
      hold = 1;
      const char *val = a[6] == '=' ? a + 7 : NULL;
      /* The value is optional: take the next word unless it is a flag. */
      if (!val && i + 1 < argc && strncmp(argv[i + 1], "--", 2) != 0) val = argv[++i];
      if (val) {
        if (parse_list(val, hold_at, 2) != 2)
          return bad("--hold", val, "expected X,Y: two finite numbers in metres (e.g. 2.4,2.6)");
        hold_xy = 1;
      }
      continue;
    }
    /* Every other flag takes a value, as "--flag VALUE" or "--flag=VALUE". */
    const char *eq = strchr(a, '=');
    char flag[64];
    const char *val;
    if (eq && (size_t)(eq - a) < sizeof flag) {
      memcpy(flag, a, (size_t)(eq - a));
      flag[eq - a] = 0;
      val = eq + 1;
    } else {
      snprintf(flag, sizeof flag, "%s", a);
      val = i + 1 < argc ? argv[++i] : NULL;
    }
    double x = 0;
    const int known_flag =
        !strcmp(flag, "--nodes") || !strcmp(flag, "--length") || !strcmp(flag, "--mu") ||
        !strcmp(flag, "--EA") || !strcmp(flag, "--etaA") || !strcmp(flag, "--B") ||
        !strcmp(flag, "--D") || !strcmp(flag, "--h") || !strcmp(flag, "--anchor") ||
        !strcmp(flag, "--gravity") || !strcmp(flag, "--seconds") ||
        !strcmp(flag, "--release-at") || !strcmp(flag, "--dump-at") || !strcmp(flag, "--out");
    if (!known_flag) {
      fprintf(stderr, "drape string: unknown argument '%s'\n%s", a, usage_text);
      return 2;
    }
    if (!val) return bad(flag, "", "missing value");
    if (!strcmp(flag, "--nodes")) {
      char *end = NULL;
      errno = 0;
      long n = strtol(val, &end, 10);
      if (!*val || *end || errno || n < 2 || n > 10000000)
        return bad(flag, val, "expected the number of links, an integer in 2..10000000");
      p.links = (int)n;
    } else if (!strcmp(flag, "--anchor") || !strcmp(flag, "--gravity")) {
      double xy[2];
      if (parse_list(val, xy, 2) != 2) return bad(flag, val, "expected X,Y: two finite numbers");
      double *dst = !strcmp(flag, "--anchor") ? p.anchor : p.gravity;
      dst[0] = xy[0];
      dst[1] = xy[1];
      if (dst == p.anchor) have_anchor = 1;
    } else if (!strcmp(flag, "--dump-at")) {
      int n = parse_list(val, dumps, MAX_DUMPS);
      if (n < 0)
        return bad(flag, val, "expected comma-separated times in seconds (e.g. 0.05,0.1)");
      for (int k = 0; k < n; k++)
        if (dumps[k] < 0) return bad(flag, val, "times must be >= 0");
      n_dumps = n;
    } else if (!strcmp(flag, "--out")) {
      if (!*val) return bad(flag, val, "expected a file name");
      out_path = val;
    } else {
      if (!parse_num(val, &x)) return bad(flag, val, "expected a finite number");
      if (!strcmp(flag, "--length")) {
        if (!(x > 0)) return bad(flag, val, "the length L0 must be > 0 (metres)");
        p.length = x;
      } else if (!strcmp(flag, "--mu")) {
        if (!(x > 0)) return bad(flag, val, "the mass per length must be > 0 (kg/m)");
        p.mu = x;
      } else if (!strcmp(flag, "--EA")) {
        if (x < 0) return bad(flag, val, "EA must be >= 0 (N)");
        p.EA = x;
      } else if (!strcmp(flag, "--etaA")) {
        if (x < 0) return bad(flag, val, "etaA must be >= 0 (N s)");
        p.etaA = x;
      } else if (!strcmp(flag, "--B")) {
        if (x < 0) return bad(flag, val, "B must be >= 0 (N m^2)");
        p.B = x;
      } else if (!strcmp(flag, "--D")) {
        if (x < 0) return bad(flag, val, "D must be >= 0 (N m^2 s)");
        p.D = x;
      } else if (!strcmp(flag, "--h")) {
        if (!(x > 0)) return bad(flag, val, "the tick h must be > 0 (seconds)");
        p.h = x;
      } else if (!strcmp(flag, "--seconds")) {
        if (x < 0) return bad(flag, val, "must be >= 0 (seconds)");
        seconds = x;
      } else if (!strcmp(flag, "--release-at")) {
        if (x < 0) return bad(flag, val, "must be >= 0 (seconds)");
        release_at = x;
      }
    }
  }
  if (!have_anchor) {
    p.anchor[0] = -0.4 * p.length;
    p.anchor[1] = 0.65 * p.length;
  }
  drape_err e = {0};
  if (!(p.length / p.links >= DRAPE_STRING_MIN_LINK)) {
    /* The solver's limit (include/drape/string.h), named by its flags. */
    char lb[64];
    fprintf(stderr,
            "drape string: --length %s with --nodes %d: the link length L0/N = %.3g m must be "
            ">= %g m (below it a substep may move a node only 0.01 L0/N, and at 1e-300 the "
            "arithmetic underflows)\n%s",
            num_text(p.length, lb, sizeof lb), p.links, p.length / p.links, DRAPE_STRING_MIN_LINK, usage_text);
    return 2;
  }
  if (drape_string_params_validate(&p, &e)) return drape_app_report(&e);

  /* Times: dumps sorted and de-duplicated, all whole numbers of ticks. */
  qsort(dumps, (size_t)n_dumps, sizeof dumps[0], cmp_double);
  int m = 0;
  for (int k = 0; k < n_dumps; k++)
    if (m == 0 || dumps[k] != dumps[m - 1]) dumps[m++] = dumps[k];
  n_dumps = m;
  char buf[64];
  long n_total = 0;
  /* --seconds first (the longest time, so the tick limit is named there),
   * the default 0.1 s included: `--h 1` alone must not print rows labelled
   * 0.1 s of a state still at 0 s. */
  const int seconds_given = seconds >= 0;
  if (!seconds_given) seconds = n_dumps ? dumps[n_dumps - 1] : 0.1;
  if (check_ticks(seconds_given || !n_dumps ? "--seconds" : "--dump-at", !seconds_given && !n_dumps,
                  seconds, p.h, &n_total))
    return 2;
  for (int k = 0; k < n_dumps; k++) {
    long n;
    if (check_ticks("--dump-at", 0, dumps[k], p.h, &n)) return 2;
  }
  if (seconds_given) {
    if (n_dumps && dumps[n_dumps - 1] > seconds) {
      snprintf(buf, sizeof buf, "%.17g", dumps[n_dumps - 1]);
      fprintf(stderr, "drape string: --dump-at \"%s\": after the end of the run (--seconds %g)\n",
              buf, seconds);
      return 2;
    }
  }
  if (!n_dumps) dumps[n_dumps++] = seconds;

  /* The hand script: held (at X,Y or at the end's initial position, which
   * is L0 to the right of the anchor) from t = 0 until release_at; no --hold
   * and no --release-at: free from the start. */
  drape_string_def def = drape_string_def_default();
  double key[1][3] = {{0.0, p.anchor[0] + p.length, p.anchor[1]}};
  if (hold_xy) {
    key[0][1] = hold_at[0];
    key[0][2] = hold_at[1];
  }
  def.hand = key;
  def.n_hand = hold || release_at >= 0 ? 1 : 0;
  def.release_at = release_at;

  /* --out before the run: a folder, device, FIFO or link, or a missing or
   * read-only folder, is refused now (exit 2), not after the run. */
  if (out_path && dr_out_file_check(out_path, "--out", NULL, 0, &e))
    return drape_app_report(&e);
  drape_string *s = NULL;
  if (drape_string_create(&p, &s, &e)) return drape_app_report(&e);
  char *text = NULL;
  size_t text_len = 0;
  FILE *mem = open_memstream(&text, &text_len);
  if (!mem) {
    drape_string_destroy(s);
    drape_fail(&e, DRAPE_ENOMEM, "string: cannot buffer the output");
    return drape_app_report(&e);
  }
  fprintf(mem, "t,i,x,y,vx,vy\n");
  const double t0 = drape_now();
  /* Each dump only after the state is checked finite (issue 13): a string
   * that diverged (DRAPE_EUNSTABLE from the solver, or a non-finite node)
   * stops the run before its rows; the rows of earlier dumps are still
   * written and the command exits 1 with the message. The run itself is
   * the string library's (drape_string_run): this command only writes. */
  static double times[MAX_DUMPS + 1];
  memcpy(times, dumps, sizeof(double) * (size_t)n_dumps);
  times[n_dumps] = seconds;
  dump_ctx dc = {mem, times, n_dumps};
  int done = 0;
  int rc = drape_string_run(s, &def, times, n_dumps + 1, dump_at, &dc, &done, &e);
  const double t_goal = times[done <= n_dumps ? done : n_dumps];
  const double wall = drape_now() - t0;
  fclose(mem);
  drape_err run_err = {0};
  if (rc) {
    if (rc != DRAPE_EUNSTABLE) {
      free(text);
      drape_string_destroy(s);
      return drape_app_report(&e);
    }
    const char *detail = !strncmp(e.msg, "string: ", 8) ? e.msg + 8 : e.msg;
    char tb[64];
    drape_fail(&run_err, rc, "string diverged before t = %s s (the %s): %s; rows before it are "
               "written, none after", num_text(t_goal, tb, sizeof tb), t_goal == seconds ? "end of the run" : "next dump",
               detail);
  }
  if (stats) {
    drape_string_stats st;
    drape_string_energy en;
    drape_string_get_stats(s, &st);
    drape_string_energies(s, &en);
    fprintf(stderr,
            "drape string: N=%d h=%g t=%g s: %ld ticks, %ld substeps (%ld retries), "
            "%ld solves (max %d per substep), %.3f ms wall\n"
            "energy J: kinetic %.9g elastic %.9g bending %.9g gravitational %.9g total %.9g\n",
            p.links, p.h, drape_string_time(s), st.ticks, st.substeps, st.retries,
            st.newton_iters, st.max_newton, 1e3 * wall, en.kinetic, en.elastic, en.bending,
            en.gravitational, en.total);
  }
  drape_string_destroy(s);

  if (!out_path) {
    size_t wrote = fwrite(text, 1, text_len, stdout);
    int bad_out = wrote != text_len || fflush(stdout) != 0;
    free(text);
    if (bad_out) {
      drape_fail(&e, DRAPE_EIO, "--out stdout: write failed");
      return drape_app_report(&e);
    }
    return run_err.code ? drape_app_report(&run_err) : 0;
  }
  /* A temporary file next to the target, renamed over it when complete;
   * on failure only the temporary is removed, never the target. SIGINT and
   * SIGTERM wait until the file is in place (or gone), so neither leaves
   * the temporary behind. */
  char tmp[4300];
  snprintf(tmp, sizeof tmp, "%s.tmp%ld", out_path, (long)getpid());
  dr_signals_block();
  FILE *f = fopen(tmp, "wb");
  if (!f) {
    dr_signals_unblock();
    drape_fail(&e, DRAPE_EIO, "--out \"%s\": cannot create %s: %s", out_path, tmp,
               strerror(errno));
    free(text);
    return drape_app_report(&e);
  }
  size_t wrote = fwrite(text, 1, text_len, f);
  int close_rc = fclose(f);
  free(text);
  int rc_out = DRAPE_OK;
  if (wrote != text_len || close_rc != 0) {
    unlink(tmp);
    rc_out = drape_fail(&e, DRAPE_EIO, "--out \"%s\": write failed", out_path);
  } else {
    rc_out = dr_out_commit(tmp, out_path, "--out", &e);
  }
  dr_signals_unblock();
  if (rc_out) return drape_app_report(&e);
  return run_err.code ? drape_app_report(&run_err) : 0;
}
