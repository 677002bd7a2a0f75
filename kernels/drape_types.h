/* drape_types.h — the one layout shared by C (host, CPU reference) and
 * OpenCL C (kernels). Every struct here is read by both sides, so its size
 * and field offsets are checked with static asserts in src/cl/layout_check.c.
 *
 * Rules that keep the two sides identical:
 *  - only 4-byte scalars and 16-byte float4 vectors; float4 fields first;
 *  - every struct is a multiple of 16 bytes;
 *  - no bool, no size_t, no pointers.
 *
 * Particle state is stored as separate arrays (structure of arrays), one
 * float4 per particle each, because every stage streams one or two of them:
 *   x[i] = (position xyz, inverse mass w)   w == 0 means pinned
 *   p[i] = (position at the start of the substep xyz, w copied from x)
 *   v[i] = (velocity xyz, unused w)
 *   n[i] = (unit vertex normal xyz, 0)      written once per frame
 * plus obj[i], the index of the object (cloth or rope) the particle belongs
 * to, which selects its row in the dr_object table.
 *
 * Constraints are dr_distance records sorted by colour; the tethers are two
 * plain arrays with K slots per particle (tether_pin, tether_rest).
 */
#ifndef DRAPE_TYPES_H
#define DRAPE_TYPES_H

#ifdef __OPENCL_VERSION__
/* No fused multiply-add contraction: kernels must compute the same
 * expressions as the CPU reference (compiled with -ffp-contract=off). */
#pragma OPENCL FP_CONTRACT OFF
typedef float4 dr_float4;
typedef float dr_float;
typedef int dr_int;
typedef uint dr_uint;
#else
#include <stdint.h>
/* Aligned like OpenCL's float4 so struct offsets agree on both sides. */
typedef struct { float x, y, z, w; } __attribute__((aligned(16))) dr_float4;
typedef float dr_float;
typedef int32_t dr_int;
typedef uint32_t dr_uint;
#endif

/* Constraint types; compliance is set per type in the scene. */
#define DR_C_STRETCH 0
#define DR_C_SHEAR 1
#define DR_C_BEND 2
#define DR_C_ROPE 3
#define DR_C_TETHER 4 /* unilateral: only pulls when farther than rest */

/* Object kinds (dr_object.kind). */
#define DR_OBJ_CLOTH 0
#define DR_OBJ_ROPE 1

/* Lagrange multiplier handling of one projection launch (Macklin et al.
 * 2016, eq. 18): with one iteration per substep lambda starts at 0 and is
 * never read again, so the buffer is neither read nor written. */
#define DR_LAMBDA_NONE 0  /* lambda = 0, not stored (iterations == 1)     */
#define DR_LAMBDA_FIRST 1 /* lambda = 0 before, store the new value      */
#define DR_LAMBDA_KEEP 2  /* read, update and store                      */

/* Constraints one work item of project_distance projects (float8 lanes);
 * the constraint and lambda buffers carry this many padding entries. */
#define DR_PROJECT_LANES 8
/* Dihedral constraints per work item in the vector form (dihedral.cl). */
#define DR_BEND_LANES 8
/* Entries the host appends to each constraint array (and lambda) so that
 * a colour's last, partial group reads inside the buffer. */
#define DR_PROJECT_PAD DR_PROJECT_LANES

/* How a work item of project_distance fetches its particles (one byte per
 * group of DR_PROJECT_LANES constraints; src/core/colour.c): */
#define DR_GROUP_GATHER 0  /* 16 indexed loads                            */
#define DR_GROUP_CONTIG 1  /* a = a0 + L, b = b0 + L: two runs of 8         */
#define DR_GROUP_EVENODD 2 /* a = a0 + 2L, b = a + 1: a run of 16           */
#define DR_GROUP_PAIRS 3   /* a = a0 + (0,1,4,5,8,9,12,13), b = a + 2: 16   */

/* A distance constraint |x_a - x_b| = rest (Macklin et al. 2016, eq. 13).
 * A negative compliance marks a constraint torn for good (seed 002 §3).
 * A negative rest marks a tension-only link (a rope with tension_only,
 * docs/solver.md "Tension-only links"): its rest length is |rest|, and
 * while it is shorter than that (C < 0) the projection skips it and sets
 * its lambda to 0, so it pulls but never pushes. Why the sign bit and not
 * a flag array: the four constraint arrays every kernel form already loads
 * carry it, and no rest length is 0 or negative otherwise. */
