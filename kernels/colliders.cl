/* colliders.cl — capsule and triangle-mesh colliders (docs/solver.md,
 * "Capsules and mesh colliders"), for cloth particles and rope nodes, once
 * per substep after self-collision and before the sphere/floor contacts.
 *
 * One source for the device and the CPU reference: src/cloth/colliders.c
 * includes this file as C (with __global and __kernel defined away and
 * sqrt as sqrtf), so the reference runs the very expressions the kernels
 * run; the kernels at the end are the only OpenCL-only part. Scalar code,
 * explicit component sums in a fixed order, float literals only, no FMA
 * contraction (drape_types.h): the vector form (DR_PARTICLE_LANES
 * particles per work item, colliders) and the GPU form (one per work
 * item, colliders_g) call the same colliders1 and give the reference's
 * bits.
 *
 * The colliders move over a frame: the host gives each capsule's ends and
 * each mesh vertex at the frame start and at the frame end; at time t in
 * the frame a point is the linear blend at alpha = t / dt. A substep ends
 * at t_end and starts at t_end - h.
 *
 * The contact rule is the sphere's (collide.cl: Macklin et al. 2014, §6.1,
 * position-level Coulomb friction against the surface's own motion over the
 * substep), with a continuous part so a fast collider cannot jump over a
 * particle (after Bridson, Fedkiw and Anderson 2002, "Robust treatment of
 * collisions, contact and friction for cloth animation", §4: the particle
 * and the triangle both move linearly over the step; we keep their
 * linearised test: the signed distance to the triangle's plane at the start
 * and at the end, and the crossing point inside the triangle at the time of
 * the sign change). */

#ifndef __OPENCL_VERSION__
#define __global
#define __kernel
#define DRC_SQRT sqrtf
#define DRC_FLOOR floorf
#else
#define DRC_SQRT sqrt
#define DRC_FLOOR floor
#endif

/* A capsule: the segment a-b swept by a sphere of radius r. */
typedef struct dr_capsule {
  dr_float4 a0;  /* xyz end a at the frame start in m, w radius m          */
  dr_float4 b0;  /* xyz end b at the frame start in m, w Coulomb mu         */
  dr_float4 a1;  /* xyz end a at the frame end, w unused                    */
  dr_float4 b1;  /* xyz end b at the frame end, w unused                    */
} dr_capsule;    /* 64 bytes */

/* A node of a mesh collider's bounding volume hierarchy. The topology is
 * built once on the host (median splits); the bounds are refitted on the
 * device whenever the collider moves (bvh_refit, one launch per level,
 * deepest first) and hold the triangles over the whole frame. */
typedef struct dr_bvh_node {
  dr_float4 lo, hi; /* xyz bounds in m (w unused)                          */
  dr_int left;      /* first child (the second is left + 1); -1: a leaf    */
  dr_int first;     /* leaf: its triangles are [first, first + count)     */
  dr_int count;
  dr_int pad;
} dr_bvh_node;      /* 48 bytes */

/* A collider triangle: vertex indices into the vertex arrays, and its mesh. */
typedef struct dr_col_tri {
  dr_int a, b, c, mesh;
} dr_col_tri;       /* 16 bytes */

/* A mesh collider. */
typedef struct dr_mesh_col {
  dr_float friction;  /* Coulomb mu                                        */
  dr_float thickness; /* m: the collider's own margin                      */
  dr_int root;        /* its root node                                     */
  dr_int flags;       /* DR_MESH_CLOSED | DR_MESH_MOVING                   */
} dr_mesh_col;        /* 16 bytes */

/* Every edge has two triangles, so the mesh has an inside: a particle found
 * behind a face is pushed out through it (else a two-sided sheet). */
#define DR_MESH_CLOSED 1
/* The mesh moves this frame (v0 != v1); a static one skips the start pose. */
#define DR_MESH_MOVING 2

/* The sharp collider vertices of this frame in a uniform grid (built on
 * the host each frame they move): cell (i, j, k) holds the vertices whose
 * frame-start position falls in it, cells[c] .. cells[c + 1] in the sorted
 * list; a cloth triangle looks at the cells its box, grown by `reach` (the
 * largest contact distance plus the largest vertex motion over the frame),
 * overlaps. */
typedef struct dr_vt_grid {
  dr_float4 origin;   /* xyz the grid's corner in m, w the cell size in m  */
  dr_float4 top;      /* xyz the vertices' largest coordinates in m        */
  dr_int nx, ny, nz;
  dr_float reach;     /* m                                                 */
  dr_float ext;       /* m: reach plus the widest cloth triangle allowed
                         (vt_particle1's cull)                             */
  dr_float inv_fine;  /* 1 / the cull's cell size (ext)                    */
  dr_float inv_cell;  /* 1 / the grid's cell size (origin.w)               */
  dr_int pad2;
} dr_vt_grid;         /* 64 bytes */

/* The cull's cells (vt_particle1): a bit per hashed cell of size ext,
 * set for every cell that meets a sharp vertex's box grown by ext (the
 * hash of Teschner et al. 2003, "Optimized spatial hashing for collision
 * detection of deformable objects"; a collision only lets a far particle
 * through to the exact tests). */
#define DR_VT_BITS_LOG2 15
static inline dr_uint drc_vt_hash(const int ix, const int iy, const int iz) {
  return (((dr_uint)ix * 73856093u) ^ ((dr_uint)iy * 19349663u) ^ ((dr_uint)iz * 83492791u)) &
         ((1u << DR_VT_BITS_LOG2) - 1u);
}
static inline int drc_vt_fine(const float x, const float o, const float inv) {
  return (int)DRC_FLOOR((x - o) * inv);
}

/* Per-frame parameters of the stage. */
typedef struct dr_col_params {
  dr_float inv_dt;    /* 1 / frame length                                  */
  dr_float h;         /* substep length in s                               */
  dr_int n_particles;
  dr_int n_capsules;
  dr_int n_meshes;
  dr_int n_sharp;     /* sharp collider vertices (vertex-triangle pass)    */
  dr_int n_tris;      /* cloth triangles                                   */
  dr_int rebuild;     /* 1: the colliders moved, every candidate list is
                         rebuilt at this substep (drc_cand_update)         */
  dr_float max_thickness; /* m: the largest mesh collider thickness       */
  dr_int stamp;       /* this substep's number (from 1, wrapping): a
                         vertex-triangle correction written under it is
                         this substep's (vt_particle1)                     */
  dr_int planes;      /* 1: near particles get contact planes too (drc_cand;
                         DRAPE_COLLIDER_PLANES=0: only touching ones)      */
  dr_int pad3;
} dr_col_params;      /* 48 bytes */

/* Triangles per BVH leaf and the traversal stack (depth of a median-split
 * tree of 2^24 leaves is 24; the stack holds one pending sibling a level). */
#define DR_BVH_LEAF 4
#define DR_BVH_STACK 48

typedef struct drc_v3 {
  float x, y, z;
} drc_v3;

static inline drc_v3 drc_v(const float x, const float y, const float z) {
  drc_v3 r;
  r.x = x;
  r.y = y;
  r.z = z;
  return r;
}
static inline drc_v3 drc_xyz(const dr_float4 a) { return drc_v(a.x, a.y, a.z); }
static inline drc_v3 drc_add(const drc_v3 a, const drc_v3 b) {
  return drc_v(a.x + b.x, a.y + b.y, a.z + b.z);
}
static inline drc_v3 drc_sub(const drc_v3 a, const drc_v3 b) {
  return drc_v(a.x - b.x, a.y - b.y, a.z - b.z);
}
static inline drc_v3 drc_mul(const drc_v3 a, const float s) {
  return drc_v(a.x * s, a.y * s, a.z * s);
}
static inline float drc_dot(const drc_v3 a, const drc_v3 b) {
  return a.x * b.x + a.y * b.y + a.z * b.z;
}
static inline drc_v3 drc_cross(const drc_v3 a, const drc_v3 b) {
  return drc_v(a.y * b.z - a.z * b.y, a.z * b.x - a.x * b.z, a.x * b.y - a.y * b.x);
}
/* a + (b - a) alpha: a point of a linear motion */
static inline drc_v3 drc_lerp(const drc_v3 a, const drc_v3 b, const float alpha) {
  return drc_add(a, drc_mul(drc_sub(b, a), alpha));
}
static inline float drc_clamp01(const float t) { return t < 0.0f ? 0.0f : t > 1.0f ? 1.0f : t; }
static inline float drc_min2(const float a, const float b) { return a < b ? a : b; }
static inline float drc_max2(const float a, const float b) { return a > b ? a : b; }
static inline float drc_min6(const float a, const float b, const float c, const float d,
                             const float e, const float f) {
  return drc_min2(drc_min2(drc_min2(a, b), drc_min2(c, d)), drc_min2(e, f));
}
static inline float drc_max6(const float a, const float b, const float c, const float d,
                             const float e, const float f) {
  return drc_max2(drc_max2(drc_max2(a, b), drc_max2(c, d)), drc_max2(e, f));
}

/* Squared distance from x to the box lo..hi (0 inside it). */
static inline float drc_box_d2(const drc_v3 x, const drc_v3 lo, const drc_v3 hi) {
  const float dx = drc_max2(drc_max2(lo.x - x.x, x.x - hi.x), 0.0f);
  const float dy = drc_max2(drc_max2(lo.y - x.y, x.y - hi.y), 0.0f);
  const float dz = drc_max2(drc_max2(lo.z - x.z, x.z - hi.z), 0.0f);
  return (dx * dx + dy * dy) + dz * dz;
}

/* The particle's motion over the substep p -> x, its largest component. */
static inline float drc_motion(const drc_v3 x, const drc_v3 p) {
  const drc_v3 d = drc_sub(x, p);
  return drc_max2(drc_max2(d.x < 0.0f ? -d.x : d.x, d.y < 0.0f ? -d.y : d.y),
                  d.z < 0.0f ? -d.z : d.z);
}

/* Parameter in [0, 1] of the point of segment a + (b - a) s nearest q. */
static inline float drc_seg_param(const drc_v3 q, const drc_v3 a, const drc_v3 b) {
  const drc_v3 ab = drc_sub(b, a);
  const float l2 = drc_dot(ab, ab);
  return l2 > 0.0f ? drc_clamp01(drc_dot(drc_sub(q, a), ab) / l2) : 0.0f;
}

/* Squared distance between segments p0-p1 and q0-q1 (Ericson, "Real-Time
 * Collision Detection", 2005, §5.1.9, with its clamping order). */
static inline float drc_seg_seg2(const drc_v3 p0, const drc_v3 p1, const drc_v3 q0,
                                 const drc_v3 q1) {
  const drc_v3 d1 = drc_sub(p1, p0), d2 = drc_sub(q1, q0), r = drc_sub(p0, q0);
  const float a = drc_dot(d1, d1), e = drc_dot(d2, d2), f = drc_dot(d2, r);
  float s = 0.0f, t = 0.0f;
  if (a <= 0.0f && e <= 0.0f) {
    s = 0.0f;
    t = 0.0f;
  } else if (a <= 0.0f) {
    t = drc_clamp01(f / e);
  } else {
    const float c = drc_dot(d1, r);
    if (e <= 0.0f) {
      s = drc_clamp01(-c / a);
    } else {
      const float b = drc_dot(d1, d2);
      const float den = a * e - b * b;
      s = den > 0.0f ? drc_clamp01((b * f - c * e) / den) : 0.0f;
      t = (b * s + f) / e;
      if (t < 0.0f) {
        t = 0.0f;
        s = drc_clamp01(-c / a);
      } else if (t > 1.0f) {
        t = 1.0f;
        s = drc_clamp01((b - c) / a);
      }
    }
  }
  const drc_v3 g = drc_sub(drc_add(p0, drc_mul(d1, s)), drc_add(q0, drc_mul(d2, t)));
  return drc_dot(g, g);
}

