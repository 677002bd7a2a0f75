/* Mesh cloths: a triangle mesh file into drape_cloth_mesh (drape/scene.h,
 * docs/scenes.md "Mesh cloth"), through Assimp's C API.
 *
 * Assimp is asked only to triangulate and to bake the file's node
 * transforms into the vertices (glTF and FBX place meshes by nodes). It is
 * not asked to join identical vertices: it would join by position and
 * normal and UV, so a seam in UV space would split the cloth in two. We
 * weld by position ourselves, with the scene's `weld` distance in metres
 * after the transform, and number the welded vertices in the order the
 * triangles first use them: every importer hands faces in file order, so
 * this numbering is the same whatever the importer does with its vertex
 * arrays (Assimp's OBJ importer, for one, writes one vertex per face
 * corner), and for an OBJ whose vertices are listed in that order (as
 * scripts/make_meshes.py writes them) it is the file's own order.
 *
 * UVs are read per triangle corner before the weld (Assimp gives one UV
 * per vertex of its own, and splits a vertex that has two) and kept per
 * corner with the triangles (tri_uv): the weld joins a UV seam's two sides
 * in position, and their texture coordinates stay apart. */
#include <assimp/cfileio.h>
#include <assimp/cimport.h>
#include <assimp/postprocess.h>
#include <assimp/scene.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/util.h"
#include "core/validate.h"
#include "drape/limits.h"
#include "drape/scene.h"

#define DEG (3.14159265358979323846 / 180.0)

/* p' = translate + scale * Rz Ry Rx p: rotation about x first, then y,
 * then z (the order the scene key documents), then scale, then translate. */
static void transform(const drape_cloth_mesh *m, const double in[3], double out[3]) {
  const double ax = m->rotate_deg[0] * DEG, ay = m->rotate_deg[1] * DEG, az = m->rotate_deg[2] * DEG;
  double x = in[0], y = in[1], z = in[2], t;
  t = y * cos(ax) - z * sin(ax), z = y * sin(ax) + z * cos(ax), y = t;
  t = x * cos(ay) + z * sin(ay), z = -x * sin(ay) + z * cos(ay), x = t;
  t = x * cos(az) - y * sin(az), y = x * sin(az) + y * cos(az), x = t;
  out[0] = m->translate[0] + m->scale * x;
  out[1] = m->translate[1] + m->scale * y;
  out[2] = m->translate[2] + m->scale * z;
}

/* ---- welding: a hash of cells of side max(weld, tiny) ---- */

typedef struct {
  long long *key; /* cell key per slot */
  int *head;      /* first welded vertex in the slot's chain, -1: empty slot */
  int *next;      /* chain per welded vertex */
  size_t cap;
} weld_hash;

static long long cell_key(long long i, long long j, long long k) {
  /* 21 bits each: cells beyond that wrap, which only costs a longer chain */
  return ((i & 0x1fffff) << 42) | ((j & 0x1fffff) << 21) | (k & 0x1fffff);
}

static size_t slot_of(const weld_hash *h, long long key) {
  uint64_t x = (uint64_t)key * 0x9E3779B97F4A7C15ull;
  return (size_t)(x >> 20) & (h->cap - 1);
}

static void cell_of(const double p[3], double cell, long long c[3]) {
  for (int q = 0; q < 3; q++) c[q] = (long long)floor(p[q] / cell);
}

/* The slot holding cell `key`, or -1 (open addressing, nothing deleted). */
static int find_slot(const weld_hash *h, long long key) {
  for (size_t s = slot_of(h, key); h->head[s] != -1; s = (s + 1) & (h->cap - 1))
    if (h->key[s] == key) return (int)s;
  return -1;
}

