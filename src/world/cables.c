/* Implicit ropes in the frame loop: see run_cables.h. */
#include "world/cables.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/model.h"
#include "drape/cable.h"

typedef struct one_cable {
  char name[DRAPE_NAME_MAX];
  int scene_index;     /* rope[i] of the scene                          */
  int nodes;
  double rest;         /* m per link                                    */
  int substeps;
  double *x0;          /* nodes x 3                                     */
  int pins[2], n_pins;
  drape_cable_def def;
  drape_cable *cable;
} one_cable;

struct run_cables {
  int n;
  one_cable *c;
  drape_rope_def *kept; /* the non-implicit ropes, for the sim's scene view */
};

int run_cables_count(const run_cables *c) { return c ? c->n : 0; }
const char *run_cables_name(const run_cables *c, int k) { return c->c[k].name; }
int run_cables_nodes(const run_cables *c, int k) { return c->c[k].nodes; }
drape_cable *run_cables_cable(run_cables *c, int k) { return c->c[k].cable; }
int run_cables_scene_index(const run_cables *c, int k) { return c->c[k].scene_index; }

void run_cables_free(run_cables *c) {
  if (!c) return;
  for (int i = 0; i < c->n; i++) {
    drape_cable_destroy(c->c[i].cable);
    free(c->c[i].x0);
  }
  free(c->c);
  free(c->kept);
  free(c);
}

int run_cables_prepare(const drape_scene *sc, run_cables **out, drape_scene *view, drape_err *e) {
  *out = NULL;
  *view = *sc;
  run_cables *rc = calloc(1, sizeof *rc);
  int n_impl = 0;
  for (int i = 0; i < sc->n_rope; i++) n_impl += sc->rope[i].solver == DRAPE_SOLVER_IMPLICIT;
  if (rc) {
    rc->c = calloc((size_t)n_impl + 1, sizeof *rc->c);
    rc->kept = calloc((size_t)(sc->n_rope - n_impl) + 1, sizeof *rc->kept);
  }
  if (!rc || !rc->c || !rc->kept) {
    run_cables_free(rc);
    return drape_fail(e, DRAPE_ENOMEM, "out of memory");
  }
  int kept = 0;
  const double h = sc->dt / (sc->substeps > 0 ? sc->substeps : 1);
  for (int i = 0; i < sc->n_rope; i++) {
    const drape_rope_def *r = &sc->rope[i];
    if (r->solver != DRAPE_SOLVER_IMPLICIT) {
      rc->kept[kept++] = *r;
      continue;
    }
    one_cable *c = &rc->c[rc->n++];
    if (r->name[0]) snprintf(c->name, sizeof c->name, "%s", r->name);
    else snprintf(c->name, sizeof c->name, "rope%d", i);
    c->scene_index = i;
    c->nodes = r->segments + 1;
    c->rest = r->length / r->segments;
    c->substeps = sc->substeps > 0 ? sc->substeps : 1;
    c->x0 = malloc(sizeof *c->x0 * 3 * (size_t)c->nodes);
    if (!c->x0) {
      run_cables_free(rc);
      return drape_fail(e, DRAPE_ENOMEM, "out of memory (rope[%d]: %d nodes)", i, c->nodes);
    }
    /* the start shape of every rope (core/model.h); tension_only does not
     * apply: the cable's springs are seed 003's (docs/strings.md) */
    dr_rope_start(r, i, sc->gravity, c->x0);
    if (r->pin_start) c->pins[c->n_pins++] = 0;
    if (r->pin_end) c->pins[c->n_pins++] = r->segments;
    drape_cable_def d = drape_cable_def_default();
    d.nodes = c->nodes;
    d.dim = 3;
    d.x0 = c->x0;
    d.rest_length = c->rest;
    d.ym = r->ym;
    d.rho = r->mass_per_length;
    memcpy(d.gravity, sc->gravity, sizeof d.gravity);
    d.h = h;
    d.integrator = DRAPE_CABLE_BACKWARD_EULER;
    d.n_pins = c->n_pins;
    d.pins = c->pins;
    c->def = d;
    drape_err ce = {0};
    int crc = drape_cable_create(&c->def, &c->cable, &ce);
    if (crc) {
      int code = ce.code ? ce.code : crc;
      run_cables_free(rc);
      return drape_fail(e, code, "rope[%d] (\"implicit\", seed 003 cable): %s", i, ce.msg);
    }
  }
  view->rope = rc->kept;
  view->n_rope = kept;
  *out = rc;
  return DRAPE_OK;
}