/* Closest point to q on triangle a b c (Ericson §5.1.5, Voronoi regions),
 * as barycentric weights (w of a is 1 - v - w): *v on b, *w on c. */
static inline void drc_closest_tri(const drc_v3 q, const drc_v3 a, const drc_v3 b,
                                   const drc_v3 c, float *v_, float *w_) {
  const drc_v3 ab = drc_sub(b, a), ac = drc_sub(c, a), ap = drc_sub(q, a);
  const float d1 = drc_dot(ab, ap), d2 = drc_dot(ac, ap);
  float v = 0.0f, w = 0.0f;
  if (d1 <= 0.0f && d2 <= 0.0f) { /* vertex a */
  } else {
    const drc_v3 bp = drc_sub(q, b);
    const float d3 = drc_dot(ab, bp), d4 = drc_dot(ac, bp);
    const drc_v3 cp = drc_sub(q, c);
    const float d5 = drc_dot(ab, cp), d6 = drc_dot(ac, cp);
    const float vc = d1 * d4 - d3 * d2, vb = d5 * d2 - d1 * d6, va = d3 * d6 - d5 * d4;
    if (d3 >= 0.0f && d4 <= d3) { /* vertex b */
      v = 1.0f;
    } else if (vc <= 0.0f && d1 >= 0.0f && d3 <= 0.0f) { /* edge ab */
      v = d1 / (d1 - d3);
    } else if (d6 >= 0.0f && d5 <= d6) { /* vertex c */
      w = 1.0f;
    } else if (vb <= 0.0f && d2 >= 0.0f && d6 <= 0.0f) { /* edge ac */
      w = d2 / (d2 - d6);
    } else if (va <= 0.0f && (d4 - d3) >= 0.0f && (d5 - d6) >= 0.0f) { /* edge bc */
      w = (d4 - d3) / ((d4 - d3) + (d5 - d6));
      v = 1.0f - w;
    } else { /* inside the face */
      const float den = 1.0f / ((va + vb) + vc);
      v = vb * den;
      w = vc * den;
    }
  }
  *v_ = v;
  *w_ = w;
}

static inline drc_v3 drc_bary(const drc_v3 a, const drc_v3 b, const drc_v3 c, const float v,
                              const float w) {
  return drc_add(a, drc_add(drc_mul(drc_sub(b, a), v), drc_mul(drc_sub(c, a), w)));
}

/* The contact response shared by capsules and meshes: x is the particle at
 * the substep end, p at its start, n the unit contact normal, c the contact
 * point on the surface at the end, u the motion of that surface point over
 * the substep, r the distance to keep from c along n, mu the friction. The
 * tangential motion relative to the surface is removed up to mu times the
 * depth (static), or cut by it (kinetic); then x goes to distance r along n. */
static inline drc_v3 drc_respond(drc_v3 x, const drc_v3 p, const drc_v3 n, const drc_v3 c,
                                 const drc_v3 u, const float r, const float mu) {
  const float depth = r - drc_dot(drc_sub(x, c), n);
  const drc_v3 m = drc_sub(drc_sub(x, p), u);
  const float mn = drc_dot(m, n);
  const drc_v3 t = drc_sub(m, drc_mul(n, mn));
  const float tl = DRC_SQRT(drc_dot(t, t));
  const float lim = mu * depth;
  const float f = tl <= lim ? 1.0f : lim / tl;
  x = drc_sub(x, drc_mul(t, f));
  /* onto the offset surface along n (t is normal to n: the depth stays) */
  const float k = r - drc_dot(drc_sub(x, c), n);
  return drc_add(x, drc_mul(n, k));
}

/* One capsule against particle x (end of substep) from p (start); margin
 * is the particle's object thickness. Returns whether it touched. */
static inline int drc_capsule1(drc_v3 *x_, const drc_v3 p, const float margin,
                               const dr_capsule cap, const float al_s, const float al_e) {
  drc_v3 x = *x_;
  const drc_v3 A = drc_lerp(drc_xyz(cap.a0), drc_xyz(cap.a1), al_e);
  const drc_v3 B = drc_lerp(drc_xyz(cap.b0), drc_xyz(cap.b1), al_e);
  const drc_v3 As = drc_lerp(drc_xyz(cap.a0), drc_xyz(cap.a1), al_s);
  const drc_v3 Bs = drc_lerp(drc_xyz(cap.b0), drc_xyz(cap.b1), al_s);
  const float R = cap.a0.w + margin, mu = cap.b0.w;
  const float s = drc_seg_param(x, A, B);
  const drc_v3 C = drc_lerp(A, B, s);
  const drc_v3 d = drc_sub(x, C);
  const float len2 = drc_dot(d, d);
  /* where the particle was, seen from the capsule at the substep start:
   * its side of the axis (n0) and whether it was outside. "Outside"
   * allows a tenth of R inside: a particle this stage put on the surface
   * last substep rounds to either side of it, and must keep its side. */
  const float s0 = drc_seg_param(p, As, Bs);
  const drc_v3 d0 = drc_sub(p, drc_lerp(As, Bs, s0));
  const float len2_0 = drc_dot(d0, d0);
  const float len0 = DRC_SQRT(len2_0);
  const int was_out = len0 >= 0.9f * R;
  const drc_v3 n0 = len0 > 0.0f ? drc_mul(d0, 1.0f / len0) : drc_v(0.0f, 1.0f, 0.0f);
  drc_v3 n;
  if (len2 < R * R) { /* NaN goes on: a NaN particle stays NaN */
    const float len = DRC_SQRT(len2);
    /* came from outside and ended past the axis: the side it came from */
    if ((was_out && drc_dot(d, d0) < 0.0f) || !(len > 0.0f)) n = n0;
    else n = drc_mul(d, 1.0f / len);
  } else {
    /* outside at both ends: did the path, taken in the capsule's frame
     * (its start moved with the axis point it faced), cross the capsule? */
    if (!was_out) return 0;
    const drc_v3 q0 = drc_add(drc_lerp(A, B, s0), d0);
    if (!(drc_seg_seg2(q0, x, A, B) < R * R)) return 0;
    n = n0;
  }
  /* contact point and its motion over the substep (the axis point of the
   * same parameter, at the start and at the end) */
  const drc_v3 u = drc_sub(C, drc_lerp(As, Bs, s));
  x = drc_respond(x, p, n, C, u, R, mu);
  *x_ = x;
  return 1;
}

/* Triangle t at alpha (the end pose when the mesh is static). */
static inline void drc_tri_at(__global const dr_col_tri *tris, __global const dr_float4 *v0,
                              __global const dr_float4 *v1, const int t, const float al,
                              const int moving, drc_v3 *a, drc_v3 *b, drc_v3 *c) {
  const dr_col_tri tr = tris[t];
  *a = drc_xyz(v1[tr.a]), *b = drc_xyz(v1[tr.b]), *c = drc_xyz(v1[tr.c]);
  if (moving) {
    *a = drc_lerp(drc_xyz(v0[tr.a]), *a, al);
    *b = drc_lerp(drc_xyz(v0[tr.b]), *b, al);
    *c = drc_lerp(drc_xyz(v0[tr.c]), *c, al);
  }
}

/* The inside test of a closed mesh: the parity of the crossings of the
 * ray from x along +x with its triangles (the point strictly inside a
 * triangle's y-z projection). A ray through an edge or a vertex would
 * miscount, and cloth grids and meshes often line up exactly (a particle at
 * z = 0 over a box's edge at z = 0): the ray starts a few millionths off x
 * in y and z, which moves the answer only for points that close to the
 * surface, and those the proximity test answers. */
static inline int drc_inside(const drc_v3 x0, const int root, __global const dr_bvh_node *nodes,
                             __global const dr_col_tri *tris, __global const dr_float4 *v0,
                             __global const dr_float4 *v1, const float al, const int moving) {
  const drc_v3 x = drc_v(x0.x, x0.y + 3.7e-6f * (1.0f + (x0.y < 0.0f ? -x0.y : x0.y)),
                         x0.z + 2.9e-6f * (1.0f + (x0.z < 0.0f ? -x0.z : x0.z)));
  int stack[DR_BVH_STACK];
  int top = 0, crossings = 0;
  stack[top++] = root;
  while (top > 0) {
    const dr_bvh_node nd = nodes[stack[--top]];
    if (!(nd.hi.x >= x.x && nd.lo.y <= x.y && nd.hi.y >= x.y && nd.lo.z <= x.z && nd.hi.z >= x.z))
      continue;
    if (nd.left >= 0) {
      if (top + 2 <= DR_BVH_STACK) {
        stack[top++] = nd.left + 1;
        stack[top++] = nd.left;
      }
      continue;
    }
    for (int t = nd.first; t < nd.first + nd.count; t++) {
      drc_v3 a, b, c;
      drc_tri_at(tris, v0, v1, t, al, moving, &a, &b, &c);
      const float o1 = (b.y - a.y) * (x.z - a.z) - (b.z - a.z) * (x.y - a.y);
      const float o2 = (c.y - b.y) * (x.z - b.z) - (c.z - b.z) * (x.y - b.y);
      const float o3 = (a.y - c.y) * (x.z - c.z) - (a.z - c.z) * (x.y - c.y);
      if (!((o1 > 0.0f && o2 > 0.0f && o3 > 0.0f) || (o1 < 0.0f && o2 < 0.0f && o3 < 0.0f)))
        continue;
      const float sum = (o1 + o2) + o3;
      const float hx = ((o2 * a.x + o3 * b.x) + o1 * c.x) / sum;
      crossings += hx > x.x;
    }
  }
  return crossings & 1;
}

/* A particle inside a closed mesh: out through the nearest face (the
 * nearest triangle over the whole tree, pruned by box distance), to T
 * beyond it. No friction: it was not in contact, it was lost. The caller
 * moves the substep's start by the same amount, so the jump adds no
 * velocity (update_velocities takes (x - p) / h). */
