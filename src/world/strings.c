#include "world/strings.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

struct run_strings {
  int n;
  drape_string **s;
  drape_string_def *defs;   /* hand keyframes and release time (copied)    */
  unsigned char *taken;     /* interactive: the caller drives the hand      */
  unsigned char *released;  /* interactive: release_at has passed           */
  pthread_t thread;
  pthread_mutex_t mu;
  pthread_cond_t cv;
  int have_work, quit;
  int frame;                /* run_strings_start() calls so far            */
  double t_end;
  int rc;
  drape_err err;
};

/* The solver's message under the string's name, frame and time. */
static int frame_error(const run_strings *rs, int k, int frame, double t_end, int code,
                       const char *detail, drape_err *e) {
  const char *prefix = "string: ";
  if (!strncmp(detail, prefix, strlen(prefix))) detail += strlen(prefix);
  const char *name = rs->defs[k].name[0] ? rs->defs[k].name : "string";
  if (code == DRAPE_EUNSTABLE)
    return drape_fail(e, code, "string \"%s\" diverged at frame %d (t = %.6g s): %s", name, frame,
                      t_end, detail);
  return drape_fail(e, code, "string \"%s\" at frame %d (t = %.6g s): %s", name, frame, t_end,
                    detail);
}

/* Advances every string to t_end, then checks every state is finite. */
static int advance_all(run_strings *rs, int frame, double t_end, drape_err *e) {
  for (int k = 0; k < rs->n; k++) {
    drape_err se = {0};
    int rc = drape_string_run(rs->s[k], &rs->defs[k], &t_end, 1, NULL, NULL, NULL, &se);
    if (rc) return frame_error(rs, k, frame, t_end, rc, se.msg, e);
  }
  return DRAPE_OK;
}

static void *worker(void *arg) {
  run_strings *rs = arg;
  pthread_mutex_lock(&rs->mu);
  for (;;) {
    while (!rs->have_work && !rs->quit) pthread_cond_wait(&rs->cv, &rs->mu);
    if (rs->quit) break;
    double t_end = rs->t_end;
    int frame = rs->frame, failed = rs->rc != 0;
    pthread_mutex_unlock(&rs->mu);
    drape_err e = {0};
    /* After a failure the strings stay where they were (no more work). */
    int rc = failed ? 0 : advance_all(rs, frame, t_end, &e);
    pthread_mutex_lock(&rs->mu);
    if (rc && !rs->rc) {
      rs->rc = rc;
      rs->err = e;
    }
    rs->have_work = 0;
    pthread_cond_broadcast(&rs->cv);
  }
  pthread_mutex_unlock(&rs->mu);
  return NULL;
}

int run_strings_create(const drape_scene *scene, run_strings **out, drape_err *e) {
  *out = NULL;
  if (scene->n_string == 0) return DRAPE_OK;
  run_strings *rs = calloc(1, sizeof *rs);
  if (!rs) return drape_fail(e, DRAPE_ENOMEM, "out of memory");
  rs->s = calloc((size_t)scene->n_string, sizeof *rs->s);
  rs->defs = calloc((size_t)scene->n_string, sizeof *rs->defs);
  rs->taken = calloc((size_t)scene->n_string, 1);
  rs->released = calloc((size_t)scene->n_string, 1);
  if (!rs->s || !rs->defs || !rs->taken || !rs->released) {
    free(rs->s);
    free(rs->defs);
    free(rs->taken);
    free(rs->released);
    free(rs);
    return drape_fail(e, DRAPE_ENOMEM, "out of memory");
  }
  int rc = 0;
  for (int k = 0; k < scene->n_string && !rc; k++) {
    drape_string_params p;
    rs->defs[k] = scene->string[k]; /* with its own copy of the hand keyframes, so */
    rs->defs[k].hand = NULL;        /* the scene may be freed after create       */
    const int nh = scene->string[k].n_hand;
    if (nh > 0 && !(rs->defs[k].hand = malloc(sizeof *rs->defs[k].hand * (size_t)nh))) {
      rc = drape_fail(e, DRAPE_ENOMEM, "out of memory");
      break;
    }
    if (nh > 0) memcpy(rs->defs[k].hand, scene->string[k].hand, sizeof *rs->defs[k].hand * (size_t)nh);
    rc = drape_string_params_from_def(&scene->string[k], scene->gravity, &p, e);
    if (!rc) rc = drape_string_create(&p, &rs->s[k], e);
    if (!rc) rs->n = k + 1;
  }
  if (!rc) {
    pthread_mutex_init(&rs->mu, NULL);
    pthread_cond_init(&rs->cv, NULL);
    if (pthread_create(&rs->thread, NULL, worker, rs) != 0) {
      pthread_mutex_destroy(&rs->mu);
      pthread_cond_destroy(&rs->cv);
      rc = drape_fail(e, DRAPE_ENOMEM, "cannot start the string solver thread");
    }
  }
  if (rc) {
    for (int k = 0; k < rs->n; k++) drape_string_destroy(rs->s[k]);
    for (int k = 0; k < scene->n_string; k++) free(rs->defs[k].hand);
    free(rs->taken);
    free(rs->released);
    free(rs->s);
    free(rs->defs);
    free(rs);
    return rc;
  }
  *out = rs;
  return DRAPE_OK;
}

