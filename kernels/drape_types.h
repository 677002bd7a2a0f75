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
 *   p[i] = (position at the start of the substep xyz, unused w)
 *   v[i] = (velocity xyz, unused w)
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

/* A distance constraint |x_a - x_b| = rest (Macklin et al. 2016, eq. 13). */
typedef struct dr_distance {
  dr_int a, b;          /* particle indices                               */
  dr_float rest;        /* rest length in m                               */
  dr_float compliance;  /* alpha in m/N (inverse stiffness); 0 = rigid    */
} dr_distance;          /* 16 bytes */

/* Per-substep parameters, uploaded once per frame (they change only when
 * the user edits a parameter). */
typedef struct dr_step_params {
  dr_float4 gravity;    /* m/s^2, w unused                                */
  dr_float4 wind;       /* m/s air velocity, w = drag coefficient         */
  dr_float h;           /* substep length in s                            */
  dr_float damping;     /* velocity scale per substep, exp(-rate*h)       */
  dr_float floor_y;     /* floor height in m                              */
  dr_float floor_friction;
  dr_float thickness;   /* collision margin in m                          */
  dr_int has_floor;
  dr_int n_particles;
  dr_int n_spheres;
} dr_step_params;       /* 64 bytes */

/* A sphere collider: center and radius, velocity and friction. */
typedef struct dr_sphere {
  dr_float4 center_radius; /* xyz centre in m, w radius in m              */
  dr_float4 velocity_friction; /* xyz velocity in m/s, w Coulomb mu       */
} dr_sphere;                /* 32 bytes */

#endif
