/* libFuzzer target for the scene parser: drape_scene_parse() on arbitrary
 * bytes (tests/cli_fuzz_scene.sh builds it with clang
 * -fsanitize=fuzzer,address,undefined and runs it from the shipped scenes
 * with fuzz/scene.dict). What it holds the parser to, besides "no crash,
 * no leak, no undefined behaviour, no hang":
 *   - the result is 0 or DRAPE_EINVAL / DRAPE_ENOMEM, never anything else;
 *   - an error names the input (the label starts the message) and leaves
 *     the scene empty;
 *   - a scene that parses also passes drape_scene_validate() (the loader
 *     returns nothing the checks would refuse);
 *   - the render def (camera, size, colours) of a scene that parses parses
 *     too, and passes drape_render_def_validate(). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "drape/render_def.h"
#include "drape/scene.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  /* drape_scene_parse takes C text; the loader refuses a NUL byte before
   * parsing, so inputs holding one are parsed up to it, as text. */
  char *text = malloc(size + 1);
  if (!text) return 0;
  memcpy(text, data, size);
  text[size] = '\0';
  drape_scene s;
  drape_err e = {0};
  int r = drape_scene_parse(text, "fuzz", &s, &e);
  drape_render_def look;
  drape_err ev = {0};
  int rv = drape_render_def_parse(text, "fuzz", &look, &ev);
  free(text);
  if (r == 0) {
    drape_err e2 = {0};
    if (drape_scene_validate(&s, &e2) != 0) {
      fprintf(stderr, "parsed scene fails validation: %s\n", e2.msg);
      abort();
    }
    if (rv != 0 || drape_render_def_validate(&look, &e2) != 0) {
      fprintf(stderr, "the render def of a parsed scene fails: %s%s\n", ev.msg, e2.msg);
      abort();
    }
  } else {
    if (r != DRAPE_EINVAL && r != DRAPE_ENOMEM) {
      fprintf(stderr, "unexpected code %d: %s\n", r, e.msg);
      abort();
    }
    if (strncmp(e.msg, "fuzz: ", 6) != 0) {
      fprintf(stderr, "message does not name the input: %s\n", e.msg);
      abort();
    }
    if (s.n_cloth || s.n_rope || s.n_string || s.n_sphere || s.cloth || s.rope || s.string ||
        s.sphere) {
      fprintf(stderr, "failed parse left objects behind: %s\n", e.msg);
      abort();
    }
  }
  drape_scene_free(&s);
  drape_render_def_free(&look);
  return 0;
}