static inline int drc_rescue(drc_v3 *x_, const dr_mesh_col mc, __global const dr_bvh_node *nodes,
                             __global const dr_col_tri *tris, __global const dr_float4 *v0,
                             __global const dr_float4 *v1, const float al, const int moving,
                             const float T) {
  const drc_v3 x = *x_;
  int stack[DR_BVH_STACK];
  int top = 0, best_t = -1;
  float best = 3.0e38f;
  drc_v3 best_c = x;
  stack[top++] = mc.root;
  while (top > 0) {
    const dr_bvh_node nd = nodes[stack[--top]];
    const float dx = x.x < nd.lo.x ? nd.lo.x - x.x : x.x > nd.hi.x ? x.x - nd.hi.x : 0.0f;
    const float dy = x.y < nd.lo.y ? nd.lo.y - x.y : x.y > nd.hi.y ? x.y - nd.hi.y : 0.0f;
    const float dz = x.z < nd.lo.z ? nd.lo.z - x.z : x.z > nd.hi.z ? x.z - nd.hi.z : 0.0f;
    if (!((dx * dx + dy * dy) + dz * dz < best)) continue;
    if (nd.left >= 0) {
      if (top + 2 <= DR_BVH_STACK) {
        stack[top++] = nd.left + 1;
        stack[top++] = nd.left;
      }
      continue;
    }
    for (int t = nd.first; t < nd.first + nd.count; t++) {
      drc_v3 a, b, c;
      drc_tri_at(tris, v0, v1, t, al, moving, &a, &b, &c);
      float v, w;
      drc_closest_tri(x, a, b, c, &v, &w);
      const drc_v3 q = drc_bary(a, b, c, v, w);
      const drc_v3 g = drc_sub(q, x);
      const float d2 = drc_dot(g, g);
      if (d2 < best) {
        best = d2;
        best_t = t;
        best_c = q;
      }
    }
  }
  if (best_t < 0) return 0;
  const float l = DRC_SQRT(best);
  drc_v3 n;
  if (l > 0.0f) {
    n = drc_mul(drc_sub(best_c, x), 1.0f / l);
  } else {
    drc_v3 a, b, c;
    drc_tri_at(tris, v0, v1, best_t, al, moving, &a, &b, &c);
    const drc_v3 f = drc_cross(drc_sub(b, a), drc_sub(c, a));
    const float fl = DRC_SQRT(drc_dot(f, f));
    if (!(fl > 0.0f)) return 0;
    n = drc_mul(f, 1.0f / fl);
  }
  *x_ = drc_add(best_c, drc_mul(n, T));
  return 2;
}

/* The search state of one mesh collider for one particle: the nearest
 * triangle within T at the substep end (prox) and the earliest crossing
 * (cross), with their barycentric weights. */
typedef struct drc_found {
  float best_d2, best_tau, pv, pw, cv, cw, cside;
  int prox, cross;
} drc_found;

/* Triangle t against the particle's path p -> x (query box lo..hi, the
 * path inflated by T). The tree walk and the candidate list both call it,
 * in the same order (the tree's depth-first order, which is the order of
 * the triangle array: build_trees lays the leaves out left to right), so
 * they give the same bits. Returns a lower bound on the distance from x to
 * the triangle (at the substep's end: exact when the closest point was
 * computed, else the distance to its box), for the particle's ball. */
static inline float drc_tri_test(drc_found *f, const int t, const drc_v3 x, const drc_v3 p,
                                const drc_v3 lo, const drc_v3 hi, const float T, const int closed,
                                const int moving, __global const dr_col_tri *tris,
                                __global const dr_float4 *v0, __global const dr_float4 *v1,
                                const float al_s, const float al_e) {
  const dr_col_tri tr = tris[t];
  drc_v3 a = drc_xyz(v1[tr.a]), b = drc_xyz(v1[tr.b]), c = drc_xyz(v1[tr.c]);
  drc_v3 as = a, bs = b, cs = c;
  if (moving) {
    const drc_v3 a0 = drc_xyz(v0[tr.a]), b0 = drc_xyz(v0[tr.b]), c0 = drc_xyz(v0[tr.c]);
    as = drc_lerp(a0, a, al_s), bs = drc_lerp(b0, b, al_s), cs = drc_lerp(c0, c, al_s);
    a = drc_lerp(a0, a, al_e), b = drc_lerp(b0, b, al_e), c = drc_lerp(c0, c, al_e);
  }
  /* the triangle's own box over the substep against the query: most
   * triangles end here, before the closest point */
  {
    const float mnx = drc_min6(a.x, b.x, c.x, as.x, bs.x, cs.x);
    const float mxx = drc_max6(a.x, b.x, c.x, as.x, bs.x, cs.x);
    const float mny = drc_min6(a.y, b.y, c.y, as.y, bs.y, cs.y);
    const float mxy = drc_max6(a.y, b.y, c.y, as.y, bs.y, cs.y);
    const float mnz = drc_min6(a.z, b.z, c.z, as.z, bs.z, cs.z);
    const float mxz = drc_max6(a.z, b.z, c.z, as.z, bs.z, cs.z);
    if (mnx > hi.x || mxx < lo.x || mny > hi.y || mxy < lo.y || mnz > hi.z || mxz < lo.z)
      return DRC_SQRT(drc_box_d2(x, drc_v(mnx, mny, mnz), drc_v(mxx, mxy, mxz)));
  }
  float v, w;
  drc_closest_tri(x, a, b, c, &v, &w);
  const drc_v3 g = drc_sub(x, drc_bary(a, b, c, v, w));
  const float d2 = drc_dot(g, g);
  const float lb = DRC_SQRT(d2);
  if (d2 < f->best_d2) {
    f->best_d2 = d2;
    f->prox = t;
    f->pv = v;
    f->pw = w;
  }
  /* continuous: planes at the start and the end of the substep; the
   * signs first (unnormalised), the lengths only for a sign change */
  const drc_v3 ne = drc_cross(drc_sub(b, a), drc_sub(c, a));
  const drc_v3 ns = moving ? drc_cross(drc_sub(bs, as), drc_sub(cs, as)) : ne;
  const float dsu = drc_dot(drc_sub(p, as), ns), deu = drc_dot(drc_sub(x, a), ne);
  /* closed: only from the outside in; open: from either side */
  const int front = dsu >= 0.0f && deu < 0.0f;
  const int back = !closed && dsu <= 0.0f && deu > 0.0f;
  if (!front && !back) return lb;
  const float ls = DRC_SQRT(drc_dot(ns, ns)), le = DRC_SQRT(drc_dot(ne, ne));
  if (!(ls > 0.0f) || !(le > 0.0f)) return lb;
  const float ds = dsu / ls, de = deu / le;
  const float tau = ds / (ds - de);
  if (!(tau < f->best_tau)) return lb;
  /* the crossing point in the triangle of that moment */
  const drc_v3 q = drc_lerp(p, x, tau);
  const drc_v3 at = drc_lerp(as, a, tau), bt = drc_lerp(bs, b, tau), ct = drc_lerp(cs, c, tau);
  float qv, qw;
  drc_closest_tri(q, at, bt, ct, &qv, &qw);
  const drc_v3 gq = drc_sub(q, drc_bary(at, bt, ct, qv, qw));
  /* in the triangle up to a thousandth of T (rounding of the plane) */
  if (!(drc_dot(gq, gq) <= 1e-6f * T * T)) return lb;
  f->best_tau = tau;
  f->cross = t;
  f->cv = qv;
  f->cw = qw;
  f->cside = front ? 1.0f : -1.0f;
  return lb;
}

/* Whether box a (alo..ahi) misses box b; a NaN bound misses everything. */
static inline int drc_box_miss(const dr_float4 alo, const dr_float4 ahi, const drc_v3 blo,
                               const drc_v3 bhi) {
  return alo.x > bhi.x || alo.y > bhi.y || alo.z > bhi.z || ahi.x < blo.x || ahi.y < blo.y ||
         ahi.z < blo.z || !(blo.x <= bhi.x && blo.y <= bhi.y && blo.z <= bhi.z);
}

/* Candidate lists (docs/solver.md "Candidate lists"). A particle keeps a
 * box B and the mesh triangles that may touch it while it stays in B: the
 * list is built by one tree walk over B and serves every later substep
 * whose query box lies inside B, until the particle leaves B, the list
 * overflows its K slots, or the colliders move (a new frame of a moving
 * collider: the tree's bounds are the frame's). The list holds, for each
 * mesh in order, a header (its entry count) then its entries in the tree's
 * order: a static mesh's triangles whose box meets B (a triangle's box at
 * any substep is its box, the vertices do not move), a moving mesh's leaves
 * whose frame bounds meet B (their triangles are tested as the walk tests
 * them: the leaf's box against the query first). Every triangle the walk
 * would test against a query inside B is on the list, in the walk's order,
 * and the ones the walk would not reach fail the same box tests: same
 * bits. */
#define DR_CAND_NONE -2 /* no list: build one at the next substep              */
#define DR_CAND_OVER -1 /* more than K entries met B: walk the tree            */
/* default K (slots per particle, headers included); DRAPE_COLLIDER_SLOTS
 * overrides it, 0 makes every particle walk the tree (the tests' switch) */
#define DR_CAND_SLOTS 48
#define DR_CAND_MAX_SLOTS 4096
/* meshes whose inside state a list can hold (bits of an int) */
#define DR_CAND_MESH_BITS 30

/* Appends mesh mc's entries that meet B to list[n..] (up to k slots in
 * all); returns how many met B (written or not), or, with probe, 1 at the
 * first one (nothing written). */
static inline int drc_cand_walk(const dr_mesh_col mc, const drc_v3 blo, const drc_v3 bhi,
                                __global const dr_bvh_node *nodes, __global const dr_col_tri *tris,
                                __global const dr_float4 *v1, __global dr_int *list, const int n,
                                const int k, const int probe) {
  const int moving = (mc.flags & DR_MESH_MOVING) != 0;
  int stack[DR_BVH_STACK];
  int top = 0, found = 0;
  stack[top++] = mc.root;
  while (top > 0) {
    const int ni = stack[--top];
    const dr_bvh_node nd = nodes[ni];
    if (drc_box_miss(nd.lo, nd.hi, blo, bhi)) continue;
    if (nd.left >= 0) {
      if (top + 2 <= DR_BVH_STACK) {
        stack[top++] = nd.left + 1;
        stack[top++] = nd.left;
      }
      continue;
    }
    if (moving) {
      if (probe) return 1;
      if (n + found < k) list[n + found] = ni;
      found++;
      continue;
    }
    for (int t = nd.first; t < nd.first + nd.count; t++) {
      const dr_col_tri tr = tris[t];
      const dr_float4 a = v1[tr.a], b = v1[tr.b], c = v1[tr.c];
      dr_float4 lo = a, hi = a;
      lo.x = drc_min2(drc_min2(a.x, b.x), c.x), hi.x = drc_max2(drc_max2(a.x, b.x), c.x);
      lo.y = drc_min2(drc_min2(a.y, b.y), c.y), hi.y = drc_max2(drc_max2(a.y, b.y), c.y);
      lo.z = drc_min2(drc_min2(a.z, b.z), c.z), hi.z = drc_max2(drc_max2(a.z, b.z), c.z);
      if (drc_box_miss(lo, hi, blo, bhi)) continue;
      if (probe) return 1;
      if (n + found < k) list[n + found] = t;
      found++;
    }
  }
  return found;
}