int run_strings_check_duration(const run_strings *rs, double t_end, drape_err *e) {
  for (int k = 0; rs && k < rs->n; k++) {
    const double h = drape_string_get_params(rs->s[k])->h;
    if (!(t_end / h <= DRAPE_STRING_MAX_TICKS))
      return drape_fail(e, DRAPE_EINVAL,
                        "string \"%s\": h = %g s: the run's %g s would be %.3g ticks, more than "
                        "the solver's %.0e (fewer frames, a shorter dt or a larger h)",
                        rs->defs[k].name[0] ? rs->defs[k].name : "string", h, t_end, t_end / h,
                        DRAPE_STRING_MAX_TICKS);
  }
  return DRAPE_OK;
}

void run_strings_start(run_strings *rs, double t_end) {
  if (!rs) return;
  pthread_mutex_lock(&rs->mu);
  rs->t_end = t_end;
  rs->frame++;
  rs->have_work = 1;
  pthread_cond_broadcast(&rs->cv);
  pthread_mutex_unlock(&rs->mu);
}

int run_strings_wait(run_strings *rs, drape_err *e) {
  if (!rs) return DRAPE_OK;
  pthread_mutex_lock(&rs->mu);
  while (rs->have_work) pthread_cond_wait(&rs->cv, &rs->mu);
  int rc = rs->rc;
  if (rc && e) *e = rs->err;
  pthread_mutex_unlock(&rs->mu);
  return rc;
}

int run_strings_count(const run_strings *rs) { return rs ? rs->n : 0; }
const drape_string *run_strings_get(const run_strings *rs, int k) { return rs->s[k]; }
double run_strings_z(const run_strings *rs, int k) { return rs->defs[k].z; }
const drape_string_def *run_strings_def(const run_strings *rs, int k) { return &rs->defs[k]; }
drape_string *run_strings_at(run_strings *rs, int k) { return rs->s[k]; }

void run_strings_take(run_strings *rs, int k) { rs->taken[k] = 1; }
int run_strings_taken(const run_strings *rs, int k) { return rs->taken[k]; }

void run_strings_script_hand(run_strings *rs, int k, double t) {
  const drape_string_def *d = &rs->defs[k];
  drape_string *s = rs->s[k];
  /* a string without keyframes keeps the hand it was made with */
  if (rs->taken[k] || rs->released[k] || d->n_hand == 0) return;
  if (d->release_at >= 0 && t >= d->release_at) {
    drape_string_release(s);
    rs->released[k] = 1;
    return;
  }
  if (t < d->hand[0][0]) {
    drape_string_release(s);
    return;
  }
  int j = 0;
  while (j + 1 < d->n_hand && d->hand[j + 1][0] <= t) j++;
  double x = d->hand[j][1], y = d->hand[j][2];
  if (j + 1 < d->n_hand) {
    double f = (t - d->hand[j][0]) / (d->hand[j + 1][0] - d->hand[j][0]);
    x += f * (d->hand[j + 1][1] - x);
    y += f * (d->hand[j + 1][2] - y);
  }
  if (drape_string_is_held(s)) drape_string_set_target(s, x, y);
  else drape_string_grab(s, x, y);
}

void run_strings_reset(run_strings *rs) {
  if (!rs) return;
  pthread_mutex_lock(&rs->mu);
  while (rs->have_work) pthread_cond_wait(&rs->cv, &rs->mu);
  for (int k = 0; k < rs->n; k++) drape_string_reset(rs->s[k]);
  memset(rs->taken, 0, (size_t)rs->n);
  memset(rs->released, 0, (size_t)rs->n);
  rs->frame = 0;
  rs->rc = 0;
  memset(&rs->err, 0, sizeof rs->err);
  pthread_mutex_unlock(&rs->mu);
}

void run_strings_free(run_strings *rs) {
  if (!rs) return;
  pthread_mutex_lock(&rs->mu);
  rs->quit = 1;
  pthread_cond_broadcast(&rs->cv);
  pthread_mutex_unlock(&rs->mu);
  pthread_join(rs->thread, NULL);
  pthread_mutex_destroy(&rs->mu);
  pthread_cond_destroy(&rs->cv);
  for (int k = 0; k < rs->n; k++) {
    drape_string_destroy(rs->s[k]);
    free(rs->defs[k].hand);
  }
  free(rs->taken);
  free(rs->released);
  free(rs->s);
  free(rs->defs);
  free(rs);
}