/* The welded vertex within `weld` of p (the first one made), or -1. */
static int weld_find(const weld_hash *h, const double *xyz, const double p[3], double cell,
                     double weld) {
  long long c[3];
  cell_of(p, cell, c);
  int best = -1;
  for (int di = -1; di <= 1; di++)
    for (int dj = -1; dj <= 1; dj++)
      for (int dk = -1; dk <= 1; dk++) {
        const int s = find_slot(h, cell_key(c[0] + di, c[1] + dj, c[2] + dk));
        if (s < 0) continue;
        for (int v = h->head[s]; v >= 0; v = h->next[v]) {
          const double dx = xyz[3 * v] - p[0], dy = xyz[3 * v + 1] - p[1], dz = xyz[3 * v + 2] - p[2];
          if (sqrt(dx * dx + dy * dy + dz * dz) <= weld && (best < 0 || v < best)) best = v;
        }
      }
  return best;
}

static void weld_insert(weld_hash *h, const double p[3], double cell, int v) {
  long long c[3];
  cell_of(p, cell, c);
  const long long key = cell_key(c[0], c[1], c[2]);
  size_t s = slot_of(h, key);
  while (h->head[s] != -1 && h->key[s] != key) s = (s + 1) & (h->cap - 1);
  h->key[s] = key;
  h->next[v] = h->head[s];
  h->head[s] = v;
}

/* Twice the triangle's area and its longest edge. */
static double twice_area(const double *a, const double *b, const double *c, double *longest) {
  double u[3], v[3], w[3], n[3];
  for (int q = 0; q < 3; q++) u[q] = b[q] - a[q], v[q] = c[q] - a[q], w[q] = c[q] - b[q];
  n[0] = u[1] * v[2] - u[2] * v[1];
  n[1] = u[2] * v[0] - u[0] * v[2];
  n[2] = u[0] * v[1] - u[1] * v[0];
  const double lu = u[0] * u[0] + u[1] * u[1] + u[2] * u[2];
  const double lv = v[0] * v[0] + v[1] * v[1] + v[2] * v[2];
  const double lw = w[0] * w[0] + w[1] * w[1] + w[2] * w[2];
  *longest = sqrt(fmax(lu, fmax(lv, lw)));
  return sqrt(n[0] * n[0] + n[1] * n[1] + n[2] * n[2]);
}

/* ---- guarded import ----
 *
 * Assimp opens the mesh file and whatever it names (an OBJ's mtllib, a
 * glTF's buffers and images) through the file system we hand it: regular
 * files only, opened without blocking (a FIFO would wait for a writer
 * forever), read only. */

static size_t io_read(struct aiFile *f, char *buf, size_t size, size_t count) {
  return fread(buf, size, count, (FILE *)f->UserData);
}
static size_t io_write(struct aiFile *f, const char *buf, size_t size, size_t count) {
  (void)f, (void)buf, (void)size, (void)count;
  return 0;
}
static size_t io_tell(struct aiFile *f) {
  const long at = ftell((FILE *)f->UserData);
  return at < 0 ? 0 : (size_t)at;
}
static size_t io_size(struct aiFile *f) {
  struct stat st;
  return fstat(fileno((FILE *)f->UserData), &st) == 0 ? (size_t)st.st_size : 0;
}
static enum aiReturn io_seek(struct aiFile *f, size_t off, enum aiOrigin origin) {
  const int whence = origin == aiOrigin_CUR ? SEEK_CUR : origin == aiOrigin_END ? SEEK_END : SEEK_SET;
  if (off > (size_t)LONG_MAX) return aiReturn_FAILURE;
  return fseek((FILE *)f->UserData, (long)off, whence) == 0 ? aiReturn_SUCCESS : aiReturn_FAILURE;
}
static void io_flush(struct aiFile *f) { (void)f; }