typedef struct dr_distance {
  dr_int a, b;          /* particle indices                               */
  dr_float rest;        /* rest length in m; < 0: tension-only, |rest|    */
  dr_float compliance;  /* alpha in m/N (inverse stiffness); 0 = rigid    */
} dr_distance;          /* 16 bytes */

/* A dihedral bending constraint of a mesh cloth (kernels/dihedral.cl):
 * triangles (a, b, c) and (b, a, d) share the edge a-b; the signed angle
 * between them is held at `rest` (rad) with XPBD compliance `compliance`
 * (1/(N m): rad^2 per joule). Coloured and launched apart from the
 * distance constraints (dr_model.bend). */
typedef struct dr_dihedral {
  dr_int a, b;          /* the shared edge                                */
  dr_int c, d;          /* the corners opposite it                        */
  dr_float rest;        /* rest angle in rad, in [-pi, pi]                */
  dr_float compliance;  /* alpha in 1/(N m)                               */
  dr_int edge;          /* (sorted) index of the edge's stretch link: the
                           constraint stops when it tears; -1: none       */
  dr_float weight;      /* compliance / compliance.bend: the hinge's share
                           (A1 + A2) / (3 |e|^2), so that an edit of
                           compliance.bend reaches it (0: no hinge)       */
} dr_dihedral;          /* 32 bytes */

/* A membrane triangle of a material cloth (kernels/membrane.cl): the
 * constant-strain triangle's warp strain, weft strain and shear, three
 * XPBD constraints projected one after the other in one work item. With
 * f_u = sum_i cu_i x_i and f_v = sum_i cv_i x_i the deformed warp and weft
 * tangents (unit length at rest; cu_a = -(cu_b + cu_c), likewise cv):
 *   C_u = |f_u| - 1,  C_v = |f_v| - 1,  C_s = (f_u/|f_u|) . (f_v/|f_v|)
 * with compliance 1/(A k) each (A the rest area, k the stretch or shear
 * stiffness in N/m), so the energy is A (k_u C_u^2 + k_v C_v^2 + G C_s^2)/2,
 * the material's, on any triangle. */
typedef struct dr_membrane {
  dr_int a, b, c;       /* corners                                        */
  dr_int pad;
  dr_float cub, cuc;    /* f_u = cub (x_b - x_a) + cuc (x_c - x_a)        */
  dr_float cvb, cvc;    /* f_v = cvb (x_b - x_a) + cvc (x_c - x_a)        */
  dr_float comp_u;      /* compliance of C_u, 1/(A k_warp) in 1/N         */
  dr_float comp_v;      /* of C_v, 1/(A k_weft)                           */
  dr_float comp_s;      /* of C_s, 1/(A G)                                */
  dr_float tension_only; /* 1 on coarse levels: C_u, C_v act only when
                            > 0, C_s only while C_u or C_v is (membrane.cl,
                            "Multilevel"); 0 on the cloth's own         */
} dr_membrane;          /* 48 bytes */

/* A rope's bending at its interior node b (membrane.cl, "Rope bending"):
 * the difference of the unit-rest tangents around b,
 *   C = (x_c - x_b) / l1 - (x_b - x_a) / l0   (three components),
 * with compliance (l0 + l1) / (2 EI) each, so that the energy is the rod's
 * EI kappa^2 / 2 per length for a small turning angle |C|. */
typedef struct dr_rod_bend {
  dr_int a, b, c, pad;
  dr_float il0, il1;    /* 1 / l0, 1 / l1: the links' rest lengths, 1/m   */
  dr_float compliance;  /* 1 / (N m^2 / m): (l0 + l1) / (2 EI)            */
  dr_float pad1;
} dr_rod_bend;          /* 32 bytes */

/* Multilevel material cloths (membrane.cl, "Multilevel"): particle i,
 * which a level drops, moves by wa, wb, wc times the displacements of a,
 * b, c, the corners of the coarse triangle nearest its rest place. */
typedef struct dr_prolong {
  dr_int i, a, b, c;
  dr_float wa, wb, wc;
  dr_int pad;
} dr_prolong;           /* 32 bytes */

