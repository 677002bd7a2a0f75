/* Message formatting shared by the solver library (validators, model
 * builder, self-collision): numbers that read back as the value used and
 * key paths. The commands' and the renderer's helpers are in src/io. */
#ifndef DRAPE_CORE_UTIL_H
#define DRAPE_CORE_UTIL_H

#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#include "drape/base.h"

/* Numbers in messages, from a few rotating thread-local buffers so that one
 * message can show several: dr_num as drape_fmt_double prints it (reads
 * back as the same double), dr_num_f the shortest of %.6g .. %.9g that
 * reads back as the same float (the limits the solver compares in float:
 * 0.01, not 0.00999999978; 1.0000001, not 1). */
const char *dr_num(double v);
const char *dr_num_f(float v);
/* snprintf for key paths in messages: a too-long path is cut, never overflows. */
void dr_pathf(char *dst, size_t cap, const char *fmt, ...) DRAPE_PRINTF(3, 4);

/* splitmix64 (Steele, Lea and Flood, OOPSLA 2014; Vigna's constants): the
 * next output of the generator whose state is *s. Fixed seeds give the
 * same draws on every machine (the model builder's choices, so the bits). */
static inline uint64_t dr_splitmix64(uint64_t *s) {
  uint64_t z = (*s += UINT64_C(0x9E3779B97F4A7C15));
  z = (z ^ (z >> 30)) * UINT64_C(0xBF58476D1CE4E5B9);
  z = (z ^ (z >> 27)) * UINT64_C(0x94D049BB133111EB);
  return z ^ (z >> 31);
}

#endif