static struct aiFile *io_open(struct aiFileIO *io, const char *path, const char *mode) {
  (void)io;
  if (strpbrk(mode, "wa+")) return NULL;
  const int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) return NULL;
  struct stat st;
  if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    close(fd);
    return NULL;
  }
  const int fl = fcntl(fd, F_GETFL);
  if (fl >= 0) fcntl(fd, F_SETFL, fl & ~O_NONBLOCK);
  FILE *fp = fdopen(fd, "rb");
  struct aiFile *f = fp ? calloc(1, sizeof *f) : NULL;
  if (!f) {
    if (fp) fclose(fp);
    else close(fd);
    return NULL;
  }
  f->ReadProc = io_read, f->WriteProc = io_write, f->TellProc = io_tell;
  f->FileSizeProc = io_size, f->SeekProc = io_seek, f->FlushProc = io_flush;
  f->UserData = (aiUserData)fp;
  return f;
}
static void io_close(struct aiFileIO *io, struct aiFile *f) {
  (void)io;
  if (!f) return;
  fclose((FILE *)f->UserData);
  free(f);
}

/* A PLY file's header against its size: the counts it declares need at
 * least so many bytes (binary: each property's size; text: a digit and a
 * separator per property), so a header that promises more than the file
 * holds is refused before Assimp allocates for it (a 193-byte file
 * declaring 2e9 vertices) or asserts on the missing data. Returns 0, or
 * fills why[] and returns 1. */
static int ply_header_check(const char *path, long long file_size, char *why, size_t cap) {
  FILE *f = fopen(path, "rb");
  if (!f) return 0;
  char line[512];
  if (!fgets(line, sizeof line, f) || strncmp(line, "ply", 3) != 0) {
    fclose(f);
    return 0;
  }
  int binary = 0, in_element = 0;
  long long count = 0, need = 0, per = 0;
  char elem[64] = "";
  while (fgets(line, sizeof line, f)) {
    char a[64], b[64], c[64];
    if (!strncmp(line, "end_header", 10)) break;
    if (sscanf(line, "format %63s", a) == 1) binary = strcmp(a, "ascii") != 0;
    else if (sscanf(line, "element %63s %63s", a, b) == 2) {
      if (in_element) need += count * per;
      snprintf(elem, sizeof elem, "%s", a);
      count = strtoll(b, NULL, 10), per = 0, in_element = 1;
      if (count < 0 || count > (1LL << 40)) {
        snprintf(why, cap, "its header declares %s %s elements", b, elem);
        fclose(f);
        return 1;
      }
    } else if (sscanf(line, "property list %63s %63s %63s", a, b, c) == 3) {
      per += binary ? (strstr(a, "char") ? 1 : strstr(a, "short") ? 2 : strstr(a, "64") || strstr(a, "double") ? 8 : 4) : 2;
    } else if (sscanf(line, "property %63s %63s", a, b) == 2) {
      per += binary ? (strstr(a, "char") ? 1 : strstr(a, "short") ? 2 : strstr(a, "64") || strstr(a, "double") ? 8 : 4) : 2;
    }
  }
  const long header = ftell(f);
  fclose(f);
  if (in_element) need += count * per;
  if (need > file_size - (header > 0 ? header : 0)) {
    snprintf(why, cap, "its header declares elements that need at least %lld bytes, but the file "
             "has %lld after its header", need, file_size - (header > 0 ? header : 0));
    return 1;
  }
  return 0;
}

/* An OBJ face of more than this many corners is refused before import:
 * Assimp's triangulation of one polygon grows faster than the square of
 * its corners (14 s for 40,000 on the development machine), and no cloth
 * face needs more. */
#define OBJ_MAX_FACE_CORNERS 1024

/* The most corners of one "f" line of an OBJ file, and its line. */
static long obj_max_corners(const char *path, long *line_out) {
  FILE *f = fopen(path, "rb");
  if (!f) return 0;
  long best = 0, line = 1, corners = 0;
  int at_start = 1, in_face = 0, in_token = 0, c;
  while ((c = getc(f)) != EOF) {
    if (c == '\n') {
      if (in_face && corners > best) best = corners, *line_out = line;
      line++, at_start = 1, in_face = 0, in_token = 0, corners = 0;
      continue;
    }
    if (at_start) {
      at_start = 0;
      if (c == 'f') {
        const int d = getc(f);
        in_face = d == ' ' || d == '\t';
        if (d == '\n') { line++, at_start = 1; continue; }
        continue;
      }
    }
    if (!in_face) continue;
    const int space = c == ' ' || c == '\t' || c == '\r';
    if (!space && !in_token) corners++;
    in_token = !space;
  }
  if (in_face && corners > best) best = corners, *line_out = line;
  fclose(f);
  return best;
}