/* A membrane's multipliers start as f times its parent's (the coarse
 * triangle around it one level up); parent -1: at 0. */
typedef struct dr_memb_up {
  dr_int parent;
  dr_float f;
} dr_memb_up;           /* 8 bytes */

/* Per-substep parameters, set as a kernel argument once per frame (they
 * change only when the user edits a parameter). */
typedef struct dr_step_params {
  dr_float4 gravity;    /* m/s^2, w unused                                */
  dr_float4 wind;       /* xyz m/s air velocity, w drag in N s/m^3        */
  dr_float h;           /* substep length in s                            */
  dr_float inv_h;       /* 1/h, so update_velocities multiplies            */
  dr_float inv_h2;      /* 1/h^2: alpha~ = alpha/h^2 (XPBD eq. 4)          */
  dr_float floor_y;     /* floor height in m                              */
  dr_float floor_friction; /* Coulomb mu of the floor                     */
  dr_int has_floor;
  dr_int n_particles;
  dr_int n_spheres;
} dr_step_params;       /* 64 bytes */

/* Per-object material, one row per cloth or rope. */
typedef struct dr_object {
  dr_float damping;     /* velocity factor per substep, exp(-rate h)      */
  dr_float thickness;   /* collision margin in m                          */
  dr_float tear_ratio;  /* tear above ratio * rest; 0 = never             */
  dr_int kind;          /* DR_OBJ_CLOTH or DR_OBJ_ROPE                    */
} dr_object;            /* 16 bytes */

/* A sphere collider. Its centre moves linearly: c(t) = center + velocity t,
 * with t measured from the start of the current frame. */
typedef struct dr_sphere {
  dr_float4 center_radius; /* xyz centre at frame start in m, w radius m  */
  dr_float4 velocity_friction; /* xyz velocity in m/s, w Coulomb mu       */
} dr_sphere;                /* 32 bytes */

/* A kinematic particle (moving pin or mouse grab): inverse mass 0, moved
 * linearly from `from` (frame start) to `to` (frame end) over the substeps. */
typedef struct dr_kinematic {
  dr_float4 from;       /* xyz m at the frame start                       */
  dr_float4 to;         /* xyz m at the frame end                         */
  dr_int particle;
  dr_int pad0, pad1, pad2;
} dr_kinematic;         /* 48 bytes */

/* Particles per work item in collide, tethers and update_fused (predict,
 * update and normals do one each: alone they only stream memory, and
 * measured slower in this form); the device particle arrays are padded to
 * a multiple of this with pinned dummy particles that nothing references. */
#define DR_PARTICLE_LANES 8

/* Stages folded into update_fused (kernels/update.cl), as flag bits. */
#define DR_FUSE_TETHERS 1
#define DR_FUSE_COLLIDE 2
#define DR_FUSE_PREDICT 4
/* Not a stage: the finiteness check of the frame's last substep (below). */
#define DR_FUSE_CHECK 8

/* The finiteness check. The last velocity update of each frame (update.cl:
 * update_velocities, or update_fused with DR_FUSE_CHECK) looks at every
 * particle's new position and velocity it already holds in registers, and
 * when one is NaN or infinite lowers a status word to the lowest such
 * particle index with atomic_min (deterministic whatever the order of the
 * work items). The word starts at DR_NO_PARTICLE; the host reads it once per
 * frame, before any output, and stops the run when it is lower. */
#define DR_NO_PARTICLE 0x7fffffff
/* The check also stops a particle carried beyond +-DR_MAX_COORD m (a
 * collider keyed a thousand kilometres in one frame): float positions
 * there are 0.125 m apart, and the scene's own limit is this
 * (DRAPE_MAX_COORD, checked equal in src/cl/layout_check.c). */
#define DR_MAX_COORD 1.0e6f

#ifdef __OPENCL_VERSION__
/* Eight consecutive float4 (particles i0 .. i0+7) as four float8 lanes and
 * back. Why: PoCL does not vectorise across work items that use float4, so
 * compute-heavy kernels do 8 particles at a time with explicit float8
 * arithmetic; each lane computes exactly the scalar expression of the CPU
 * reference. */
