/* Static checks that the C view of kernels/drape_types.h matches the
 * OpenCL C view (float4 = 16 bytes, aligned to 16; scalars 4 bytes). If one
 * of these fails, a field was added that breaks the shared layout. */
#include <CL/cl.h>
#include <stddef.h>

#include "drape_types.h"

_Static_assert(sizeof(dr_float4) == sizeof(cl_float4), "dr_float4 must be 16 bytes");
_Static_assert(sizeof(dr_distance) == 16, "dr_distance layout");
_Static_assert(offsetof(dr_distance, rest) == 8, "dr_distance.rest offset");
_Static_assert(offsetof(dr_distance, compliance) == 12, "dr_distance.compliance offset");
_Static_assert(sizeof(dr_step_params) == 64, "dr_step_params layout");
_Static_assert(offsetof(dr_step_params, wind) == 16, "dr_step_params.wind offset");
_Static_assert(offsetof(dr_step_params, h) == 32, "dr_step_params.h offset");
_Static_assert(offsetof(dr_step_params, inv_h2) == 40, "dr_step_params.inv_h2 offset");
_Static_assert(offsetof(dr_step_params, n_spheres) == 60, "dr_step_params.n_spheres offset");
_Static_assert(sizeof(dr_object) == 16, "dr_object layout");
_Static_assert(offsetof(dr_object, kind) == 12, "dr_object.kind offset");
_Static_assert(sizeof(dr_sphere) == 32, "dr_sphere layout");
_Static_assert(offsetof(dr_sphere, velocity_friction) == 16, "dr_sphere.velocity offset");
_Static_assert(sizeof(dr_kinematic) == 48, "dr_kinematic layout");
_Static_assert(offsetof(dr_kinematic, particle) == 32, "dr_kinematic.particle offset");
_Static_assert(sizeof(dr_dihedral) == 32, "dr_dihedral layout");
_Static_assert(offsetof(dr_dihedral, rest) == 16, "dr_dihedral.rest offset");
_Static_assert(offsetof(dr_dihedral, edge) == 24, "dr_dihedral.edge offset");
_Static_assert(sizeof(dr_membrane) == 48, "dr_membrane layout");
_Static_assert(offsetof(dr_membrane, cub) == 16, "dr_membrane.cub offset");
_Static_assert(offsetof(dr_membrane, comp_u) == 32, "dr_membrane.comp_u offset");
_Static_assert(sizeof(dr_prolong) == 32, "dr_prolong layout");
_Static_assert(offsetof(dr_prolong, wa) == 16, "dr_prolong.wa offset");
_Static_assert(sizeof(dr_memb_up) == 8, "dr_memb_up layout");
_Static_assert(sizeof(dr_rod_bend) == 32, "dr_rod_bend layout");
_Static_assert(offsetof(dr_rod_bend, il0) == 16, "dr_rod_bend.il0 offset");

#include "drape/limits.h"
_Static_assert(DR_MAX_COORD == (float)DRAPE_MAX_COORD, "the finiteness check's range is the scene's");