/* Assimp's import on a thread of its own with a large stack: its parsers
 * recurse once per level of nesting (glTF's JSON, FBX's nodes), and a
 * file nested 100,000 deep would overflow a default 8 MiB stack. The
 * stack is reserved, not committed: pages are touched only as deep as
 * the file goes. */
#define IMPORT_STACK_BYTES ((size_t)1 << 30)
typedef struct import_job {
  const char *path;
  const struct aiScene *scene;
} import_job;

static void *import_run(void *arg) {
  import_job *j = arg;
  struct aiFileIO io = {io_open, io_close, NULL};
  j->scene = aiImportFileEx(j->path, aiProcess_Triangulate | aiProcess_PreTransformVertices, &io);
  return NULL;
}

static const struct aiScene *guarded_import(const char *path) {
  import_job j = {path, NULL};
  pthread_attr_t at;
  pthread_t th;
  if (pthread_attr_init(&at) != 0) return NULL;
  int ok = pthread_attr_setstacksize(&at, IMPORT_STACK_BYTES) == 0 &&
           pthread_create(&th, &at, import_run, &j) == 0;
  pthread_attr_destroy(&at);
  if (!ok) { /* no thread to be had: import here, as before */
    import_run(&j);
    return j.scene;
  }
  pthread_join(th, NULL);
  return j.scene;
}

