/* The named cloth materials (drape_material_preset, drape/scene.h).
 *
 * Each preset is written in the units of the test that measures it (its
 * source's, where it has one), converted to SI by the macros below, so a
 * value can be checked against the paper it came from (docs/scenes.md
 * "Material presets" cites each source):
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
 *  - areal density given in kg/m^2 (as a cloth simulator's material file
 *    gives it) is written as it is.
 * Warp is the first of each pair. Only denim comes from published
 * measurements (two, named at it). Every other preset is an ESTIMATE: no
 * published measurement of its fabric class is cited for it, so its
 * values are order-of-magnitude figures on the KES-F scales for that
 * class, not any sample's, and not taken from a table (Kawabata's or
 * another's). docs/scenes.md "Material presets" marks them so; replace
 * one with a measured fabric's (all four quantities of one sample, or
 * named sources combined) where a scene depends on it. damping is -1
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
    /* ESTIMATE, no measured source: plain-weave cotton shirting
     * (broadcloth), about 120 g/m^2. */
    PRESET("cotton_shirting", MG_CM2(12.0), KES_EMT(3.0), KES_EMT(5.0), KES_G(1.0),
           KES_B(0.10), KES_B(0.07)),
    /* Denim, 3/1 twill, two measured sources combined. Stretch, shear and
     * bend: KES-F of Kumari & Khurana 2016, J. Textiles 2016:4614168,
     * table 5, fabric A (EMT 5.515 %, G 2.180, B 0.172: one value per
     * property, warp and weft not given apart). Density: the measured
     * "11oz black denim" of Wang, O'Brien & Ramamoorthi 2011 (their
     * measured-material database, 11oz-black-denim.json: 0.324 kg/m^2).
     * The W of that table 5 is not used: 104 mg/cm^2 (1.04 kg/m^2, about
     * 31 oz/yd^2) is three times a jeans denim's weight, so it is taken as
     * a misprint or another quantity. */
    PRESET("denim", 0.324, KES_EMT(5.515), KES_EMT(5.515), KES_G(2.18), KES_B(0.172),
           KES_B(0.172)),
    /* ESTIMATE, no measured source: silk crepe de chine / habotai, about
     * 60 g/m^2. */
    PRESET("silk", MG_CM2(6.0), KES_EMT(6.0), KES_EMT(8.0), KES_G(0.40), KES_B(0.030),
           KES_B(0.025)),
    /* ESTIMATE, no measured source: worsted wool suiting (the men's suit
     * class of the KES-F hand evaluation), about 240 g/m^2. */
    PRESET("wool_suiting", MG_CM2(24.0), KES_EMT(3.5), KES_EMT(6.0), KES_G(0.70), KES_B(0.10),
           KES_B(0.08)),
    /* ESTIMATE, no measured source: polyester single jersey (weft knit),
     * about 150 g/m^2: warp = wales (lengthwise), weft = courses, which
     * extend about twice as far. */
    PRESET("polyester_jersey", MG_CM2(15.0), KES_EMT(20.0), KES_EMT(40.0), KES_G(0.30),
           KES_B(0.030), KES_B(0.020)),
    /* ESTIMATE, no measured source: cotton canvas (duck), about
     * 400 g/m^2. */
    PRESET("canvas", MG_CM2(40.0), KES_EMT(2.0), KES_EMT(3.0), KES_G(4.0), KES_B(1.5),
           KES_B(1.0)),
    /* ESTIMATE, no measured source: chiffon (silk or polyester), about
     * 35 g/m^2. */
    PRESET("chiffon", MG_CM2(3.5), KES_EMT(8.0), KES_EMT(10.0), KES_G(0.15), KES_B(0.010),
           KES_B(0.008)),
    /* ESTIMATE, no measured source: garment leather (lamb / goat nappa),
     * about 0.9 mm, 700 g/m^2; no weave, so warp = weft. */
    PRESET("leather", MG_CM2(70.0), KES_EMT(8.0), KES_EMT(8.0), KES_G(6.0), KES_B(3.0),
           KES_B(3.0)),
    /* ESTIMATE, no measured source: plain-weave linen, about
     * 180 g/m^2. */
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