#define DR_LOAD8(ptr, i0, X, Y, Z, W)                                           \
  do {                                                                          \
    const float16 lo_ = vload16(0, (__global const float *)((ptr) + (i0)));    \
    const float16 hi_ = vload16(1, (__global const float *)((ptr) + (i0)));    \
    X = (float8)(lo_.s048c, hi_.s048c);                                         \
    Y = (float8)(lo_.s159d, hi_.s159d);                                         \
    Z = (float8)(lo_.s26ae, hi_.s26ae);                                         \
    W = (float8)(lo_.s37bf, hi_.s37bf);                                         \
  } while (0)
/* Columns X, Y, Z, W (lanes 0-7) back to two float16 of four float4 each. */
#define DR_COLUMNS_TO_AOS(X, Y, Z, W, A0, A1)                                          \
  do {                                                                                 \
    A0 = (float16)(X.s0, Y.s0, Z.s0, W.s0, X.s1, Y.s1, Z.s1, W.s1, X.s2, Y.s2, Z.s2,     \
                   W.s2, X.s3, Y.s3, Z.s3, W.s3);                                      \
    A1 = (float16)(X.s4, Y.s4, Z.s4, W.s4, X.s5, Y.s5, Z.s5, W.s5, X.s6, Y.s6, Z.s6,     \
                   W.s6, X.s7, Y.s7, Z.s7, W.s7);                                      \
  } while (0)
#define DR_STORE8(ptr, i0, X, Y, Z, W)                                          \
  do {                                                                          \
    float16 a0_, a1_;                                                           \
    DR_COLUMNS_TO_AOS(X, Y, Z, W, a0_, a1_);                                    \
    vstore16(a0_, 0, (__global float *)((ptr) + (i0)));                         \
    vstore16(a1_, 1, (__global float *)((ptr) + (i0)));                         \
  } while (0)
/* Per-object value `field` of particles i0 .. i0+7 from their object ids o
 * (int8); one load when they share an object, as they mostly do. */
#define DR_OBJECT_FIELD8(o, objects, field)                                            \
  (all(o == o.s0) ? (float8)(objects[o.s0].field)                                      \
                  : (float8)(objects[o.s0].field, objects[o.s1].field, objects[o.s2].field, \
                             objects[o.s3].field, objects[o.s4].field, objects[o.s5].field, \
                             objects[o.s6].field, objects[o.s7].field))
#define DR_LANES8(F) F(0) F(1) F(2) F(3) F(4) F(5) F(6) F(7)
/* The float4 particles at the eight indices of I (int8), gathered and
 * split into x, y, z, w columns X, Y, Z, W (declared here) by one
 * two-source permute each: the vector forms of the hinge and membrane
 * kernels (dihedral.cl, membrane.cl), whose items' particles are seldom
 * consecutive. */
#define DR_GATHER8(x, I, X, Y, Z, W)                                                              \
  float8 X, Y, Z, W;                                                                             \
  {                                                                                              \
    const float16 p0_ = (float16)(x[I.s0], x[I.s1], x[I.s2], x[I.s3]);                           \
    const float16 p1_ = (float16)(x[I.s4], x[I.s5], x[I.s6], x[I.s7]);                           \
    X = (float8)(p0_.s048c, p1_.s048c), Y = (float8)(p0_.s159d, p1_.s159d);                      \
    Z = (float8)(p0_.s26ae, p1_.s26ae), W = (float8)(p0_.s37bf, p1_.s37bf);                      \
  }

/* Four float4 in a float16 ("AoS lanes"): arithmetic on the particles as
 * stored, with one value per particle packed into a float8 only where it
 * needs sqrt or a division (project.cl explains why).
 * DR_XYZ_MASK clears each w lane (as_int16 & mask); DR_SUM3(e) puts
 * (e.x + e.y) + e.z, the scalar evaluation order, into each x lane;
 * DR_SPREAD_LO/HI copy lanes 0-3 / 4-7 of a vector of 8 to four lanes each. */
#define DR_XYZ_MASK (int16)(-1, -1, -1, 0, -1, -1, -1, 0, -1, -1, -1, 0, -1, -1, -1, 0)
#define DR_SUM3(e) (((e) + (e).s123056749ab8defc) + (e).s23016745ab89efcd)
#define DR_SPREAD_LO(v) ((v).s0000111122223333)
#define DR_SPREAD_HI(v) ((v).s4444555566667777)
#endif

#endif