/* The particle's candidate state: B (box[0] low corner, box[1] high),
 * info[0] the list's length (or DR_CAND_NONE / DR_CAND_OVER), info[1] the
 * meshes with nothing in B (bit m), info[2] which of those B lies inside
 * (closed meshes: the parity test at the list's build; with no surface in B
 * over the frame, every point of B has the same answer), info[3] the
 * ball's state (below); ball: its centre (xyz) and radius (w); sub: its
 * entries.
 *
 * The ball (docs/solver.md "Candidate lists"): after a substep served by
 * the list, the particle keeps a ball of radius r round the point x it
 * was tested at, with r small enough that the ball grown by T on each axis
 * stays in B, and the list's entries whose distance from x (a lower bound:
 * the triangle's own when it was computed, else its box's; a moving mesh's
 * leaf: its frame box's) is at most T + r. While a later substep's start
 * and end both lie in the ball, no other entry can come within T of the
 * path (the distance to a triangle changes by at most the distance moved)
 * nor be crossed by it, and the query box stays in B: testing the ball's
 * entries, in the list's order, is testing the list, to the bit. A ball
 * with no entry (a particle near nothing) costs two distances a substep. */
typedef struct drc_cand {
  __global dr_float4 *box;
  __global dr_int *info;
  __global dr_int *list;
  int k;
  __global dr_float4 *ball;
  __global dr_int *sub;
  __global dr_float4 *plane;
} drc_cand;

/* info[3]: no ball; a ball with no entries, inside state unknown (a closed
 * mesh's parity is still tested at a frame's first substep) or known to
 * be outside every closed mesh; a contact plane (below); a ball of
 * (info[3] - DR_BALL_SUB) slots in sub (a header per mesh, then its
 * entries, as the list).
 *
 * The contact plane: a particle that touched a static mesh (the only one)
 * at distance g > 0 from its nearest point C, outside, keeps the plane
 * through C normal to x - C (plane: n, n.C) and a ball of radius r <=
 * min(T, g) / 4 round x. In the ball the distance to the plane stands for
 * the distance to the mesh: both change by at most the distance moved
 * (1-Lipschitz) and agree at x, so they differ by at most 2r <= T / 2; a
 * contact keeps the particle T from the plane, so at least T / 2 from the
 * mesh, and it cannot reach the surface (g > r), so no crossing, no
 * inside. The response is the list's (drc_respond, the mesh at rest),
 * on the plane: the same few operations for every particle, which the
 * vector kernel runs on eight at once. */
#define DR_BALL_NONE -1
#define DR_BALL_FREE 0
#define DR_BALL_FREE_OUT 1
#define DR_BALL_PLANE 2
#define DR_BALL_SUB 3
#define DR_BALL_SLOTS 8

/* What a substep served by the list gathers for the particle's next ball:
 * the entries within thr of x (written to sub while they fit), the
 * smallest lower bound of the others, and whether every closed mesh is
 * known to be outside. */
typedef struct drc_ball_make {
  int ok;       /* every mesh was served by the list (or had nothing in B) */
  int n;        /* slots written (headers included)                        */
  int over;     /* more entries than slots                                 */
  int out;      /* outside every closed mesh (known or tested this substep) */
  float thr;    /* T + r: an entry within it joins the ball                */
  float lb;     /* the smallest lower bound of the entries left out        */
  float moved;  /* how far x moved from the ball's centre (earlier meshes) */
  int plane;    /* a static mesh's proximity contact from outside: pn, poff, pg */
  float pnx, pny, pnz, poff, pg;
} drc_ball_make;

/* The contact plane's response (drc_respond with the plane's point and no
 * surface motion): the depth below T, tangential motion cut by mu times
 * it, then onto the plane's offset T. Written for one particle; the
 * vector kernel spells the same operations on float8. */
static inline drc_v3 drc_plane_respond(drc_v3 x, const drc_v3 p, const drc_v3 n, const float off,
                                       const float T, const float mu) {
  const float depth = T - (((n.x * x.x + n.y * x.y) + n.z * x.z) - off);
  const drc_v3 m = drc_sub(x, p);
  const float mn = drc_dot(m, n);
  const drc_v3 t = drc_sub(m, drc_mul(n, mn));
  const float tl = DRC_SQRT(drc_dot(t, t));
  const float lim = mu * depth;
  const float f = tl <= lim ? 1.0f : lim / tl;
  x = drc_sub(x, drc_mul(t, f));
  const float k = T - (((n.x * x.x + n.y * x.y) + n.z * x.z) - off);
  return drc_add(x, drc_mul(n, k));
}

/* One mesh collider against particle x from p. T is the distance to keep
 * (the larger of the particle's and the collider's thickness). Candidate
 * triangles: the candidate list when the query box (the path inflated by
 * T) lies in the list's box B, else the leaves of the tree whose frame
 * bounds overlap the query. Two tests over them (drc_tri_test), in the
 * tree's order:
 *  - continuous: the earliest sign change of the signed distance to a
 *    triangle's plane (start: triangle at the substep start, end: at the
 *    end) whose crossing point lies in the triangle at that time;
 *  - proximity: the nearest triangle at the end, within T.
 * A crossing wins; it is answered on the side the particle came from.
 * With nothing within reach, a particle inside a closed mesh goes out
 * (drc_rescue): known from the list when B holds no triangle of the mesh,
 * else tested at the first substep of a frame (the continuous test keeps
 * particles from getting deep inside between). */
static inline int drc_mesh1(drc_v3 *x_, const drc_v3 p, const float margin, const dr_mesh_col mc,
                            const int m, __global const dr_bvh_node *nodes,
                            __global const dr_col_tri *tris, __global const dr_float4 *v0,
                            __global const dr_float4 *v1, const float al_s, const float al_e,
                            const drc_cand cd, int *pos, const int ball, drc_ball_make *bm) {
  drc_v3 x = *x_;
  const float T = margin > mc.thickness ? margin : mc.thickness;
  const int closed = (mc.flags & DR_MESH_CLOSED) != 0, moving = (mc.flags & DR_MESH_MOVING) != 0;
  const drc_v3 lo = drc_v((p.x < x.x ? p.x : x.x) - T, (p.y < x.y ? p.y : x.y) - T,
                          (p.z < x.z ? p.z : x.z) - T);
  const drc_v3 hi = drc_v((p.x > x.x ? p.x : x.x) + T, (p.y > x.y ? p.y : x.y) + T,
                          (p.z > x.z ? p.z : x.z) + T);
  drc_found f;
  f.best_d2 = T * T, f.best_tau = 2.0f;
  f.prox = -1, f.cross = -1;
  f.pv = 0.0f, f.pw = 0.0f, f.cv = 0.0f, f.cw = 0.0f, f.cside = 1.0f;
  /* the list serves this query when it exists and B holds the query box
   * (NaN: not inside, so the walk answers as before); in the ball (ball:
   * DR_BALL_*), both hold and its entries stand for the list's */
  const int len = cd.info[0];
  const dr_float4 blo = cd.box[0], bhi = cd.box[1];
  const int in_b = lo.x >= blo.x && lo.y >= blo.y && lo.z >= blo.z && hi.x <= bhi.x &&
                   hi.y <= bhi.y && hi.z <= bhi.z;
  const int known = len != DR_CAND_NONE && in_b && m < DR_CAND_MESH_BITS &&
                    ((cd.info[1] >> m) & 1) != 0;
  const int from_list = len >= 0 && in_b;
  __global const dr_int *list = ball >= DR_BALL_SUB ? cd.sub : cd.list;
  /* the mesh's entries in the list (skipped over even when unused); a ball
   * with no entries has none of any mesh */
  int e0 = 0, ne = 0;
  if (len >= 0 && (ball == DR_BALL_NONE || ball >= DR_BALL_SUB)) {
    ne = list[*pos];
    e0 = *pos + 1;
    *pos = e0 + ne;
  }
  /* the next ball's header for this mesh */
  const int bh = bm->n;
  if (bm->ok) {
    if (bh < DR_BALL_SLOTS) cd.sub[bh] = 0;
    else bm->over = 1;
    bm->n++;
  }
  if (!from_list) bm->ok = 0;
  if (known) {
    /* nothing of this mesh in B: no contact; inside as found at the build */
  } else if (from_list) {
    for (int j = e0; j < e0 + ne; j++) {
      const int id = list[j];
      float lb;
      if (!moving) {
        lb = drc_tri_test(&f, id, x, p, lo, hi, T, closed, moving, tris, v0, v1, al_s, al_e);
      } else {
        /* a leaf: its box holds its triangles over the whole frame */
        const dr_bvh_node nd = nodes[id];
        lb = DRC_SQRT(drc_box_d2(x, drc_xyz(nd.lo), drc_xyz(nd.hi)));
        if (!drc_box_miss(nd.lo, nd.hi, lo, hi))
          for (int t = nd.first; t < nd.first + nd.count; t++)
            drc_tri_test(&f, t, x, p, lo, hi, T, closed, moving, tris, v0, v1, al_s, al_e);
      }
      if (!bm->ok) continue;
      /* the ball's centre is where the first mesh tested the particle */
      lb = lb - bm->moved;
      if (lb <= bm->thr) { /* NaN: joins (and a NaN ball serves nothing) */
        if (bm->n < DR_BALL_SLOTS) {
          cd.sub[bm->n] = id;
          if (bh < DR_BALL_SLOTS) cd.sub[bh] = cd.sub[bh] + 1;
        } else {
          bm->over = 1;
        }
        bm->n++;
      } else if (lb < bm->lb) {
        bm->lb = lb;
      }
    }
  } else {
    /* NaN: no box overlaps a NaN query, so the particle is left NaN */
    int stack[DR_BVH_STACK];
    int top = 0;
    stack[top++] = mc.root;
    while (top > 0) {
      const dr_bvh_node nd = nodes[stack[--top]];
      if (drc_box_miss(nd.lo, nd.hi, lo, hi)) continue;
      if (nd.left >= 0) {
        /* the second child below the first, so the first is tested first */
        if (top + 2 <= DR_BVH_STACK) {
          stack[top++] = nd.left + 1;
          stack[top++] = nd.left;
        }
        continue;
      }
      for (int t = nd.first; t < nd.first + nd.count; t++)
        drc_tri_test(&f, t, x, p, lo, hi, T, closed, moving, tris, v0, v1, al_s, al_e);
    }
  }
  const int cross = f.cross;
  int t = cross >= 0 ? cross : f.prox;
  if (t < 0) {
    /* nothing within reach: deep inside a closed mesh? */
    if (!closed) return 0;
    const int inside = known ? (cd.info[2] >> m) & 1
                             : al_s <= 0.0f && drc_inside(x, mc.root, nodes, tris, v0, v1, al_e, moving);
    /* outside known: from B's build, or tested just now */
    if (!known && !(al_s <= 0.0f)) bm->out = 0;
    if (!inside) return 0;
    bm->ok = 0;
    return drc_rescue(x_, mc, nodes, tris, v0, v1, al_e, moving, T);
  }
  const float v = cross >= 0 ? f.cv : f.pv, w = cross >= 0 ? f.cw : f.pw;
  const dr_col_tri tr = tris[t];
  const drc_v3 a = drc_lerp(drc_xyz(v0[tr.a]), drc_xyz(v1[tr.a]), al_e);
  const drc_v3 b = drc_lerp(drc_xyz(v0[tr.b]), drc_xyz(v1[tr.b]), al_e);
  const drc_v3 c = drc_lerp(drc_xyz(v0[tr.c]), drc_xyz(v1[tr.c]), al_e);
  const drc_v3 as = drc_lerp(drc_xyz(v0[tr.a]), drc_xyz(v1[tr.a]), al_s);
  const drc_v3 bs = drc_lerp(drc_xyz(v0[tr.b]), drc_xyz(v1[tr.b]), al_s);
  const drc_v3 cs = drc_lerp(drc_xyz(v0[tr.c]), drc_xyz(v1[tr.c]), al_s);
  const drc_v3 C = drc_bary(a, b, c, v, w);
  const drc_v3 nev = drc_cross(drc_sub(b, a), drc_sub(c, a));
  const float le = DRC_SQRT(drc_dot(nev, nev));
  if (!(le > 0.0f)) return 0;
  const drc_v3 nf = drc_mul(nev, 1.0f / le);
  drc_v3 n;
  if (cross >= 0) {
    n = drc_mul(nf, f.cside);
  } else {
    /* nearest point: away from it, on the side the face's normal gives;
     * behind a closed mesh's face is inside, out through that face */
    const drc_v3 g = drc_sub(x, C);
    const float gl = DRC_SQRT(f.best_d2);
    const float side = drc_dot(g, nf);
    if (!(gl > 0.0f)) n = nf;
    else if (closed && side < 0.0f) n = drc_mul(g, -1.0f / gl);
    else n = drc_mul(g, 1.0f / gl);
    if (!moving && gl > 0.0f && !(closed && side < 0.0f)) {
      bm->plane = 1;
      bm->pnx = n.x, bm->pny = n.y, bm->pnz = n.z, bm->pg = gl;
      bm->poff = (n.x * C.x + n.y * C.y) + n.z * C.z;
    }
  }
  const drc_v3 u = drc_sub(C, drc_bary(as, bs, cs, v, w));
  x = drc_respond(x, p, n, C, u, T, mc.friction);
  *x_ = x;
  return 1;
}

