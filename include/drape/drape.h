/* drape — the whole public API of the solver library in one include:
 *
 *   #include <drape/drape.h>     // link drape::drape, or `pkg-config drape`
 *
 * base.h   errors (drape_err, DRAPE_E*), drape_version(), the clock
 * limits.h every limit a definition is checked against (docs/scenes.md "Limits")
 * scene.h  scene definitions with defaults and units; validators; JSON loading
 * render_def.h  presentation: camera and render size (a scene file's "camera",
 *          "render"); the world never reads it
 * cloth.h  the cloth and rope solver (drape_sim)
 * string.h the seed 000 string solver on the CPU
 * cable.h  the seed 003 implicit cable on the CPU
 * world.h  the world: every object of a scene stepped as one (start here)
 *
 * Opt-in, not included here: <drape/drape_cl.h> (OpenCL device buffers,
 * needs OpenCL's headers) and <drape/render.h> (the renderer, link
 * drape::render / `pkg-config drape-render`). No header included here
 * includes an OpenCL or GL header. */
#ifndef DRAPE_DRAPE_H
#define DRAPE_DRAPE_H

#include "drape/base.h"
#include "drape/limits.h"
#include "drape/scene.h"
#include "drape/render_def.h"
#include "drape/cloth.h"
#include "drape/string.h"
#include "drape/cable.h"
#include "drape/world.h"

#endif
