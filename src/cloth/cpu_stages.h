/* CPU reference backend: one function per kernel in kernels/, same name
 * with a cpu_ prefix, same arithmetic in the same order (single precision,
 * no FMA contraction, explicit component sums instead of dot()), so tests
 * can compare the OpenCL path with it. Each loop body is one work item. */
#ifndef DRAPE_CLOTH_CPU_STAGES_H
#define DRAPE_CLOTH_CPU_STAGES_H

#include "drape_types.h"

/* kernels/predict.cl: gravity, damping, p <- x, x <- x + h v (v not stored). */
void cpu_predict(dr_float4 *x, dr_float4 *p, const dr_float4 *v, const dr_int *obj,
                 const dr_object *objects, const dr_step_params *sp);
/* kernels/drive.cl */
void cpu_drive_kinematic(dr_float4 *x, const dr_kinematic *kin, int n_kin, float alpha);
/* kernels/project.cl: one colour range [first, first + count). */
void cpu_project_distance(dr_float4 *x, const dr_distance *c, float *lambda, int first, int count,
                          float inv_h2, int lambda_mode);
/* kernels/dihedral.cl: one colour [first, first + count) of the edge
 * units (a mesh edge's hinge, then its stretch link, whose rest length,
 * compliance and lambda are the distance constraints' cons[edge] and
 * dlambda[edge]; a torn edge stops the unit). */
void cpu_project_dihedral(dr_float4 *x, const dr_dihedral *bend, const dr_distance *cons,
                          float *blambda, float *dlambda, int first, int count, float inv_h2,
                          int lambda_mode);
/* kernels/membrane.cl, compiled as C: the same functions the kernels are
 * (one colour [first, first + count) each; see that file). */
void project_membrane(dr_float4 *x, const dr_membrane *mem, dr_float4 *mlambda, int first,
                      int count, float inv_h2, int lambda_mode);
void warm_membrane(dr_float4 *x, const dr_float4 *p, const dr_membrane *mem,
                   const dr_float4 *mlambda, int first, int count);
void ml_snapshot(const dr_float4 *x, dr_float4 *snap, int count);
void ml_prolong(dr_float4 *x, const dr_float4 *snap, const dr_prolong *pr, int first, int count);
void ml_lambda(dr_float4 *mlambda, const dr_memb_up *up, int first, int count);
void warm_distance(dr_float4 *x, const dr_float4 *p, const int *ca, const int *cb,
                   const float *ccomp, const float *lambda, int first, int count);
void warm_dihedral(dr_float4 *x, const dr_float4 *p, const dr_dihedral *bend, const float *ccomp,
                   const float *blambda, const float *dlambda, int first, int count);
void project_rod_bend(dr_float4 *x, const dr_rod_bend *rb, dr_float4 *rlambda, int first, int count,
                      float inv_h2, int lambda_mode);
void project_hinge(dr_float4 *x, const dr_dihedral *hinge, float *hlambda, int first, int count,
                   float inv_h2, int lambda_mode);
void warm_hinge(dr_float4 *x, const dr_float4 *p, const dr_dihedral *hinge, const float *hlambda,
                int first, int count);
void cpu_warm_dihedral(dr_float4 *x, const dr_float4 *p, const dr_dihedral *bend,
                       const dr_distance *cons, const float *blambda, const float *dlambda,
                       int first, int count);
void cpu_warm_distance(dr_float4 *x, const dr_float4 *p, const dr_distance *cons,
                       const float *lambda, int first, int count);
/* kernels/tethers.cl */
void cpu_tethers(dr_float4 *x, const dr_int *pin, const float *rest, int slots, int n);
/* kernels/collide.cl */
void cpu_collide(dr_float4 *x, const dr_float4 *p, const dr_int *obj, const dr_object *objects,
                 const dr_sphere *spheres, const dr_step_params *sp, float t_end);
/* kernels/update.cl */
/* bad: NULL, or the finiteness check's status word (drape_types.h) */
void cpu_update_velocities(const dr_float4 *x, const dr_float4 *p, dr_float4 *v,
                           const dr_step_params *sp, dr_int *bad);
/* kernels/wind.cl */
void cpu_wind_triangles(const dr_float4 *x, const dr_float4 *v, const dr_uint *tri,
                        dr_float4 *tri_force, const dr_step_params *sp, int n_tris);
void cpu_wind_gather(const dr_float4 *x, dr_float4 *v, const dr_float4 *tri_force,
                     const dr_int *vt_off, const dr_int *vt_list, const dr_step_params *sp);
/* kernels/normals.cl */
void cpu_vertex_normals(const dr_float4 *x, dr_float4 *nrm, const dr_uint *tri,
                        const dr_int *vt_off, const dr_int *vt_list, int n);
/* kernels/tear.cl */
void cpu_tear_constraints(const dr_float4 *x, dr_distance *c, const dr_int *obj,
                          const dr_object *objects, int n_cons);
void cpu_tear_triangles(const dr_distance *c, dr_uint *tri, const dr_int *tri_edge, int n_tris);

/* The seeds' other solvers (springs_cpu.c). kernels/springs.cl: */
void cpu_springs_forces(const dr_float4 *x, dr_float4 *p, const dr_float4 *v, dr_float4 *vn,
                        const dr_int *obj, const dr_object *objects, const dr_int *adj_off,
                        const dr_int *adj_j, const dr_float4 *adj_prm, dr_int *diverged,
                        const dr_step_params *sp, float blowup);
void cpu_springs_advance(dr_float4 *x, dr_float4 *v, const dr_float4 *vn, dr_int *diverged,
                         const dr_step_params *sp);
/* kernels/verlet.cl */
void cpu_verlet_predict(dr_float4 *x, dr_float4 *p, const dr_int *obj, const dr_object *objects,
                        const dr_step_params *sp);

#endif
