#include "app/run_strings.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

struct run_strings {
  int n;
  drape_string **s;
  drape_string_def *defs;   /* hand keyframes and release time (copied)    */
  pthread_t thread;
  pthread_mutex_t mu;
  pthread_cond_t cv;
  int have_work, quit;
  double t_end;
  int rc;
  drape_err err;
};

static void *worker(void *arg) {
  run_strings *rs = arg;
  pthread_mutex_lock(&rs->mu);
  for (;;) {
    while (!rs->have_work && !rs->quit) pthread_cond_wait(&rs->cv, &rs->mu);
    if (rs->quit) break;
    double t_end = rs->t_end;
    pthread_mutex_unlock(&rs->mu);
    int rc = 0;
    drape_err e = {0};
    for (int k = 0; k < rs->n && !rc; k++)
      rc = drape_string_advance_scripted(rs->s[k], &rs->defs[k], t_end, &e);
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
  if (!rs->s || !rs->defs) {
    free(rs->s);
    free(rs->defs);
    free(rs);
    return drape_fail(e, DRAPE_ENOMEM, "out of memory");
  }
  int rc = 0;
  for (int k = 0; k < scene->n_string && !rc; k++) {
    drape_string_params p;
    rs->defs[k] = scene->string[k]; /* the hand array stays owned by the scene */
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
    free(rs->s);
    free(rs->defs);
    free(rs);
    return rc;
  }
  *out = rs;
  return DRAPE_OK;
}

void run_strings_start(run_strings *rs, double t_end) {
  if (!rs) return;
  pthread_mutex_lock(&rs->mu);
  rs->t_end = t_end;
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

int run_strings_write_obj(const run_strings *rs, FILE *f, int first_vertex) {
  int v = first_vertex;
  for (int k = 0; rs && k < rs->n; k++) {
    int n = drape_string_node_count(rs->s[k]);
    const double *r = drape_string_positions(rs->s[k]);
    fprintf(f, "o %s\n", rs->defs[k].name);
    for (int i = 0; i < n; i++)
      fprintf(f, "v %.9g %.9g %.9g\n", r[2 * i], r[2 * i + 1], rs->defs[k].z);
    fputs("l", f);
    for (int i = 0; i < n; i++) fprintf(f, " %d", v + i + 1);
    fputc('\n', f);
    v += n;
  }
  return ferror(f) ? -1 : 0;
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
  for (int k = 0; k < rs->n; k++) drape_string_destroy(rs->s[k]);
  free(rs->s);
  free(rs->defs);
  free(rs);
}
