/* drape — opt-in OpenCL access: the solver's device buffers, for a
 * renderer or a user kernel that works on them in place (CL/GL interop).
 * Only this public header includes OpenCL's; link OpenCL yourself when you
 * use it (find_package(drape) and drape.pc already do).
 *
 * The buffers live as long as the sim and are complete after
 * drape_sim_step returns; order further work on the sim's queue. */
#ifndef DRAPE_DRAPE_CL_H
#define DRAPE_DRAPE_CL_H

#ifndef CL_TARGET_OPENCL_VERSION
#define CL_TARGET_OPENCL_VERSION 120
#endif
#include <CL/cl.h>

#include "drape/cloth.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- device buffers (OpenCL backend; NULL / an error on the CPU backend) ----
 * float4 per particle as drape_sim_read_positions (drape/cloth.h). The buffers live as long as the sim; they
 * are complete after drape_sim_step returns (use the queue of
 * drape_sim_cl to order further work). A renderer either reads them back
 * (drape_sim_read_*) or copies them into GL buffers on the device. */
typedef struct drape_sim_buffers {
  cl_mem positions;          /* n_particles float4                            */
  cl_mem normals;            /* n_particles float4                            */
  cl_mem tris;               /* n_tris x 3 uint32 (degenerate when torn)      */
  cl_command_queue queue;
  cl_context context;
} drape_sim_buffers;

int drape_sim_cl_buffers(const drape_sim *sim, drape_sim_buffers *out);
struct drape_cl *drape_sim_cl(const drape_sim *sim); /* NULL on CPU       */

#ifdef __cplusplus
}
#endif
#endif