int run_cables_reset(run_cables *rc, drape_err *e) {
  for (int i = 0; rc && i < rc->n; i++) {
    one_cable *c = &rc->c[i];
    drape_cable_destroy(c->cable);
    drape_err ce = {0};
    int crc = drape_cable_create(&c->def, &c->cable, &ce);
    if (crc) return drape_fail(e, crc, "rope \"%s\": %s", c->name, ce.msg);
  }
  return DRAPE_OK;
}

/* `rope "NAME" (implicit cable) diverged at frame F (t = T s): DETAIL`,
 * the form every solver's divergence takes (issue 13), T the frame's end. */
static int diverged(const one_cable *c, int frame, int code, const char *detail, drape_err *e) {
  const char *prefix = "cable diverged: ";
  if (!strncmp(detail, prefix, strlen(prefix))) detail += strlen(prefix);
  return drape_fail(e, code ? code : DRAPE_EUNSTABLE,
                    "rope \"%s\" (implicit cable, rope[%d]) diverged at frame %d (t = %.6g s): %s",
                    c->name, c->scene_index, frame, frame * c->substeps * c->def.h, detail);
}

int run_cables_step(run_cables *rc, int frame, drape_err *e) {
  for (int i = 0; rc && i < rc->n; i++) {
    one_cable *c = &rc->c[i];
    for (int s = 0; s < c->substeps; s++) {
      drape_err ce = {0};
      int r = drape_cable_step(c->cable, &ce);
      if (r) return diverged(c, frame, r, ce.msg, e);
    }
    /* Every frame, before any output reads it: the whole state finite. The
     * step checks this too; this is the frame's own guarantee. */
    const double *x = drape_cable_positions(c->cable), *v = drape_cable_velocities(c->cable);
    for (int j = 0; j < c->nodes; j++)
      for (int pass = 0; pass < 2; pass++) {
        const double *q = (pass ? v : x) + 3 * j;
        if (isfinite(q[0]) && isfinite(q[1]) && isfinite(q[2])) continue;
        char d[200];
        snprintf(d, sizeof d, "node %d %s = (%g, %g, %g)", j, pass ? "velocity" : "position", q[0],
                 q[1], q[2]);
        return diverged(c, frame, DRAPE_EUNSTABLE, d, e);
      }
  }
  return DRAPE_OK;
}

void run_cables_stats(const run_cables *rc, int k, run_cable_stats *o) {
  const one_cable *c = &rc->c[k];
  const double *x = drape_cable_positions(c->cable);
  memset(o, 0, sizeof *o);
  double mx = -INFINITY, mn = INFINITY, sum = 0, sum_abs = 0;
  for (int j = 0; j + 1 < c->nodes; j++) {
    double dx = x[3 * j + 3] - x[3 * j], dy = x[3 * j + 4] - x[3 * j + 1],
           dz = x[3 * j + 5] - x[3 * j + 2];
    double s = sqrt(dx * dx + dy * dy + dz * dz) / c->rest - 1.0;
    mx = fmax(mx, s);
    mn = fmin(mn, s);
    sum += s > 0 ? s : 0;
    sum_abs += fabs(s);
  }
  int links = c->nodes - 1;
  o->max_strain = mx;
  o->min_strain = mn;
  o->mean_strain = sum / links;
  o->mean_abs_strain = sum_abs / links;
  o->sag = -drape_cable_sag(c->cable);
  drape_cable_energy en = drape_cable_energies(c->cable);
  o->kinetic = en.kinetic;
  o->elastic = en.elastic;
  o->gravity = en.gravity;
  o->newton = drape_cable_last_iterations(c->cable);
}

