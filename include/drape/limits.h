/* drape — every limit a definition is checked against, in one place.
 *
 * The validators (drape_scene_validate and the drape_*_def_validate
 * functions of drape/scene.h, drape_sim_params_validate of drape/cloth.h)
 * use these and nothing else; docs/scenes.md "Limits" lists the same
 * numbers, and tests/test_limits.c fails when the table, this header or a
 * validator disagree (so a limit changed in one place only fails).
 *
 * Two kinds of limit:
 *  - float limits (DRAPE_FLOAT_MIN, DRAPE_H_MIN, DRAPE_REL_SPACING_MIN, the
 *    self-collision ratios): the solver computes in float and its
 *    self-collision hash has a fixed budget, so below or beyond these it
 *    would produce NaN or lose contacts (issue 13);
 *  - sanity bounds (DRAPE_MAX_*): far outside any scene that could run,
 *    they catch a typo'd exponent or a unit slip (a missing e-3), not real
 *    scenes. A lower bound not listed here is 0 (> 0 or >= 0, as the
 *    table says) or the "at least" of the key.
 *
 * Integers are int, the others double. */
#ifndef DRAPE_LIMITS_H
#define DRAPE_LIMITS_H

/* ---- float limits ---------------------------------------------------- */
/* FLT_MIN, the smallest normal float: every mass, rest length, compliance,
 * thickness and radius the solver stores must be 0 (where 0 means off) or
 * at least this, else it underflows to 0 or a subnormal. */
#define DRAPE_FLOAT_MIN 1.1754943508222875e-38
/* s: smallest substep h = dt / substeps; the solver uses 1/h^2 in float,
 * which stays below FLT_MAX down to here. */
#define DRAPE_H_MIN 1e-19
/* A cloth's grid spacing and a rope's link rest length must be at least this
 * fraction of the largest coordinate the object starts at: 1e-5 of x is
 * ~84 float ulps of x, so neighbouring particles stay apart and rounding the
 * positions changes a rest length by about 1 % at most. */
#define DRAPE_REL_SPACING_MIN 1e-5

/* ---- scene ----------------------------------------------------------- */
#define DRAPE_MAX_COORD 1e6         /* m: any position or coordinate          */
#define DRAPE_MAX_GRAVITY 1000.0    /* m/s^2 per component (~100 g)           */
#define DRAPE_MAX_DT 1.0            /* s per frame                            */
#define DRAPE_MAX_SUBSTEPS 10000    /* per frame; h = dt / substeps           */
#define DRAPE_MAX_ITERATIONS 1000   /* constraint passes per substep          */
#define DRAPE_MAX_WIND 1000.0       /* m/s per component (3x the speed of sound) */
#define DRAPE_MAX_WIND_DRAG 1e4     /* N s/m^3 (air is 1.2)                   */
#define DRAPE_MAX_FRICTION 10.0     /* Coulomb mu: floor, spheres, self_friction */
#define DRAPE_MAX_FRAMES 10000000   /* the scene's default frame count        */
#define DRAPE_MIN_FOV_DEG 1.0       /* degrees, camera vertical field of view */
#define DRAPE_MAX_FOV_DEG 179.0
#define DRAPE_MIN_RENDER_SIZE 16    /* px per side                            */
#define DRAPE_MAX_RENDER_SIZE 8192  /* px per side (GL's usual texture limit) */
#define DRAPE_MAX_KEY_TIME 1e7      /* s: pin path keys, hand targets, release_at (115 days) */
/* bytes of a scene file: far beyond any hand-written scene; keeps a wrong
 * path (a video) from being read whole */
#define DRAPE_MAX_SCENE_FILE_BYTES (64LL << 20)

/* ---- cloth ----------------------------------------------------------- */
#define DRAPE_MIN_GRID 2            /* particles along a side (one cell)      */
#define DRAPE_MAX_GRID 8192         /* particles along a side                 */
#define DRAPE_MAX_PARTICLES (1 << 24) /* per cloth, 16 777 216: rows x cols  */
#define DRAPE_MAX_SPACING 100.0     /* m between neighbours                   */
#define DRAPE_MAX_MASS_PER_AREA 1e4 /* kg/m^2 (steel plate 1 m thick: 7850)   */
#define DRAPE_MAX_PARTICLE_MASS 1e6 /* kg                                     */
#define DRAPE_MAX_COMPLIANCE 1e6    /* m/N, XPBD alpha (cloth and rope)       */
#define DRAPE_MAX_DAMPING 1e6       /* 1/s (cloth and rope)                   */
#define DRAPE_MAX_THICKNESS 1.0     /* m, collision margin (cloth and rope)   */
#define DRAPE_MAX_TEAR_RATIO 100.0  /* stretch ratio at which a link breaks   */
#define DRAPE_MAX_STIFFNESS 1e12    /* N/m, springs solver (and bend_stiffness) */
#define DRAPE_MAX_SPRING_DAMPING 1e9 /* N s/m, springs solver                 */
/* A cloth material (cloth[].material): stretch and shear in N/m (a 1 mm
 * steel sheet, E t = 2e8; woven fabrics 1e3..3e4), bend in N m per unit
 * width (1 mm steel, E t^3 / 12 = 17; fabrics 1e-7..1e-3). */