/* Builds the particle's list when it has none, the colliders moved
 * (cp.rebuild: the first substep of such a frame), or the query box of
 * the widest mesh (x after the capsules, p, the largest T) left B. The new
 * B is that query box grown by a slack s: a quarter of T plus three times
 * the particle's motion over this substep, so a settled particle keeps its
 * list for many frames and a falling one rebuilds every few substeps. Far
 * from every mesh, a box grown by 16 s is tried first: when it holds no
 * triangle (a walk that stops at the first one) it is B, with an empty
 * list, and lasts sixteen times longer.
 * The inside state of a mesh with nothing in B: the old B's when that one
 * was empty of the mesh too, held p (so the two boxes overlap: their union
 * is connected and free of the surface, one answer for all of it) and
 * the trees did not change since; else the parity test at x. */
static inline void drc_cand_update(const drc_v3 x, const drc_v3 p, const float margin,
                                   const dr_col_params cp, __global const dr_mesh_col *meshes,
                                   __global const dr_bvh_node *nodes,
                                   __global const dr_col_tri *tris, __global const dr_float4 *v0,
                                   __global const dr_float4 *v1, const float al_e,
                                   const drc_cand cd) {
  const float T = margin > cp.max_thickness ? margin : cp.max_thickness;
  const drc_v3 lo = drc_v((p.x < x.x ? p.x : x.x) - T, (p.y < x.y ? p.y : x.y) - T,
                          (p.z < x.z ? p.z : x.z) - T);
  const drc_v3 hi = drc_v((p.x > x.x ? p.x : x.x) + T, (p.y > x.y ? p.y : x.y) + T,
                          (p.z > x.z ? p.z : x.z) + T);
  const dr_float4 blo = cd.box[0], bhi = cd.box[1];
  const int had = !cp.rebuild && cd.info[0] != DR_CAND_NONE;
  if (had && lo.x >= blo.x && lo.y >= blo.y && lo.z >= blo.z && hi.x <= bhi.x && hi.y <= bhi.y &&
      hi.z <= bhi.z)
    return;
  const int p_in_old = had && p.x >= blo.x && p.y >= blo.y && p.z >= blo.z && p.x <= bhi.x &&
                       p.y <= bhi.y && p.z <= bhi.z;
  const int old_empty = p_in_old ? cd.info[1] : 0, old_inside = cd.info[2];
  const float s = 0.25f * T + 3.0f * drc_motion(x, p);
  /* the wide box first: empty of every mesh? */
  const float sw = 16.0f * s;
  drc_v3 Blo = drc_v(lo.x - sw, lo.y - sw, lo.z - sw), Bhi = drc_v(hi.x + sw, hi.y + sw, hi.z + sw);
  int wide = 1;
  for (int m = 0; m < cp.n_meshes && wide; m++)
    wide = !drc_cand_walk(meshes[m], Blo, Bhi, nodes, tris, v1, cd.list, 0, 0, 1);
  if (!wide) {
    Blo = drc_v(lo.x - s, lo.y - s, lo.z - s);
    Bhi = drc_v(hi.x + s, hi.y + s, hi.z + s);
  }
  int n = 0, empty = 0, inside = 0;
  for (int m = 0; m < cp.n_meshes; m++) {
    const dr_mesh_col mc = meshes[m];
    const int h = n;
    n++; /* the header */
    const int found = wide ? 0 : drc_cand_walk(mc, Blo, Bhi, nodes, tris, v1, cd.list, n, cd.k, 0);
    if (h < cd.k) cd.list[h] = found;
    n += found;
    if (found == 0 && m < DR_CAND_MESH_BITS) {
      empty |= 1 << m;
      const int in = ((old_empty >> m) & 1) != 0
                         ? (old_inside >> m) & 1
                         : (mc.flags & DR_MESH_CLOSED) != 0 &&
                               drc_inside(x, mc.root, nodes, tris, v0, v1, al_e,
                                          (mc.flags & DR_MESH_MOVING) != 0);
      inside |= in << m;
    }
  }
  dr_float4 nlo = blo, nhi = bhi;
  nlo.x = Blo.x, nlo.y = Blo.y, nlo.z = Blo.z, nlo.w = 0.0f;
  nhi.x = Bhi.x, nhi.y = Bhi.y, nhi.z = Bhi.z, nhi.w = 0.0f;
  cd.box[0] = nlo;
  cd.box[1] = nhi;
  cd.info[0] = n <= cd.k ? n : DR_CAND_OVER;
  cd.info[1] = empty;
  cd.info[2] = inside;
  cd.info[3] = DR_BALL_NONE; /* a ball lives in the B it was made in */
}

/* This substep's vertex-triangle correction of particle i (vt_particle1),
 * added before its contacts; returns whether there was one. */
static inline int drc_vt_add(dr_float4 *xi_, __global const dr_float4 *corr,
                             __global const dr_int *vstamp, const dr_col_params cp, const int i) {
  if (cp.n_sharp == 0 || vstamp[i] != cp.stamp) return 0;
  const dr_float4 d = corr[i];
  dr_float4 r = *xi_;
  r.x = r.x + d.x;
  r.y = r.y + d.y;
  r.z = r.z + d.z;
  *xi_ = r;
  return 1;
}

/* A particle near a static mesh (the only one) but not touching it: its
 * nearest point among the ball's entries (every triangle within T + r of
 * it is one) gives it a contact plane as a touch would (drc_cand), when
 * it lies outside. Returns whether it did (plane in cd.plane, radius in
 * *r). */
static inline int drc_near_plane(const drc_v3 c0, const float margin, const dr_mesh_col mc,
                                 __global const dr_col_tri *tris, __global const dr_float4 *v1,
                                 const drc_cand cd, const int slots, float *r) {
  float best = 3.0e38f;
  drc_v3 C = c0, nf = c0;
  for (int j = 1; j < slots; j++) {
    const dr_col_tri tr = tris[cd.sub[j]];
    const drc_v3 a = drc_xyz(v1[tr.a]), b = drc_xyz(v1[tr.b]), c = drc_xyz(v1[tr.c]);
    float v, w;
    drc_closest_tri(c0, a, b, c, &v, &w);
    const drc_v3 q = drc_bary(a, b, c, v, w);
    const drc_v3 g = drc_sub(c0, q);
    const float d2 = drc_dot(g, g);
    if (d2 < best) {
      best = d2;
      C = q;
      nf = drc_cross(drc_sub(b, a), drc_sub(c, a));
    }
  }
  const drc_v3 g = drc_sub(c0, C);
  const float gl = DRC_SQRT(best);
  if (!(gl > 0.0f) || ((mc.flags & DR_MESH_CLOSED) && drc_dot(g, nf) < 0.0f)) return 0;
  const drc_v3 n = drc_mul(g, 1.0f / gl);
  const float T = margin > mc.thickness ? margin : mc.thickness;
  *r = 0.25f * drc_min2(T, gl);
  dr_float4 pl = *cd.plane;
  pl.x = n.x, pl.y = n.y, pl.z = n.z, pl.w = (n.x * C.x + n.y * C.y) + n.z * C.z;
  *cd.plane = pl;
  return 1;
}

/* Leaving a ball with no entries: the distance from x to the nearest mesh
 * (a lower bound, at most reach: the tree walked nearer child first, pruned by
 * box distance; a static mesh's triangles exactly, a moving mesh's leaves
 * by their frame boxes, which hold them all frame). The new ball's radius
 * is it minus T; below DR_BALL_MIN_FREE T the list takes over. */
#define DR_BALL_REACH 0.1f
#define DR_BALL_MIN_FREE 0.5f
static inline float drc_nearest(const drc_v3 x, const float reach, const dr_col_params cp,
                                __global const dr_mesh_col *meshes,
                                __global const dr_bvh_node *nodes,
                                __global const dr_col_tri *tris, __global const dr_float4 *v1) {
  float best = reach * reach;
  for (int m = 0; m < cp.n_meshes; m++) {
    const dr_mesh_col mc = meshes[m];
    const int moving = (mc.flags & DR_MESH_MOVING) != 0;
    int stack[DR_BVH_STACK];
    int top = 0;
    stack[top++] = mc.root;
    while (top > 0) {
      const dr_bvh_node nd = nodes[stack[--top]];
      const float bd = drc_box_d2(x, drc_xyz(nd.lo), drc_xyz(nd.hi));
      if (!(bd < best)) continue; /* NaN: nothing is near */
      if (nd.left >= 0) {
        /* the nearer child on top: it is walked first and shrinks best */
        const dr_bvh_node l = nodes[nd.left], rr = nodes[nd.left + 1];
        const int left_first = drc_box_d2(x, drc_xyz(l.lo), drc_xyz(l.hi)) <=
                               drc_box_d2(x, drc_xyz(rr.lo), drc_xyz(rr.hi));
        if (top + 2 <= DR_BVH_STACK) {
          stack[top++] = left_first ? nd.left + 1 : nd.left;
          stack[top++] = left_first ? nd.left : nd.left + 1;
        }
        continue;
      }
      if (moving) {
        best = bd;
        continue;
      }
      for (int t = nd.first; t < nd.first + nd.count; t++) {
        const dr_col_tri tr = tris[t];
        const drc_v3 a = drc_xyz(v1[tr.a]), b = drc_xyz(v1[tr.b]), c = drc_xyz(v1[tr.c]);
        float v, w;
        drc_closest_tri(x, a, b, c, &v, &w);
        const drc_v3 g = drc_sub(x, drc_bary(a, b, c, v, w));
        const float d2 = drc_dot(g, g);
        if (d2 < best) best = d2;
      }
    }
  }
  return DRC_SQRT(best);
}

