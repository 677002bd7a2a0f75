/* The named cloth materials (drape_material_preset, drape/scene.h).
 *
 * Each preset is written in the units its source measured, converted to SI
 * by the macros below, so a value can be checked against the paper it came
 * from (docs/scenes.md "Material presets" cites each one):
 *  - KES-F (Kawabata evaluation system) tensile tester: EMT, the strain in
 *    % at 500 gf/cm. The stretch stiffness is the secant one to that load,
 *    490.3325 N/m / (EMT / 100): what a strip pulled along that direction
 *    gives per unit width and unit strain at the low loads cloth sees while
 *    it drapes (the curve stiffens beyond).
 *  - KES-F shear tester: G, gf/cm per degree of shear angle -> N/m per
 *    radian: x 0.980665 N/m / (pi / 180).
 *  - KES-F pure bending tester: B, gf cm^2/cm -> N m (bending moment per
 *    unit width per unit curvature): x 9.80665e-5.
 *  - areal density W, mg/cm^2 -> kg/m^2: x 0.01; g/m^2 -> kg/m^2: x 0.001.
 * Warp is the first of each pair. Only denim is one measured sample; the
 * others are typical values of their class on the KES-F scales (Kawabata
 * 1980, "The Standardization and Analysis of Hand Evaluation"), to be
 * replaced by a measured fabric's where one is wanted. damping is -1
 * everywhere: a preset says what the fabric is, not how much air or
 * numerical damping a scene wants, so the object's own "damping" applies. */
#include <stddef.h>
#include <string.h>

#include "drape/scene.h"

#define KES_EMT(emt_percent) (490.3325 / ((emt_percent) / 100.0))
#define KES_G(g) ((g) * 0.980665 / (3.14159265358979323846 / 180.0))
#define KES_B(b) ((b) * 9.80665e-5)
#define MG_CM2(w) ((w) * 0.01)

#define PRESET(nm, dens, s_warp, s_weft, sh, b_warp, b_weft) \
  {1, nm, (dens), {(s_warp), (s_weft)}, (sh), {(b_warp), (b_weft)}, -1.0}

static const drape_material_def PRESETS[] = {
    /* Plain-weave cotton shirting (broadcloth), about 120 g/m^2. */
    PRESET("cotton_shirting", MG_CM2(12.0), KES_EMT(3.0), KES_EMT(5.0), KES_G(1.0),
           KES_B(0.10), KES_B(0.07)),
    /* Denim, 3/1 twill: KES-F of Kumari & Khurana 2016, fabric A (EMT
     * 5.515 %, B 0.172, G 2.18, the means of warp and weft as published);
     * areal density of an 11 oz/yd^2 denim (373 g/m^2, the weight of Wang
     * et al. 2011's "11oz Black Denim"). */
    PRESET("denim", 0.373, KES_EMT(5.515), KES_EMT(5.515), KES_G(2.18), KES_B(0.172),
           KES_B(0.172)),
    /* Silk crepe de chine / habotai, about 60 g/m^2. */
    PRESET("silk", MG_CM2(6.0), KES_EMT(6.0), KES_EMT(8.0), KES_G(0.40), KES_B(0.030),
           KES_B(0.025)),
    /* Worsted wool suiting, about 240 g/m^2 (KES men's suiting class). */
    PRESET("wool_suiting", MG_CM2(24.0), KES_EMT(3.5), KES_EMT(6.0), KES_G(0.70), KES_B(0.10),
           KES_B(0.08)),
    /* Polyester single jersey (weft knit), about 150 g/m^2: warp = wales
     * (lengthwise), weft = courses, which extend about twice as far. */
    PRESET("polyester_jersey", MG_CM2(15.0), KES_EMT(20.0), KES_EMT(40.0), KES_G(0.30),
           KES_B(0.030), KES_B(0.020)),
    /* Cotton canvas (duck), about 400 g/m^2. */
    PRESET("canvas", MG_CM2(40.0), KES_EMT(2.0), KES_EMT(3.0), KES_G(4.0), KES_B(1.5),
           KES_B(1.0)),
    /* Chiffon (silk or polyester), about 35 g/m^2. */
    PRESET("chiffon", MG_CM2(3.5), KES_EMT(8.0), KES_EMT(10.0), KES_G(0.15), KES_B(0.010),
           KES_B(0.008)),
    /* Garment leather (lamb / goat nappa), about 0.9 mm, 700 g/m^2; no
     * weave, so warp = weft. */
    PRESET("leather", MG_CM2(70.0), KES_EMT(8.0), KES_EMT(8.0), KES_G(6.0), KES_B(3.0),
           KES_B(3.0)),
    /* Plain-weave linen, about 180 g/m^2. */
    PRESET("linen", MG_CM2(18.0), KES_EMT(2.5), KES_EMT(3.5), KES_G(1.5), KES_B(0.20),
           KES_B(0.15)),
};

#define N_PRESETS ((int)(sizeof PRESETS / sizeof PRESETS[0]))

int drape_material_preset_count(void) { return N_PRESETS; }

const drape_material_def *drape_material_preset_at(int k) {
  return k >= 0 && k < N_PRESETS ? &PRESETS[k] : NULL;
}

const drape_material_def *drape_material_preset(const char *name) {
  if (!name) return NULL;
  for (int k = 0; k < N_PRESETS; k++)
    if (strcmp(PRESETS[k].preset, name) == 0) return &PRESETS[k];
  return NULL;
}