#define DRAPE_MAX_MATERIAL_STIFFNESS 1e9
#define DRAPE_MAX_MATERIAL_BEND 1e3
/* Self-collision (src/cloth/selfcol.h explains the measurements): with
 * self_collision on, a cloth's thickness is at most DRAPE_SELFCOL_MAX_OWN x
 * its grid spacing (beyond it its own rest mesh is in contact), and the
 * hash cell, 2 x the largest colliding thickness, at most
 * DRAPE_SELFCOL_MAX_CELL_CLOTH x every colliding cloth's spacing and
 * DRAPE_SELFCOL_MAX_CELL_ROPE x every colliding rope's link rest length
 * (else a cell holds so many rest-mesh particles that the per-query caps
 * cut contacts). Compared in float, as the solver does. */
#define DRAPE_SELFCOL_MAX_OWN 0.5
#define DRAPE_SELFCOL_MAX_CELL_CLOTH 1.0
#define DRAPE_SELFCOL_MAX_CELL_ROPE 4.0

/* ---- rope ------------------------------------------------------------ */
#define DRAPE_MAX_ROPE_SEGMENTS 1000000 /* links                              */
#define DRAPE_MAX_ROPE_LENGTH 1e5   /* m                                      */
#define DRAPE_MAX_MASS_PER_LENGTH 1e6 /* kg/m                                 */
#define DRAPE_MAX_YM 1e12           /* implicit solver's ym (k = ym / l0^2)   */
/* A rope material (rope[].material): EA in N (a 10 cm steel bar: 1.6e9),
 * EI in N m^2 (the same bar: 1e6). */
#define DRAPE_MAX_ROPE_EA 1e10
#define DRAPE_MAX_ROPE_EI 1e7

/* ---- string (seed 000) ----------------------------------------------- */
#define DRAPE_MIN_STRING_NODES 2    /* links N                                */
#define DRAPE_MAX_STRING_NODES 100000
#define DRAPE_MAX_STRING_LENGTH 1e4 /* m, L0                                  */
#define DRAPE_MAX_STRING_MU 1e6     /* kg/m                                   */
#define DRAPE_MAX_STRING_MODULUS 1e12 /* EA N, etaA N s, B N m^2, D N m^2 s   */
/* s: the seed's tick is 1e-4 s; 0.01 s is far beyond what the string's
 * stiffness resolves (seed 000 §7.18: ell0 / c_axial ~ 3.5e-4 s). */
#define DRAPE_MAX_STRING_H 0.01

/* ---- sphere ---------------------------------------------------------- */
#define DRAPE_MAX_SPHERE_RADIUS 1e4 /* m (and a capsule's radius)             */
#define DRAPE_MAX_SPHERE_SPEED 1e4  /* m/s per velocity component             */
/* A cloth's starting velocity (cloth[].velocity), m/s per component: the
 * sphere's bound, far past what a substep's clamp lets self-collision see. */
#define DRAPE_MAX_CLOTH_SPEED 1e4

/* ---- capsules and mesh colliders (drape/collider.h) ------------------- */
/* Their ends, key translations and rotations are coordinates
 * (DRAPE_MAX_COORD), key times DRAPE_MAX_KEY_TIME, friction
 * DRAPE_MAX_FRICTION, a mesh's thickness DRAPE_MAX_THICKNESS, a capsule's
 * radius DRAPE_MAX_SPHERE_RADIUS. */
#define DRAPE_MAX_COLLIDER_TRIS (1 << 22) /* triangles of one mesh collider (4 194 304) */
#define DRAPE_MAX_COLLIDER_KEYS 1000000   /* keys of one capsule or collider  */
#define DRAPE_MAX_SEQUENCE_FRAMES 100000  /* files of one sequence read at most */
#define DRAPE_MAX_SEQUENCE_FPS 10000.0    /* sequence.fps, frames per second  */
#define DRAPE_MAX_SEQUENCE_FIRST 1000000000 /* sequence.first, the first file's number */

#endif