/* colliders1's early way out: x after the capsules. */
static inline int hit_out(dr_float4 *xi_, const drc_v3 x, const int hit) {
  if (hit) {
    dr_float4 r = *xi_;
    r.x = x.x;
    r.y = x.y;
    r.z = x.z;
    *xi_ = r;
  }
  return hit;
}

/* Every capsule, then every mesh collider, for one free particle: x (end
 * of substep, updated) and p (start). Returns whether one touched. */
static inline int colliders1(dr_float4 *xi_, dr_float4 *pi_, const float margin,
                             const dr_col_params cp, __global const dr_capsule *caps,
                             __global const dr_mesh_col *meshes,
                             __global const dr_bvh_node *nodes, __global const dr_col_tri *tris,
                             __global const dr_float4 *v0, __global const dr_float4 *v1,
                             const float t_end, const drc_cand cd) {
  drc_v3 x = drc_xyz(*xi_);
  drc_v3 p = drc_xyz(*pi_);
  const float al_e = t_end * cp.inv_dt, al_s = (t_end - cp.h) * cp.inv_dt;
  int hit = 0;
  for (int k = 0; k < cp.n_capsules; k++) hit |= drc_capsule1(&x, p, margin, caps[k], al_s, al_e);
  int ball = DR_BALL_NONE;
  if (cp.n_meshes > 0) {
    /* in the particle's ball (drc_cand): its entries stand for the list */
    const dr_float4 bl = *cd.ball;
    const int bs = cd.info[3];
    const drc_v3 gx = drc_sub(x, drc_xyz(bl)), gp = drc_sub(p, drc_xyz(bl));
    if (!cp.rebuild && bs != DR_BALL_NONE && drc_dot(gx, gx) <= bl.w * bl.w &&
        drc_dot(gp, gp) <= bl.w * bl.w)
      ball = bs;
    /* nothing within T of the path and, unless a closed mesh's parity is
     * due, nothing more to ask: the list's answer is "no contact" */
    if (ball == DR_BALL_FREE_OUT || (ball == DR_BALL_FREE && al_s > 0.0f)) return hit_out(xi_, x, hit);
    if (ball == DR_BALL_PLANE) {
      const dr_float4 pl = *cd.plane;
      const dr_mesh_col mc = meshes[0];
      const float T = margin > mc.thickness ? margin : mc.thickness;
      const drc_v3 n = drc_xyz(pl);
      if (!(((n.x * x.x + n.y * x.y) + n.z * x.z) - pl.w < T)) return hit_out(xi_, x, hit);
      return hit_out(xi_, drc_plane_respond(x, p, n, pl.w, T, mc.friction), 1);
    }
    /* out of a ball with no entries: a wider one round x when the path
     * stays clear of every mesh by T (its inside state goes along: the
     * path met no surface) */
    if (ball == DR_BALL_NONE && !cp.rebuild &&
        (bs == DR_BALL_FREE_OUT || (bs == DR_BALL_FREE && al_s > 0.0f))) {
      const float Tw = margin > cp.max_thickness ? margin : cp.max_thickness;
      const float r = drc_nearest(x, DR_BALL_REACH, cp, meshes, nodes, tris, v1) - Tw;
      const drc_v3 d = drc_sub(x, p);
      if (r >= DR_BALL_MIN_FREE * Tw && drc_dot(d, d) <= r * r) {
        dr_float4 b = bl;
        b.x = x.x, b.y = x.y, b.z = x.z, b.w = r;
        *cd.ball = b;
        return hit_out(xi_, x, hit);
      }
    }
    if (ball == DR_BALL_NONE)
      drc_cand_update(x, p, margin, cp, meshes, nodes, tris, v0, v1, al_e, cd);
  }
  /* the next ball, gathered while the list serves every mesh */
  const float Tw = margin > cp.max_thickness ? margin : cp.max_thickness;
  const float r_t = 0.25f * Tw + 3.0f * drc_motion(x, p);
  drc_ball_make bm;
  bm.ok = ball == DR_BALL_NONE, bm.n = 0, bm.over = 0, bm.out = 1;
  bm.thr = Tw + r_t, bm.lb = 3.0e38f, bm.moved = 0.0f;
  bm.plane = 0, bm.pnx = 0.0f, bm.pny = 0.0f, bm.pnz = 0.0f, bm.poff = 0.0f, bm.pg = 0.0f;
  const drc_v3 c0 = x;
  int pos = 0;
  for (int k = 0; k < cp.n_meshes; k++) {
    const drc_v3 before = x;
    const int h = drc_mesh1(&x, p, margin, meshes[k], k, nodes, tris, v0, v1, al_s, al_e, cd, &pos,
                            ball, &bm);
    if (h == 2) { /* rescued from inside: the start moves along (no velocity) */
      p = drc_add(p, drc_sub(x, before));
      dr_float4 q = *pi_;
      q.x = p.x, q.y = p.y, q.z = p.z;
      *pi_ = q;
    }
    hit |= h;
    const drc_v3 g = drc_sub(x, c0);
    bm.moved = DRC_SQRT(drc_dot(g, g));
  }
  if (cp.n_meshes > 0 && ball == DR_BALL_FREE && bm.out && !hit) cd.info[3] = DR_BALL_FREE_OUT;
  if (cp.n_meshes > 0 && (ball == DR_BALL_NONE || (bm.plane && cp.n_meshes == 1))) {
    /* the next ball: a contact plane whenever a contact was searched for
     * (in a ball or not: the tree walk, the list and a ball's entries find
     * the same contact, so all make the same plane), else, out of any
     * ball, from the list: its grown box in B (so a query from it stays in
     * B), and with no entry, as wide as the nearest entry allows */
    int st = DR_BALL_NONE;
    float r = 0.0f;
    if (bm.plane && cp.n_meshes == 1) {
      const float T0 = margin > meshes[0].thickness ? margin : meshes[0].thickness;
      r = 0.25f * drc_min2(T0, bm.pg);
      if (r > 0.0f) {
        st = DR_BALL_PLANE;
        dr_float4 pl = *cd.plane;
        pl.x = bm.pnx, pl.y = bm.pny, pl.z = bm.pnz, pl.w = bm.poff;
        *cd.plane = pl;
      }
    } else if (bm.ok && !bm.over && cd.info[0] >= 0) {
      const dr_float4 blo = cd.box[0], bhi = cd.box[1];
      const float rb = drc_min6(c0.x - blo.x, c0.y - blo.y, c0.z - blo.z, bhi.x - c0.x,
                                bhi.y - c0.y, bhi.z - c0.z) - Tw;
      if (bm.n == cp.n_meshes) {
        r = drc_min2(rb, bm.lb - Tw);
        if (r > 0.0f) st = bm.out ? DR_BALL_FREE_OUT : DR_BALL_FREE;
      } else {
        r = drc_min2(rb, r_t);
        if (r > 0.0f) st = DR_BALL_SUB + bm.n;
        if (r > 0.0f && cp.n_meshes == 1 && cp.planes && !(meshes[0].flags & DR_MESH_MOVING) &&
            drc_near_plane(c0, margin, meshes[0], tris, v1, cd, bm.n, &r))
          st = DR_BALL_PLANE;
      }
    }
    if (st != DR_BALL_NONE) {
      dr_float4 b = *cd.ball;
      b.x = c0.x, b.y = c0.y, b.z = c0.z, b.w = r;
      *cd.ball = b;
    }
    cd.info[3] = st;
  }
  if (hit) {
    dr_float4 r = *xi_;
    r.x = x.x;
    r.y = x.y;
    r.z = x.z;
    *xi_ = r;
  }
  return hit;
}

/* Bounds of node i over the frame: a leaf's triangles at the frame start
 * and end (a linear motion stays in the box of its ends), or the union of
 * its children (refitted one level earlier). */
static inline void bvh_refit1(__global dr_bvh_node *nodes, __global const dr_col_tri *tris,
                              __global const dr_float4 *v0, __global const dr_float4 *v1,
                              const int i) {
  dr_bvh_node nd = nodes[i];
  float lx = 3.0e38f, ly = 3.0e38f, lz = 3.0e38f, hx = -3.0e38f, hy = -3.0e38f, hz = -3.0e38f;
  if (nd.left >= 0) {
    const dr_bvh_node l = nodes[nd.left], r = nodes[nd.left + 1];
    lx = l.lo.x < r.lo.x ? l.lo.x : r.lo.x;
    ly = l.lo.y < r.lo.y ? l.lo.y : r.lo.y;
    lz = l.lo.z < r.lo.z ? l.lo.z : r.lo.z;
    hx = l.hi.x > r.hi.x ? l.hi.x : r.hi.x;
    hy = l.hi.y > r.hi.y ? l.hi.y : r.hi.y;
    hz = l.hi.z > r.hi.z ? l.hi.z : r.hi.z;
  } else {
    for (int t = nd.first; t < nd.first + nd.count; t++) {
      const dr_col_tri tr = tris[t];
      const int vi[3] = {tr.a, tr.b, tr.c};
      for (int q = 0; q < 6; q++) {
        const dr_float4 v = q < 3 ? v0[vi[q]] : v1[vi[q - 3]];
        lx = v.x < lx ? v.x : lx;
        ly = v.y < ly ? v.y : ly;
        lz = v.z < lz ? v.z : lz;
        hx = v.x > hx ? v.x : hx;
        hy = v.y > hy ? v.y : hy;
        hz = v.z > hz ? v.z : hz;
      }
    }
  }
  nd.lo.x = lx;
  nd.lo.y = ly;
  nd.lo.z = lz;
  nd.hi.x = hx;
  nd.hi.y = hy;
  nd.hi.z = hz;
  nodes[i] = nd;
}

/* The other direction: a sharp collider vertex (a box's corner or edge,
 * where the faces meet at more than 60 degrees; colliders.c picks them)
 * against a cloth triangle, so it cannot poke through between the cloth's
 * particles. The vertex is immovable; the triangle's corners move along
 * its normal by their barycentric weights times inverse mass (the
 * point-triangle constraint of Müller et al. 2007, "Position based
 * dynamics", §4.4, with an infinite mass at the point), so the vertex ends
 * at distance T on the side it was on at the substep start.
 * It runs first in the stage, on the positions the constraints (and
 * self-collision) left, one particle per work item: vt_particle1 takes the
 * mean of the corrections its triangles make to it (vt_tri1: a triangle's
 * three corners at once; each corner's work item computes it, so no two
 * work items write one particle and nothing is read that this launch
 * writes), and the particle pass adds it before its own contacts, so the
 * particles end outside the meshes whatever the vertices asked.
 * Most particles are far from every sharp vertex: a particle more than ext
 * from each on some axis (its cull cell's bit clear: vbits, built on the
 * host) has no triangle that could reach one and stops there. */
static inline int drc_cell(const float x, const float o, const float inv, const int n) {
  const float f = DRC_FLOOR((x - o) * inv); /* a product: monotonic, and no division */
  return f < 0.0f ? 0 : f > (float)(n - 1) ? n - 1 : (int)f; /* NaN: the last */
}

