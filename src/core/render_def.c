/* The render def's looks (drape/render_def.h): the colours of a scene's
 * objects, kept apart from the simulation (issue 14). */
#include <stdlib.h>
#include <string.h>

#include "drape/render_def.h"

/* Linear RGB defaults by kind: the drape scene's orange front and blue
 * back (two sides tell a fold apart), sand ropes, the seed 000 string's
 * amber. */
static const float CLOTH_FRONT[3] = {0.90f, 0.45f, 0.15f};
static const float CLOTH_BACK[3] = {0.20f, 0.40f, 0.85f};
static const float ROPE_RGB[3] = {0.85f, 0.80f, 0.70f};
static const float STRING_RGB[3] = {0.95f, 0.55f, 0.10f};

void drape_render_def_free(drape_render_def *d) {
  if (!d) return;
  free(d->looks);
  *d = drape_render_def_default();
}

int drape_render_def_copy(drape_render_def *dst, const drape_render_def *src, drape_err *e) {
  *dst = *src;
  dst->looks = NULL;
  dst->n_looks = 0;
  if (src->n_looks <= 0) return DRAPE_OK;
  dst->looks = malloc(sizeof *dst->looks * (size_t)src->n_looks);
  if (!dst->looks) {
    *dst = drape_render_def_default();
    return drape_fail(e, DRAPE_ENOMEM, "out of memory (render def)");
  }
  memcpy(dst->looks, src->looks, sizeof *dst->looks * (size_t)src->n_looks);
  dst->n_looks = src->n_looks;
  return DRAPE_OK;
}

static drape_object_look *find(const drape_render_def *d, drape_look_kind kind, int index) {
  for (int i = 0; d && i < d->n_looks; i++)
    if (d->looks[i].kind == kind && d->looks[i].index == index) return &d->looks[i];
  return NULL;
}

int drape_render_def_set_color(drape_render_def *d, drape_look_kind kind, int index,
                               const float front[3], const float back[3], drape_err *e) {
  if (index < 0 || (int)kind < 0 || kind > DRAPE_LOOK_STRING)
    return drape_fail(e, DRAPE_EINVAL, "render def colour: object kind %d index %d (kind: cloth, "
                      "rope or string; index >= 0)", (int)kind, index);
  drape_object_look *l = find(d, kind, index);
  if (!l) {
    drape_object_look *g = realloc(d->looks, sizeof *g * ((size_t)d->n_looks + 1));
    if (!g) return drape_fail(e, DRAPE_ENOMEM, "out of memory (render def)");
    d->looks = g;
    l = &d->looks[d->n_looks++];
    l->kind = kind;
    l->index = index;
  }
  memcpy(l->color_front, front, sizeof l->color_front);
  memcpy(l->color_back, back ? back : front, sizeof l->color_back);
  return DRAPE_OK;
}

void drape_render_def_color(const drape_render_def *d, drape_look_kind kind, int index,
                            float front[3], float back[3]) {
  const drape_object_look *l = find(d, kind, index);
  const float *f = l ? l->color_front : kind == DRAPE_LOOK_CLOTH ? CLOTH_FRONT
                                     : kind == DRAPE_LOOK_ROPE    ? ROPE_RGB
                                                                  : STRING_RGB;
  const float *b = l ? l->color_back : kind == DRAPE_LOOK_CLOTH ? CLOTH_BACK : f;
  memcpy(front, f, 3 * sizeof(float));
  memcpy(back, b, 3 * sizeof(float));
}
