/* Golden hashes (docs/testing.md "Golden hashes"; the idea is Box2D's
 * determinism test): the main scene and the hanging rope are stepped a
 * fixed number of frames through the public world API (drape/world.h) on
 * the CPU reference and on OpenCL on PoCL, and the bits of every object's
 * points (and the cloth's normals) are hashed with FNV-1a 64. The hashes
 * must equal the committed ones in tests/data/golden_hashes.txt, and the
 * two backends must give the same hash (drape promises bit-identical
 * results on PoCL, docs/solver.md "Reproducible").
 *
 * Any change to the kernels (kernels/), the CPU reference, the step order or the
 * scene loader that moves one bit of these results fails here. That is
 * the point: a change of bits must be deliberate, so the commit that makes
 * it also updates the data file and says why.
 *
 * What is hashed, in this order, per object in the world's numbering: its
 * n_points x 3 floats from drape_world_read_points, then, for a cloth, its
 * n_points x 3 normals from drape_world_read_normals. Each float
 * goes in as its IEEE-754 bit pattern, least significant byte first, so
 * the hash does not depend on the host's byte order. FNV-1a 64 (offset
 * basis 0xcbf29ce484222325, prime 0x100000001b3) is not cryptographic: it
 * is a change detector, like run.json's scene hash. */
#include <CL/cl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "drape/world.h"
#include "support.h"

#define FNV64_OFFSET 0xcbf29ce484222325ULL
#define FNV64_PRIME 0x100000001b3ULL
#define GOLDEN_FILE "tests/data/golden_hashes.txt"

static uint64_t fnv1a_bytes(uint64_t h, const unsigned char *p, size_t n) {
  for (size_t i = 0; i < n; i++) {
    h ^= p[i];
    h *= FNV64_PRIME;
  }
  return h;
}

/* Floats by bit pattern, little-endian byte order whatever the host. */
static uint64_t fnv1a_floats(uint64_t h, const float *x, size_t n) {
  for (size_t i = 0; i < n; i++) {
    uint32_t u;
    memcpy(&u, &x[i], sizeof u);
    const unsigned char b[4] = {(unsigned char)u, (unsigned char)(u >> 8), (unsigned char)(u >> 16),
                                (unsigned char)(u >> 24)};
    h = fnv1a_bytes(h, b, 4);
  }
  return h;
}

/* The global index (as `drape devices` numbers them: platforms in the ICD
 * loader's order, every device type) of the first PoCL device, or -1. The
 * bit-identity promise is PoCL's; a GPU may round division and square
 * root differently, so the default device choice (first GPU) is not used. */
static int pocl_device_index(void) {
  cl_platform_id plats[16];
  cl_uint np = 0;
  if (clGetPlatformIDs(16, plats, &np) != CL_SUCCESS) return -1;
  int index = 0;
  for (cl_uint p = 0; p < np && p < 16; p++) {
    char name[256] = "";
    clGetPlatformInfo(plats[p], CL_PLATFORM_NAME, sizeof name, name, NULL);
    cl_device_id devs[64];
    cl_uint nd = 0;
    if (clGetDeviceIDs(plats[p], CL_DEVICE_TYPE_ALL, 64, devs, &nd) != CL_SUCCESS) continue;
    if (strstr(name, "Portable Computing Language") && nd > 0) return index;
    index += (int)(nd < 64 ? nd : 64);
  }
  return -1;
}

/* Runs `frames` frames of a scene file and returns the hash of its state. */
static uint64_t world_hash(const char *scene, int frames, drape_backend be, int device,
                           drape_kernel_form form, double *ms) {
  char path[4096];
  snprintf(path, sizeof path, "%s/%s", drape_test_source_dir(), scene);
  drape_world_def def = drape_world_def_default();
  def.backend = be;
  def.kernel_form = form;
  if (device >= 0) {
    def.use_device = 1;
    def.device_index = device;
  }
  drape_world *w = NULL;
  drape_err e = {0};
  if (drape_world_load(path, &def, &w, &e)) {
    print_error("drape_world_load %s: %s\n", path, e.msg);
    fail();
  }
  double t0 = drape_now();
  for (int f = 0; f < frames; f++)
    if (drape_world_step(w, &e)) {
      print_error("%s frame %d: %s\n", scene, f + 1, e.msg);
      fail();
    }
  uint64_t h = FNV64_OFFSET;
  for (int k = 0; k < drape_world_object_count(w); k++) {
    drape_world_object o;
    assert_int_equal(drape_world_get_object(w, k, &o, &e), 0);
    float *x = malloc(sizeof(float) * 3 * (size_t)o.n_points);
    assert_non_null(x);
    assert_int_equal(drape_world_read_points(w, k, x, &e), 0);
    h = fnv1a_floats(h, x, 3 * (size_t)o.n_points);
    if (o.kind == DRAPE_WORLD_CLOTH) {
      assert_int_equal(drape_world_read_normals(w, k, x, &e), 0);
      h = fnv1a_floats(h, x, 3 * (size_t)o.n_points);
    }
    free(x);
  }
  *ms = (drape_now() - t0) * 1e3;
  drape_world_destroy(w);
  return h;
}