static inline float vt_tri1(__global const dr_float4 *x, __global const dr_float4 *p,
                            __global const dr_uint *tri, __global const dr_int *obj,
                            __global const dr_object *objects, __global const dr_mesh_col *meshes,
                            __global const dr_int *sharp, __global const dr_int *cells,
                            const dr_vt_grid grid, __global const dr_float4 *v0,
                            __global const dr_float4 *v1, const dr_col_params cp,
                            const float t_end, const int t, float *corr) {
  const dr_uint i0 = tri[3 * t], i1 = tri[3 * t + 1], i2 = tri[3 * t + 2];
  float c0x = 0.0f, c0y = 0.0f, c0z = 0.0f, c1x = 0.0f, c1y = 0.0f, c1z = 0.0f;
  float c2x = 0.0f, c2y = 0.0f, c2z = 0.0f, hits = 0.0f;
  if (i0 != i1) { /* a torn triangle is (i0, i0, i0) */
    const dr_float4 X0 = x[i0], X1 = x[i1], X2 = x[i2];
    const drc_v3 a = drc_xyz(X0), b = drc_xyz(X1), c = drc_xyz(X2);
    const float mnx = drc_min2(drc_min2(a.x, b.x), c.x), mxx = drc_max2(drc_max2(a.x, b.x), c.x);
    const float mny = drc_min2(drc_min2(a.y, b.y), c.y), mxy = drc_max2(drc_max2(a.y, b.y), c.y);
    const float mnz = drc_min2(drc_min2(a.z, b.z), c.z), mxz = drc_max2(drc_max2(a.z, b.z), c.z);
    /* the triangle's box grown by reach misses every vertex's box (most
     * of the cloth): no vertex can pass the box test below */
    const int away = mnx - grid.reach > grid.top.x || mxx + grid.reach < grid.origin.x ||
                     mny - grid.reach > grid.top.y || mxy + grid.reach < grid.origin.y ||
                     mnz - grid.reach > grid.top.z || mxz + grid.reach < grid.origin.z;
    const float wsum = X0.w + X1.w + X2.w;
    if (!away && wsum > 0.0f) {
      const float margin = objects[obj[i0]].thickness;
      const float al_e = t_end * cp.inv_dt, al_s = (t_end - cp.h) * cp.inv_dt;
      const float cs_ = grid.inv_cell;
      const int ix0 = drc_cell(mnx - grid.reach, grid.origin.x, cs_, grid.nx);
      const int ix1 = drc_cell(mxx + grid.reach, grid.origin.x, cs_, grid.nx);
      const int iy0 = drc_cell(mny - grid.reach, grid.origin.y, cs_, grid.ny);
      const int iy1 = drc_cell(mxy + grid.reach, grid.origin.y, cs_, grid.ny);
      const int iz0 = drc_cell(mnz - grid.reach, grid.origin.z, cs_, grid.nz);
      const int iz1 = drc_cell(mxz + grid.reach, grid.origin.z, cs_, grid.nz);
      /* the normals and the start positions when a vertex first passes
       * the box test (most triangles here have none) */
      int ready = 0;
      float le = 0.0f;
      drc_v3 ne = a, ns0 = a, as = a;
      for (int iz = iz0; iz <= iz1; iz++)
      for (int iy = iy0; iy <= iy1; iy++)
      for (int ix = ix0; ix <= ix1; ix++) {
      const int cell = (iz * grid.ny + iy) * grid.nx + ix;
      for (int k = cells[cell]; k < cells[cell + 1]; k++) {
        const int vi = sharp[2 * k];
        const dr_mesh_col mc = meshes[sharp[2 * k + 1]];
        const float T = margin > mc.thickness ? margin : mc.thickness;
        const drc_v3 qa = drc_xyz(v0[vi]), qb = drc_xyz(v1[vi]);
        const drc_v3 q = drc_lerp(qa, qb, al_e);
        /* near the triangle at all? (its box inflated by T) */
        if (q.x < mnx - T || q.x > mxx + T || q.y < mny - T || q.y > mxy + T || q.z < mnz - T ||
            q.z > mxz + T)
          continue;
        if (!ready) {
          ready = 1;
          as = drc_xyz(p[i0]);
          const drc_v3 bs = drc_xyz(p[i1]), css = drc_xyz(p[i2]);
          const drc_v3 ne0 = drc_cross(drc_sub(b, a), drc_sub(c, a));
          ns0 = drc_cross(drc_sub(bs, as), drc_sub(css, as));
          le = DRC_SQRT(drc_dot(ne0, ne0));
          ne = drc_mul(ne0, 1.0f / le);
        }
        if (!(le > 0.0f)) break;
        const drc_v3 qs = drc_lerp(qa, qb, al_s);
        float v, w;
        drc_closest_tri(q, a, b, c, &v, &w);
        /* only where the vertex is over the triangle's face: at its edges
         * the particles and the neighbouring triangles answer */
        const float u = 1.0f - v - w;
        if (!(u > 0.0f && v > 0.0f && w > 0.0f)) continue;
        const drc_v3 g = drc_sub(q, drc_bary(a, b, c, v, w));
        if (!(drc_dot(g, g) < T * T)) continue;
        /* the side the vertex was on at the substep start */
        const float side = drc_dot(drc_sub(qs, as), ns0) >= 0.0f ? 1.0f : -1.0f;
        const float de = drc_dot(drc_sub(q, a), ne);
        const float s = T - side * de; /* > 0: closer than T, or through */
        if (!(s > 0.0f)) continue;
        const float den = (u * u * X0.w + v * v * X1.w) + w * w * X2.w;
        if (!(den > 0.0f)) continue;
        const float k0 = -side * s / den;
        c0x += ne.x * (k0 * u * X0.w), c0y += ne.y * (k0 * u * X0.w), c0z += ne.z * (k0 * u * X0.w);
        c1x += ne.x * (k0 * v * X1.w), c1y += ne.y * (k0 * v * X1.w), c1z += ne.z * (k0 * v * X1.w);
        c2x += ne.x * (k0 * w * X2.w), c2y += ne.y * (k0 * w * X2.w), c2z += ne.z * (k0 * w * X2.w);
        hits = 1.0f;
      }
      }
    }
  }
  corr[0] = c0x, corr[1] = c0y, corr[2] = c0z;
  corr[3] = c1x, corr[4] = c1y, corr[5] = c1z;
  corr[6] = c2x, corr[7] = c2y, corr[8] = c2z;
  return hits;
}

/* Particle i's vertex-triangle correction: the mean of the corrections
 * its triangles that touched a vertex give it, in the order of its
 * triangle list, into corr[i], with vstamp[i] = cp.stamp (the particle
 * pass adds it in the same substep). The cull: the triangle's box grown by
 * reach must hold the vertex's frame-start position for vt_tri1 to find
 * it, so particle i is within reach + the triangle's width of it on each
 * axis; ext allows triangles up to twice the widest at rest (a cloth torn
 * or blown wider than that near a vertex is not tested). */
static inline void vt_particle1(__global const dr_float4 *x, __global const dr_float4 *p,
                                __global const dr_uint *tri, __global const dr_int *vt_off,
                                __global const dr_int *vt_list, __global const dr_int *obj,
                                __global const dr_object *objects,
                                __global const dr_mesh_col *meshes, __global const dr_int *sharp,
                                __global const dr_int *cells, __global const dr_uint *vbits,
                                const dr_vt_grid grid, __global const dr_float4 *v0,
                                __global const dr_float4 *v1, const dr_col_params cp,
                                const float t_end, const int i, __global dr_float4 *corr,
                                __global dr_int *vstamp) {
  const dr_float4 xi = x[i];
  const float e = grid.ext;
  /* NaN fails every test: a NaN particle gets nothing */
  if (!(xi.x >= grid.origin.x - e && xi.x <= grid.top.x + e && xi.y >= grid.origin.y - e &&
        xi.y <= grid.top.y + e && xi.z >= grid.origin.z - e && xi.z <= grid.top.z + e))
    return;
  const dr_uint hb = drc_vt_hash(drc_vt_fine(xi.x, grid.origin.x, grid.inv_fine),
                                 drc_vt_fine(xi.y, grid.origin.y, grid.inv_fine),
                                 drc_vt_fine(xi.z, grid.origin.z, grid.inv_fine));
  if (!((vbits[hb >> 5] >> (hb & 31u)) & 1u)) return;
  /* the cells' bits are coarse: a vertex within ext on every axis, or none
   * of the triangles can reach one */
  {
    const float cs = grid.inv_cell;
    const int ix0 = drc_cell(xi.x - e, grid.origin.x, cs, grid.nx);
    const int ix1 = drc_cell(xi.x + e, grid.origin.x, cs, grid.nx);
    const int iy0 = drc_cell(xi.y - e, grid.origin.y, cs, grid.ny);
    const int iy1 = drc_cell(xi.y + e, grid.origin.y, cs, grid.ny);
    const int iz0 = drc_cell(xi.z - e, grid.origin.z, cs, grid.nz);
    const int iz1 = drc_cell(xi.z + e, grid.origin.z, cs, grid.nz);
    int near = 0;
    for (int iz = iz0; iz <= iz1 && !near; iz++)
      for (int iy = iy0; iy <= iy1 && !near; iy++)
        for (int ix = ix0; ix <= ix1 && !near; ix++) {
          const int cell = (iz * grid.ny + iy) * grid.nx + ix;
          for (int k = cells[cell]; k < cells[cell + 1]; k++) {
            const dr_float4 q = v0[sharp[2 * k]];
            if (q.x >= xi.x - e && q.x <= xi.x + e && q.y >= xi.y - e && q.y <= xi.y + e &&
                q.z >= xi.z - e && q.z <= xi.z + e) {
              near = 1;
              break;
            }
          }
        }
    if (!near) return;
  }
  float sx = 0.0f, sy = 0.0f, sz = 0.0f, n = 0.0f;
  for (int k = vt_off[i]; k < vt_off[i + 1]; k++) {
    const int t = vt_list[k];
    const int c = tri[3 * t] == (dr_uint)i ? 0 : tri[3 * t + 1] == (dr_uint)i ? 1 : 2;
    float d[9];
    if (!(vt_tri1(x, p, tri, obj, objects, meshes, sharp, cells, grid, v0, v1, cp, t_end, t, d) >
          0.0f))
      continue;
    sx += d[3 * c], sy += d[3 * c + 1], sz += d[3 * c + 2], n += 1.0f;
  }
  if (n > 0.0f) {
    dr_float4 r = xi;
    r.x = sx / n, r.y = sy / n, r.z = sz / n, r.w = 0.0f;
    corr[i] = r;
    vstamp[i] = cp.stamp;
  }
}

#ifdef __OPENCL_VERSION__
/* Vector form: DR_PARTICLE_LANES particles per work item; the eight are
 * tested against the vertices' box at once (most of the cloth stops
 * there), then one by one. */
