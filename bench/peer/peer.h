/* Peer solvers timed by `drape bench` on the same cloth as drape: a square
 * grid pinned at two corners, draped over a sphere. Built only when the
 * peer's library is installed (DRAPE_HAVE_BULLET). */
#ifndef DRAPE_BENCH_PEER_H
#define DRAPE_BENCH_PEER_H

#ifdef __cplusplus
extern "C" {
#endif

typedef struct drape_peer_case {
  int n;                  /* particles per side                           */
  double spacing;         /* m                                            */
  double origin[3];       /* m, corner (row 0, col 0); the grid lies in xz */
  double mass_per_area;   /* kg/m^2                                       */
  double sphere_center[3], sphere_radius; /* m                            */
  double dt;              /* s per frame                                  */
  int iterations;         /* solver passes per frame (drape: substeps x iterations) */
  int warmup, frames;     /* untimed then timed frames                    */
} drape_peer_case;

typedef struct drape_peer_result {
  double ms_median, ms_min, ms_max; /* per frame, wall clock             */
  double max_strain, mean_strain;   /* over all links at the end: l/l0 - 1 */
  int finite;                       /* every node finite at the end      */
  int links;
  char name[64];
} drape_peer_result;

/* Returns 0 on success; non-zero when the peer is not built in. */
int drape_peer_bullet_run(const drape_peer_case *c, drape_peer_result *r);
int drape_peer_bullet_available(void);

#ifdef __cplusplus
}
#endif
#endif