/* The committed hash for (scene, frames, backend); 0 when there is no line. */
static int golden_lookup(const char *scene, int frames, const char *backend, uint64_t *out) {
  char path[4096];
  snprintf(path, sizeof path, "%s/%s", drape_test_source_dir(), GOLDEN_FILE);
  FILE *f = fopen(path, "r");
  if (!f) {
    print_error("cannot open %s\n", path);
    fail();
  }
  char line[1024];
  int found = 0;
  while (fgets(line, sizeof line, f)) {
    char sc[512], be[64], hx[64];
    int fr;
    if (line[0] == '#' || sscanf(line, "%511s %d %63s %63s", sc, &fr, be, hx) != 4) continue;
    if (strcmp(sc, scene) || fr != frames || strcmp(be, backend)) continue;
    char *end = NULL;
    unsigned long long v = strtoull(hx, &end, 16);
    if (strncmp(hx, "0x", 2) || strlen(hx) != 18 || *end) {
      print_error("%s: bad hash '%s' (expected 0x and 16 hex digits)\n", GOLDEN_FILE, hx);
      fail();
    }
    *out = (uint64_t)v;
    found = 1;
  }
  fclose(f);
  return found;
}

static void check_golden(const char *scene, int frames) {
  int pocl = pocl_device_index();
  if (pocl < 0) {
    print_error("no PoCL OpenCL device (scripts/setup.sh installs pocl-opencl-icd)\n");
    fail();
  }
  /* the CPU reference, then PoCL with each kernel form (docs/solver.md):
   * both forms must give the committed "pocl" hash */
  const char *names[3] = {"cpu", "pocl", "pocl"};
  const char *forms[3] = {"", " (vector form)", " (gpu form)"};
  const drape_kernel_form form[3] = {DRAPE_KERNEL_FORM_AUTO, DRAPE_KERNEL_FORM_CPU,
                                     DRAPE_KERNEL_FORM_GPU};
  uint64_t got[3];
  int bad = 0;
  for (int b = 0; b < 3; b++) {
    double ms = 0;
    got[b] = world_hash(scene, frames, b ? DRAPE_BACKEND_CL : DRAPE_BACKEND_CPU, b ? pocl : -1,
                        form[b], &ms);
    uint64_t want = 0;
    int have = golden_lookup(scene, frames, names[b], &want);
    print_message("%s %d %s 0x%016" PRIx64 "  (%.0f ms)%s\n", scene, frames, names[b], got[b], ms,
                  forms[b]);
    if (!have) {
      print_error("%s has no line for %s %d %s; add: %s %d %s 0x%016" PRIx64 "\n", GOLDEN_FILE, scene,
                  frames, names[b], scene, frames, names[b], got[b]);
      bad = 1;
    } else if (want != got[b]) {
      print_error("%s after %d frames on %s%s: hash 0x%016" PRIx64 ", committed 0x%016" PRIx64
                  ". If this change of bits is intended, update %s in the same commit and give "
                  "the reason in the commit message.\n",
                  scene, frames, names[b], forms[b], got[b], want, GOLDEN_FILE);
      bad = 1;
    }
  }
  for (int b = 1; b < 3; b++)
    if (got[0] != got[b]) {
      print_error("%s after %d frames: cpu 0x%016" PRIx64 " != pocl%s 0x%016" PRIx64
                  ": the backends are no longer bit-identical (docs/solver.md \"Reproducible\")\n",
                  scene, frames, got[0], forms[b], got[b]);
      bad = 1;
    }
  if (bad) fail();
}

/* The hash itself: FNV-1a 64 test vectors, and byte order by value. */
static void test_fnv1a(void **state) {
  (void)state;
  assert_true(fnv1a_bytes(FNV64_OFFSET, (const unsigned char *)"", 0) == 0xcbf29ce484222325ULL);
  assert_true(fnv1a_bytes(FNV64_OFFSET, (const unsigned char *)"a", 1) == 0xaf63dc4c8601ec8cULL);
  assert_true(fnv1a_bytes(FNV64_OFFSET, (const unsigned char *)"foobar", 6) ==
              0x85944171f73967e8ULL);
  /* 1.0f is 0x3f800000: bytes 00 00 80 3f */
  const float one = 1.0f;
  const unsigned char le[4] = {0x00, 0x00, 0x80, 0x3f};
  assert_true(fnv1a_floats(FNV64_OFFSET, &one, 1) == fnv1a_bytes(FNV64_OFFSET, le, 4));
  /* -0.0f and 0.0f compare equal but hash apart: bits, not values */
  const float z[2] = {0.0f, -0.0f};
  assert_true(fnv1a_floats(FNV64_OFFSET, &z[0], 1) != fnv1a_floats(FNV64_OFFSET, &z[1], 1));
}

/* The main scene: 64 x 64 cloth, 20 substeps, self-collision, onto the
 * sphere; 30 frames = 600 substeps reach the sphere (contact, friction). */
static void test_main_scene(void **state) {
  (void)state;
  check_golden("scenes/drape_sphere.json", 30);
}

/* The 80-segment chain of seed 004 for the scene's whole 600 frames (10 s,
 * 12000 substeps, settled onto its catenary): a few ms on the CPU. */
static void test_hanging_rope(void **state) {
  (void)state;
  check_golden("scenes/hanging_rope.json", 600);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_fnv1a),
      cmocka_unit_test(test_main_scene),
      cmocka_unit_test(test_hanging_rope),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