__kernel void collider_vt(__global const float4 *x, __global const float4 *p,
                          __global const uint *tri, __global const int *vt_off,
                          __global const int *vt_list, __global const int *obj,
                          __global const dr_object *objects, __global const dr_mesh_col *meshes,
                          __global const int *sharp, __global const int *cells,
                          __global const uint *vbits, const dr_vt_grid grid,
                          __global const float4 *v0, __global const float4 *v1,
                          const dr_col_params cp, const float t_end, __global float4 *corr,
                          __global int *vstamp) {
  const int i0 = get_global_id(0) * DR_PARTICLE_LANES;
  if (i0 >= cp.n_particles) return;
  __global const float *xf = (__global const float *)(x + i0);
  const float16 X0 = vload16(0, xf), X1 = vload16(1, xf);
  const float8 px = (float8)(X0.s048c, X1.s048c), py = (float8)(X0.s159d, X1.s159d);
  const float8 pz = (float8)(X0.s26ae, X1.s26ae);
  const float e = grid.ext;
  const int8 in = px >= grid.origin.x - e && px <= grid.top.x + e && py >= grid.origin.y - e &&
                  py <= grid.top.y + e && pz >= grid.origin.z - e && pz <= grid.top.z + e;
  if (!any(in)) return;
  /* the cull's cells of the eight (vt_particle1's hash, on the lanes in
   * the box; the others' cells are never read) */
  const float inv = grid.inv_fine;
  const uint8 cx = as_uint8(convert_int8(floor((px - grid.origin.x) * inv)));
  const uint8 cy = as_uint8(convert_int8(floor((py - grid.origin.y) * inv)));
  const uint8 cz = as_uint8(convert_int8(floor((pz - grid.origin.z) * inv)));
  const uint8 hb = ((cx * 73856093u) ^ (cy * 19349663u) ^ (cz * 83492791u)) &
                   ((1u << DR_VT_BITS_LOG2) - 1u);
  const uint hv[8] = {hb.s0, hb.s1, hb.s2, hb.s3, hb.s4, hb.s5, hb.s6, hb.s7};
  const int iv[8] = {in.s0, in.s1, in.s2, in.s3, in.s4, in.s5, in.s6, in.s7};
  for (int l = 0; l < DR_PARTICLE_LANES && i0 + l < cp.n_particles; l++)
    if (iv[l] && ((vbits[hv[l] >> 5] >> (hv[l] & 31u)) & 1u))
      vt_particle1(x, p, tri, vt_off, vt_list, obj, objects, meshes, sharp, cells, vbits, grid,
                   v0, v1, cp, t_end, i0 + l, corr, vstamp);
}

/* GPU form: one particle per work item. */
__kernel void collider_vt_g(__global const float4 *x, __global const float4 *p,
                            __global const uint *tri, __global const int *vt_off,
                            __global const int *vt_list, __global const int *obj,
                            __global const dr_object *objects, __global const dr_mesh_col *meshes,
                            __global const int *sharp, __global const int *cells,
                            __global const uint *vbits, const dr_vt_grid grid,
                            __global const float4 *v0, __global const float4 *v1,
                            const dr_col_params cp, const float t_end, __global float4 *corr,
                            __global int *vstamp) {
  const int i = get_global_id(0);
  if (i >= cp.n_particles) return;
  vt_particle1(x, p, tri, vt_off, vt_list, obj, objects, meshes, sharp, cells, vbits, grid, v0, v1,
               cp, t_end, i, corr, vstamp);
}

/* Nodes [first, first + count): one level of every collider's tree. */
__kernel void bvh_refit(__global dr_bvh_node *nodes, __global const dr_col_tri *tris,
                        __global const float4 *v0, __global const float4 *v1, const int first,
                        const int count) {
  const int i = get_global_id(0);
  if (i >= count) return;
  bvh_refit1(nodes, tris, v0, v1, first + i);
}

/* Vector form: DR_PARTICLE_LANES consecutive particles per work item
 * (the solver's particle arrays are padded to whole groups). */
__kernel void colliders(__global float4 *x, __global float4 *p, __global const int *obj,
                        __global const dr_object *objects, __global const dr_capsule *caps,
                        __global const dr_mesh_col *meshes, __global const dr_bvh_node *nodes,
                        __global const dr_col_tri *tris, __global const float4 *v0,
                        __global const float4 *v1, const dr_col_params cp, const float t_end,
                        __global float4 *cbox, __global int *cinfo, __global int *clist,
                        const int k, __global const float4 *corr, __global const int *vstamp,
                        __global float4 *cball, __global int *csub, __global float4 *cplane) {
  const int i0 = get_global_id(0) * DR_PARTICLE_LANES;
  if (i0 >= cp.n_particles) return;
  /* the eight at once first: each pinned, or with its path in a ball with
   * no entries (colliders1's own way out, nothing to write), or in a
   * contact plane's ball (its response, spelled on float8), and no
   * vertex correction: done (most of a cloth, most substeps). The
   * particle arrays are padded to whole groups. */
  int8 done = (int8)(0);
  if (cp.n_capsules == 0 && cp.n_meshes > 0 && !cp.rebuild) {
    __global float *xf = (__global float *)(x + i0);
    __global const float *pf = (__global const float *)(p + i0);
    __global const float *bf = (__global const float *)(cball + i0);
    float16 X0 = vload16(0, xf), X1 = vload16(1, xf);
    const float16 P0 = vload16(0, pf), P1 = vload16(1, pf);
    const float16 B0 = vload16(0, bf), B1 = vload16(1, bf);
    const int16 I0 = vload16(0, cinfo + 4 * i0), I1 = vload16(1, cinfo + 4 * i0);
    const int8 st = (int8)(I0.s37bf, I1.s37bf);
    const float8 w = (float8)(X0.s37bf, X1.s37bf);
    float8 xx = (float8)(X0.s048c, X1.s048c), xy = (float8)(X0.s159d, X1.s159d);
    float8 xz = (float8)(X0.s26ae, X1.s26ae);
    const float8 px = (float8)(P0.s048c, P1.s048c), py = (float8)(P0.s159d, P1.s159d);
    const float8 pz = (float8)(P0.s26ae, P1.s26ae);
    const float8 bx = (float8)(B0.s048c, B1.s048c), by = (float8)(B0.s159d, B1.s159d);
    const float8 bz = (float8)(B0.s26ae, B1.s26ae), br = (float8)(B0.s37bf, B1.s37bf);
    const float8 gx = xx - bx, gy = xy - by, gz = xz - bz;
    const float8 hx = px - bx, hy = py - by, hz = pz - bz;
    const int8 inb = ((gx * gx + gy * gy) + gz * gz <= br * br) & ((hx * hx + hy * hy) + hz * hz <= br * br);
    const float al_s = (t_end - cp.h) * cp.inv_dt;
    const int8 later = (int8)(al_s > 0.0f ? -1 : 0);
    int8 ok = inb;
    if (cp.n_sharp > 0) ok = ok & (vload8(0, vstamp + i0) != cp.stamp);
    const int8 plane = ok & (st == DR_BALL_PLANE) & (w != 0.0f);
    done = (w == 0.0f) | (ok & ((st == DR_BALL_FREE_OUT) | ((st == DR_BALL_FREE) & later))) | plane;
    if (any(plane)) { /* drc_plane_respond, lane by lane the same operations */
      __global const float *qf = (__global const float *)(cplane + i0);
      const float16 Q0 = vload16(0, qf), Q1 = vload16(1, qf);
      const float8 nx = (float8)(Q0.s048c, Q1.s048c), ny = (float8)(Q0.s159d, Q1.s159d);
      const float8 nz = (float8)(Q0.s26ae, Q1.s26ae), off = (float8)(Q0.s37bf, Q1.s37bf);
      const dr_mesh_col mc = meshes[0];
      const float8 T = fmax(DR_OBJECT_FIELD8(vload8(0, obj + i0), objects, thickness),
                            (float8)(mc.thickness));
      const float8 sd = ((nx * xx + ny * xy) + nz * xz) - off;
      const int8 touch = plane & (sd < T);
      if (any(touch)) {
        const float8 depth = T - sd;
        const float8 mx = xx - px, my = xy - py, mz = xz - pz;
        const float8 mn = (mx * nx + my * ny) + mz * nz;
        const float8 tx = mx - nx * mn, ty = my - ny * mn, tz = mz - nz * mn;
        const float8 tl = sqrt((tx * tx + ty * ty) + tz * tz);
        const float8 lim = mc.friction * depth;
        const float8 f = select(lim / tl, (float8)(1.0f), tl <= lim);
        const float8 ax = xx - tx * f, ay = xy - ty * f, az = xz - tz * f;
        const float8 k = T - (((nx * ax + ny * ay) + nz * az) - off);
        xx = select(xx, ax + nx * k, touch);
        xy = select(xy, ay + ny * k, touch);
        xz = select(xz, az + nz * k, touch);
        DR_COLUMNS_TO_AOS(xx, xy, xz, w, X0, X1);
        vstore16(X0, 0, xf);
        vstore16(X1, 1, xf);
      }
    }
    if (all(done)) return;
  }
  const int dn[8] = {done.s0, done.s1, done.s2, done.s3, done.s4, done.s5, done.s6, done.s7};
  for (int l = 0; l < DR_PARTICLE_LANES; l++) {
    const int i = i0 + l;
    if (i >= cp.n_particles) break;
    if (dn[l]) continue;
    float4 xi = x[i];
    if (xi.w == 0.0f) { /* pinned: a list of older poses must not survive */
      if (cp.rebuild) cinfo[4 * i] = DR_CAND_NONE, cinfo[4 * i + 3] = DR_BALL_NONE;
      continue;
    }
    const int moved = drc_vt_add(&xi, corr, vstamp, cp, i);
    float4 pi = p[i];
    drc_cand cd;
    cd.box = cbox + 2 * i, cd.info = cinfo + 4 * i, cd.list = clist + i * k, cd.k = k;
    cd.ball = cball + i, cd.sub = csub + DR_BALL_SLOTS * i, cd.plane = cplane + i;
    const int hit = colliders1(&xi, &pi, objects[obj[i]].thickness, cp, caps, meshes, nodes, tris,
                               v0, v1, t_end, cd);
    if (hit || moved) x[i] = xi;
    if (hit & 2) p[i] = pi;
  }
}

/* GPU form: one particle per work item. */
__kernel void colliders_g(__global float4 *x, __global float4 *p, __global const int *obj,
                          __global const dr_object *objects, __global const dr_capsule *caps,
                          __global const dr_mesh_col *meshes, __global const dr_bvh_node *nodes,
                          __global const dr_col_tri *tris, __global const float4 *v0,
                          __global const float4 *v1, const dr_col_params cp, const float t_end,
                          __global float4 *cbox, __global int *cinfo, __global int *clist,
                          const int k, __global const float4 *corr, __global const int *vstamp,
                          __global float4 *cball, __global int *csub, __global float4 *cplane) {
  const int i = get_global_id(0);
  if (i >= cp.n_particles) return;
  float4 xi = x[i];
  if (xi.w == 0.0f) {
    if (cp.rebuild) cinfo[4 * i] = DR_CAND_NONE, cinfo[4 * i + 3] = DR_BALL_NONE;
    return;
  }
  const int moved = drc_vt_add(&xi, corr, vstamp, cp, i);
  float4 pi = p[i];
  drc_cand cd;
  cd.box = cbox + 2 * i, cd.info = cinfo + 4 * i, cd.list = clist + i * k, cd.k = k;
  cd.ball = cball + i, cd.sub = csub + DR_BALL_SLOTS * i, cd.plane = cplane + i;
  const int hit = colliders1(&xi, &pi, objects[obj[i]].thickness, cp, caps, meshes, nodes, tris,
                             v0, v1, t_end, cd);
  if (hit || moved) x[i] = xi;
  if (hit & 2) p[i] = pi;
}
#endif