int drape_cloth_mesh_load(drape_cloth_def *d, int index, const char *base_dir, drape_err *e) {
  drape_cloth_mesh *m = &d->mesh;
  char key[64], path[4096];
  dr_pathf(key, sizeof key, "cloth[%d].mesh.file", index);
  if (!m->file || !m->file[0])
    return drape_fail(e, DRAPE_EINVAL, "%s: missing (the path of a triangle mesh: OBJ, glTF, PLY, "
                      "STL, FBX)", key);
  /* the transform first, with the validator's messages: a scale of 0
   * would otherwise be reported as a mesh of zero-area triangles */
  char kp[96];
  dr_pathf(kp, sizeof kp, "cloth[%d].mesh.scale", index);
  if (vd_range(e, kp, m->scale, 0, 0, DRAPE_MAX_COORD, 1)) return DRAPE_EINVAL;
  dr_pathf(kp, sizeof kp, "cloth[%d].mesh.weld", index);
  if (vd_range(e, kp, m->weld, 0, 1, DRAPE_MAX_SPACING, 1)) return DRAPE_EINVAL;
  for (int q = 0; q < 3; q++) {
    dr_pathf(kp, sizeof kp, "cloth[%d].mesh.translate[%d]", index, q);
    if (vd_range(e, kp, m->translate[q], -DRAPE_MAX_COORD, 1, DRAPE_MAX_COORD, 1)) return DRAPE_EINVAL;
    dr_pathf(kp, sizeof kp, "cloth[%d].mesh.rotate_deg[%d]", index, q);
    if (vd_range(e, kp, m->rotate_deg[q], -DRAPE_MAX_COORD, 1, DRAPE_MAX_COORD, 1)) return DRAPE_EINVAL;
  }
  if (m->file[0] == '/' || !base_dir || !base_dir[0])
    dr_pathf(path, sizeof path, "%s", m->file);
  else
    dr_pathf(path, sizeof path, "%s/%s", base_dir, m->file);
  /* Assimp's own message for a missing file is vague; say which. */
  struct stat st;
  if (stat(path, &st) != 0)
    return drape_fail(e, DRAPE_EINVAL, "%s = \"%s\": cannot read '%s' (%s)", key, m->file, path,
                      strerror(errno));
  if (!S_ISREG(st.st_mode))
    return drape_fail(e, DRAPE_EINVAL, "%s = \"%s\": '%s' is not a regular file", key, m->file, path);
  char why[256];
  if (ply_header_check(path, (long long)st.st_size, why, sizeof why))
    return drape_fail(e, DRAPE_EINVAL, "%s = \"%s\": '%s' is not a valid PLY file: %s", key,
                      m->file, path, why);
  const size_t plen = strlen(path);
  if (plen > 4 && strcasecmp(path + plen - 4, ".obj") == 0) {
    long line = 0;
    const long corners = obj_max_corners(path, &line);
    if (corners > OBJ_MAX_FACE_CORNERS)
      return drape_fail(e, DRAPE_EINVAL, "%s = \"%s\": line %ld has a face of %ld corners; allowed "
                        "up to %d (split the polygon, or triangulate it in the modelling tool)",
                        key, m->file, line, corners, OBJ_MAX_FACE_CORNERS);
  }
  const struct aiScene *sc = guarded_import(path);
  if (!sc)
    return drape_fail(e, DRAPE_EINVAL, "%s = \"%s\": cannot read '%s' as a mesh (Assimp: %s)", key,
                      m->file, path, aiGetErrorString());

  /* every triangle of every mesh, as corners into the file's vertices */
  long long n_corner = 0, n_raw = 0;
  int has_uv = 0;
  for (unsigned k = 0; k < sc->mNumMeshes; k++) {
    const struct aiMesh *am = sc->mMeshes[k];
    n_raw += am->mNumVertices;
    for (unsigned f = 0; f < am->mNumFaces; f++) n_corner += am->mFaces[f].mNumIndices == 3 ? 3 : 0;
    has_uv |= am->mTextureCoords[0] != NULL;
  }
  if (n_corner == 0) {
    aiReleaseImport(sc);
    return drape_fail(e, DRAPE_EINVAL, "%s = \"%s\": '%s' has no triangles (a cloth needs a "
                      "surface: faces, not only points or lines)", key, m->file, path);
  }
  if (n_corner > 3LL * DRAPE_MAX_PARTICLES * 4) {
    aiReleaseImport(sc);
    return drape_fail(e, DRAPE_EINVAL, "%s = \"%s\": %lld triangles, far more than a cloth of at "
                      "most %d vertices has", key, m->file, n_corner / 3, DRAPE_MAX_PARTICLES);
  }
  double *raw = malloc(sizeof *raw * 3 * (size_t)n_corner);
  float *raw_uv = malloc(sizeof *raw_uv * 2 * (size_t)n_corner);
  int *weld_of = malloc(sizeof *weld_of * (size_t)n_corner);
  double *xyz = malloc(sizeof *xyz * 3 * (size_t)n_corner);
  float *uv = malloc(sizeof *uv * 2 * (size_t)n_corner);
  weld_hash h = {0};
  h.cap = 1;
  while (h.cap < 2 * (size_t)n_corner) h.cap <<= 1;
  h.key = malloc(sizeof *h.key * h.cap);
  h.head = malloc(sizeof *h.head * h.cap);
  h.next = malloc(sizeof *h.next * (size_t)n_corner);
  int rc = DRAPE_OK;
  if (!raw || !raw_uv || !weld_of || !xyz || !uv || !h.key || !h.head || !h.next) {
    rc = drape_fail(e, DRAPE_ENOMEM, "%s: out of memory for %lld triangle corners", key, n_corner);
    goto done;
  }
  long long c = 0;
  for (unsigned k = 0; k < sc->mNumMeshes && !rc; k++) {
    const struct aiMesh *am = sc->mMeshes[k];
    for (unsigned f = 0; f < am->mNumFaces && !rc; f++) {
      const struct aiFace *fc = &am->mFaces[f];
      if (fc->mNumIndices != 3) continue; /* points and lines: not cloth */
      for (int q = 0; q < 3; q++, c++) {
        const unsigned vi = fc->mIndices[q];
        /* an importer hands the file's indices through as they are: one
         * past the vertex list would read outside it */
        if (vi >= am->mNumVertices) {
          rc = drape_fail(e, DRAPE_EINVAL, "%s = \"%s\": face %u of mesh %u uses vertex %u, but "
                          "the mesh has %u vertices (indices 0 .. %u)", key, m->file, f, k, vi,
                          am->mNumVertices, am->mNumVertices ? am->mNumVertices - 1 : 0);
          break;
        }
        const struct aiVector3D v = am->mVertices[vi];
        const double p[3] = {v.x, v.y, v.z};
        if (!isfinite(p[0]) || !isfinite(p[1]) || !isfinite(p[2])) {
          rc = drape_fail(e, DRAPE_EINVAL, "%s = \"%s\": vertex %u of mesh %u is (%s, %s, %s): "
                          "coordinates must be finite numbers", key, m->file, vi, k,
                          dr_num(p[0]), dr_num(p[1]), dr_num(p[2]));
          break;
        }
        transform(m, p, raw + 3 * c);
        /* the range every coordinate of a scene has: beyond it a float
         * triangle would have zero area and be dropped as degenerate */
        for (int j = 0; j < 3 && !rc; j++)
          if (!(fabs(raw[3 * c + j]) <= DRAPE_MAX_COORD))
            rc = drape_fail(e, DRAPE_EINVAL, "%s = \"%s\": vertex %u of mesh %u is at (%s, %s, %s) "
                            "m after the transform; coordinates must be within +-%s m", key,
                            m->file, vi, k, dr_num(raw[3 * c]), dr_num(raw[3 * c + 1]),
                            dr_num(raw[3 * c + 2]), dr_num(DRAPE_MAX_COORD));
        if (rc) break;
        if (am->mTextureCoords[0]) {
          raw_uv[2 * c] = am->mTextureCoords[0][vi].x;
          raw_uv[2 * c + 1] = am->mTextureCoords[0][vi].y;
        } else {
          raw_uv[2 * c] = raw_uv[2 * c + 1] = 0;
        }
      }
    }
  }
  if (rc) goto done;
  /* weld, in corner order: a vertex is the first one made within `weld` */
  {
    double ext = 0;
    for (long long i = 0; i < 3 * n_corner; i++) ext = fmax(ext, fabs(raw[i]));
    /* cells no smaller than 1e-9 of the extent: the keys stay in range;
     * with a smaller weld a cell just holds more candidates */
    const double cell = fmax(m->weld, fmax(ext * 1e-9, 1e-300));
    for (size_t s = 0; s < h.cap; s++) h.head[s] = -1, h.key[s] = 0;
    int nw = 0;
    for (long long i = 0; i < n_corner; i++) {
      int w = weld_find(&h, xyz, raw + 3 * i, cell, m->weld);
      if (w < 0) {
        w = nw++;
        memcpy(xyz + 3 * w, raw + 3 * i, 3 * sizeof *xyz);
        uv[2 * w] = raw_uv[2 * i];
        uv[2 * w + 1] = raw_uv[2 * i + 1];
        weld_insert(&h, raw + 3 * i, cell, w);
      }
      weld_of[i] = w;
    }
  }
  /* drop zero-area triangles (welded corners, collinear corners), then
   * number the vertices in the order the kept triangles first use them */
  {
    long long n_tri = n_corner / 3, kept = 0, dropped = 0;
    int *tris = malloc(sizeof *tris * 3 * (size_t)n_tri);
    int *num = malloc(sizeof *num * (size_t)n_corner);
    float *tuv = has_uv ? malloc(sizeof *tuv * 6 * (size_t)n_tri) : NULL;
    if (!tris || !num || (has_uv && !tuv)) {
      free(tris), free(num), free(tuv);
      rc = drape_fail(e, DRAPE_ENOMEM, "%s: out of memory", key);
      goto done;
    }
    for (long long i = 0; i < n_corner; i++) num[i] = -1;
    int nv = 0;
    for (long long t = 0; t < n_tri; t++) {
      const int a = weld_of[3 * t], b = weld_of[3 * t + 1], cc = weld_of[3 * t + 2];
      double longest;
      const double A2 = twice_area(xyz + 3 * a, xyz + 3 * b, xyz + 3 * cc, &longest);
      /* zero area: repeated corners, or an area below float resolution of
       * its longest edge (the solver's positions are floats) */
      if (a == b || b == cc || a == cc || !(A2 > 1e-12 * longest * longest)) {
        dropped++;
        continue;
      }
      const int w3[3] = {a, b, cc};
      for (int q = 0; q < 3; q++) {
        if (num[w3[q]] < 0) num[w3[q]] = nv++;
        tris[3 * kept + q] = num[w3[q]];
      }
      if (tuv) memcpy(tuv + 6 * kept, raw_uv + 6 * t, 6 * sizeof *tuv);
      kept++;
    }
    if (kept == 0) {
      free(tris), free(num), free(tuv);
      rc = drape_fail(e, DRAPE_EINVAL, "%s = \"%s\": no triangles left: all %lld have zero area "
                      "(after welding vertices within weld = %s m)", key, m->file, n_tri,
                      dr_num(m->weld));
      goto done;
    }
    if (nv > DRAPE_MAX_PARTICLES) {
      free(tris), free(num), free(tuv);
      rc = drape_fail(e, DRAPE_EINVAL, "%s = \"%s\": %d vertices after welding, more than the %d "
                      "particles a cloth may have (DRAPE_MAX_PARTICLES)", key, m->file, nv,
                      DRAPE_MAX_PARTICLES);
      goto done;
    }
    double *vx = malloc(sizeof *vx * 3 * (size_t)nv);
    float *vuv = has_uv ? malloc(sizeof *vuv * 2 * (size_t)nv) : NULL;
    if (!vx || (has_uv && !vuv)) {
      free(tris), free(num), free(vx), free(vuv), free(tuv);
      rc = drape_fail(e, DRAPE_ENOMEM, "%s: out of memory", key);
      goto done;
    }
    for (long long w = 0; w < n_corner; w++) {
      if (num[w] < 0) continue;
      memcpy(vx + 3 * num[w], xyz + 3 * w, 3 * sizeof *vx);
      if (vuv) vuv[2 * num[w]] = uv[2 * w], vuv[2 * num[w] + 1] = uv[2 * w + 1];
    }
    free(num);
    if (dropped > 0)
      fprintf(stderr, "drape: warning: %s = \"%s\": %lld zero-area triangle%s dropped (of %lld)\n",
              key, m->file, dropped, dropped == 1 ? "" : "s", n_tri);
    free(m->vertices), free(m->uv), free(m->tris), free(m->tri_uv);
    m->vertices = vx;
    m->uv = vuv;
    m->n_vertices = nv;
    m->tris = tris;
    m->n_tris = (int)kept;
    m->tri_uv = tuv;
  }
  /* The springs solver (seed 001) makes springs of distance constraints
   * only: a mesh's bending is its dihedral constraints, which it does not
   * run, so such a cloth would fold freely without a word. */
  if (!rc && d->solver == DRAPE_SOLVER_SPRINGS)
    fprintf(stderr, "drape: warning: cloth[%d].solver = \"springs\": a mesh cloth has no bend "
            "springs (its bending is the dihedral-angle constraint, which needs \"xpbd\" or "
            "\"jakobsen\"): it will not resist bending; cloth[%d].bend_stiffness = %s and "
            "compliance.bend are not used\n", index, index, dr_num(d->bend_stiffness));
done:
  aiReleaseImport(sc);
  free(raw), free(raw_uv), free(weld_of), free(xyz), free(uv);
  free(h.key), free(h.head), free(h.next);
  (void)n_raw;
  return rc;
}
