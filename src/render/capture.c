/* Frame capture: PNG files and an ffmpeg video (render.h).
 *
 *   render thread                         encoder threads (1..8)
 *   drape_capture_frame() ──copy──▶ [ring of queue_frames slots] ──▶ PNG encode
 *        (blocks only when full)                                   ▸ write to ffmpeg,
 *                                                                    in frame order
 *
 * PNG encoding costs ~50-60 ms for a 1280x720 frame (TOOLCHAIN.md), longer
 * than a simulation step, so it runs on encoder threads (one per spare
 * core, at most 8); the ring bounds the memory held. ffmpeg runs as a child process reading raw RGB24 from a
 * pipe; writing to that pipe also happens on an encoder thread, so a slow encoder
 * never blocks the simulation until the ring fills.
 *
 * No half-written file ever has the final name: a PNG is written as
 * DIR/.frame_0001.png.tmp and renamed when complete; the video goes to
 * DIR/.NAME.partial-PID.EXT and is renamed when ffmpeg exits cleanly,
 * removed otherwise. ffmpeg is started with an argument vector, never a
 * shell (core/spawn.c), and always reaped in drape_capture_close. PNG frame
 * numbers get opts.frame_digits digits (drape run: as many as its frame
 * count needs, so names sort). */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "io/io.h"
#include "drape/render.h"

#define STB_IMAGE_WRITE_IMPLEMENTATION
#define STBIW_WINDOWS_UTF8 0
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmissing-field-initializers"
#pragma GCC diagnostic ignored "-Wsign-compare"
#include <stb_image_write.h>
#pragma GCC diagnostic pop

enum { SLOT_FREE = 0, SLOT_FILLED = 1, SLOT_TAKEN = 2 };

typedef struct slot {
  uint8_t *rgb;
  int number;   /* the PNG's frame number                                 */
  long seq;     /* order of arrival: the video is written in this order  */
  int state;    /* SLOT_*                                                */
} slot;

#define MAX_ENCODERS 8

struct drape_capture {
  drape_capture_opts o;
  char png_dir[4096];
  char video_final[4096], video_tmp[4096];
  size_t frame_bytes;
  /* ring: filled in order by the caller, taken in order by the encoders,
   * finished in any order; the video is written strictly in order */
  slot *slots;
  int n_slots;
  long put_seq, take_seq, video_seq;
  int quit;
  pthread_mutex_t mu;
  pthread_cond_t can_put, can_take, video_turn;
  pthread_t workers[MAX_ENCODERS];
  int n_workers;
  /* the first error met on either thread; later frames are refused */
  int err_code;
  char err_msg[1024];
  /* ffmpeg */
  pid_t ffmpeg_pid;
  int pipe_fd;
  struct sigaction old_pipe;
  int pipe_handler_set;
  int png_count, video_count;
};

drape_capture_opts drape_capture_opts_default(void) {
  drape_capture_opts o;
  memset(&o, 0, sizeof o);
  o.fps = 60.0;
  o.png_level = 6;
  o.queue_frames = 4;
  return o;
}

int drape_find_on_path(const char *name, char *path, size_t cap) {
  if (strchr(name, '/')) {
    snprintf(path, cap, "%s", name);
    return access(path, X_OK) == 0;
  }
  const char *p = getenv("PATH");
  if (!p || !*p) return 0;
  while (*p) {
    const char *colon = strchr(p, ':');
    size_t len = colon ? (size_t)(colon - p) : strlen(p);
    if (len == 0) snprintf(path, cap, "./%s", name);
    else snprintf(path, cap, "%.*s/%s", (int)len, p, name);
    struct stat st;
    if (stat(path, &st) == 0 && S_ISREG(st.st_mode) && access(path, X_OK) == 0) return 1;
    if (!colon) break;
    p = colon + 1;
  }
  return 0;
}


static int check_dir(const char *flag, const char *dir, int create, drape_err *e) {
  struct stat st;
  if (stat(dir, &st) != 0) {
    if (!create)
      return drape_fail(e, DRAPE_EINVAL, "%s: folder \"%s\" does not exist", flag, dir);
    if (dr_mkdir_p(dir) != 0)
      return drape_fail(e, DRAPE_EINVAL, "%s \"%s\": cannot create the folder: %s", flag, dir,
                        strerror(errno));
  } else if (!S_ISDIR(st.st_mode)) {
    return drape_fail(e, DRAPE_EINVAL, "%s \"%s\": exists and is not a folder", flag, dir);
  }
  int err = 0;
  if (!dr_dir_writable(dir, &err))
    return drape_fail(e, DRAPE_EINVAL, "%s \"%s\": folder is not writable: %s", flag, dir,
                      strerror(err));
  return DRAPE_OK;
}

static void set_error(drape_capture *c, int code, const char *fmt, ...) DRAPE_PRINTF(3, 4);
static void set_error(drape_capture *c, int code, const char *fmt, ...) {
  pthread_mutex_lock(&c->mu);
  if (!c->err_code) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(c->err_msg, sizeof c->err_msg, fmt, ap);
    va_end(ap);
    c->err_code = code;
  }
  pthread_cond_broadcast(&c->can_put);
  pthread_mutex_unlock(&c->mu);
}

/* ---- PNG ---- */

typedef struct png_sink {
  FILE *f;
  int failed;
} png_sink;

static void png_write_fn(void *ctx, void *data, int size) {
  png_sink *s = ctx;
  if (!s->failed && fwrite(data, 1, (size_t)size, s->f) != (size_t)size) s->failed = errno ? errno : EIO;
}

static int write_png(drape_capture *c, const slot *sl) {
  char final[4200], tmp[4300];
  const int dg = c->o.frame_digits;
  snprintf(final, sizeof final, "%s/frame_%0*d.png", c->png_dir, dg, sl->number);
  snprintf(tmp, sizeof tmp, "%s/.frame_%0*d.png.tmp", c->png_dir, dg, sl->number);
  png_sink s = {fopen(tmp, "wb"), 0};
  if (!s.f) {
    set_error(c, DRAPE_EIO, "--png-dir: cannot create %s: %s", tmp, strerror(errno));
    return 0;
  }
  errno = 0;
  int ok = stbi_write_png_to_func(png_write_fn, &s, c->o.width, c->o.height, 3, sl->rgb,
                                  c->o.width * 3);
  if (fclose(s.f) != 0 && !s.failed) s.failed = errno ? errno : EIO;
  if (!ok || s.failed) {
    unlink(tmp);
    set_error(c, DRAPE_EIO, "--png-dir: writing %s failed: %s", final,
              s.failed ? strerror(s.failed) : "PNG encoder error");
    return 0;
  }
  if (rename(tmp, final) != 0) {
    int err = errno;
    unlink(tmp);
    set_error(c, DRAPE_EIO, "--png-dir: renaming %s to %s failed: %s", tmp, final,
              strerror(err));
    return 0;
  }
  return 1;
}

/* ---- video ---- */

static const char *ext_of(const char *path) {
  const char *slash = strrchr(path, '/');
  const char *dot = strrchr(path, '.');
  return dot && (!slash || dot > slash) ? dot + 1 : "";
}

static int start_ffmpeg(drape_capture *c, const char *exe, drape_err *e) {
  const char *ext = ext_of(c->video_final);
  char size[64], rate[64];
  snprintf(size, sizeof size, "%dx%d", c->o.width, c->o.height);
  snprintf(rate, sizeof rate, "%.6g", c->o.fps);
  const char *argv[48];
  int n = 0;
  argv[n++] = exe;
  argv[n++] = "-hide_banner";
  argv[n++] = "-nostdin";
  argv[n++] = "-loglevel";
  argv[n++] = "error";
  argv[n++] = "-y";
  argv[n++] = "-f"; argv[n++] = "rawvideo";
  argv[n++] = "-pix_fmt"; argv[n++] = "rgb24";
  argv[n++] = "-s"; argv[n++] = size;
  argv[n++] = "-r"; argv[n++] = rate;
  argv[n++] = "-i"; argv[n++] = "-";
  if (!strcasecmp(ext, "mp4") || !strcasecmp(ext, "mov") || !strcasecmp(ext, "mkv") ||
      !strcasecmp(ext, "m4v")) {
    /* H.264 in yuv420p plays everywhere; it needs even sizes. */
    argv[n++] = "-vf"; argv[n++] = "pad=ceil(iw/2)*2:ceil(ih/2)*2";
    argv[n++] = "-c:v"; argv[n++] = "libx264";
    argv[n++] = "-preset"; argv[n++] = "veryfast";
    argv[n++] = "-crf"; argv[n++] = "18";
    argv[n++] = "-pix_fmt"; argv[n++] = "yuv420p";
    if (strcasecmp(ext, "mkv")) { argv[n++] = "-movflags"; argv[n++] = "+faststart"; }
  } else if (!strcasecmp(ext, "webm")) {
    argv[n++] = "-vf"; argv[n++] = "pad=ceil(iw/2)*2:ceil(ih/2)*2";
    argv[n++] = "-pix_fmt"; argv[n++] = "yuv420p";
  }
  argv[n++] = c->video_tmp;
  argv[n] = NULL;

  int fds[2];
  if (pipe(fds) != 0)
    return drape_fail(e, DRAPE_EIO, "--video: pipe() failed: %s", strerror(errno));
  /* Neither end may stay open in other children; the read end becomes
   * ffmpeg's stdin (dup2 clears close-on-exec there). */
  fcntl(fds[0], F_SETFD, FD_CLOEXEC);
  fcntl(fds[1], F_SETFD, FD_CLOEXEC);
  /* An argument vector, no shell (core/spawn.c); ffmpeg in its own process
   * group, so a terminal's Ctrl-C reaches drape only, which then ends the
   * video cleanly by closing the pipe. */
  dr_spawn_opts so = dr_spawn_opts_default();
  so.stdin_fd = fds[0];
  so.stdout_null = 1;
  so.own_group = 1;
  pid_t pid = -1;
  drape_err se = {0};
  int rc = dr_spawn(argv, &so, &pid, &se);
  close(fds[0]);
  if (rc) {
    close(fds[1]);
    return drape_fail(e, rc, "--video: %s", se.msg);
  }
  /* The worker writes to the pipe; if ffmpeg dies, write() must fail with
   * EPIPE (reported) instead of SIGPIPE killing drape. */
  struct sigaction ign;
  memset(&ign, 0, sizeof ign);
  ign.sa_handler = SIG_IGN;
  sigemptyset(&ign.sa_mask);
  if (sigaction(SIGPIPE, &ign, &c->old_pipe) == 0) c->pipe_handler_set = 1;
  c->ffmpeg_pid = pid;
  c->pipe_fd = fds[1];
  return DRAPE_OK;
}

static int write_video(drape_capture *c, const slot *sl) {
  if (c->pipe_fd < 0) return 0;
  const uint8_t *p = sl->rgb;
  size_t left = c->frame_bytes;
  while (left > 0) {
    ssize_t w = write(c->pipe_fd, p, left);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) {
      set_error(c, DRAPE_EIO, "--video %s: ffmpeg stopped reading frames (%s); see its "
                "message above", c->video_final, strerror(errno));
      close(c->pipe_fd);
      c->pipe_fd = -1;
      return 0;
    }
    p += w;
    left -= (size_t)w;
  }
  return 1;
}

/* ---- worker ---- */

static void *worker_main(void *arg) {
  drape_capture *c = arg;
  for (;;) {
    pthread_mutex_lock(&c->mu);
    slot *sl = &c->slots[c->take_seq % c->n_slots];
    while (sl->state != SLOT_FILLED && !(c->quit && c->take_seq == c->put_seq)) {
      pthread_cond_wait(&c->can_take, &c->mu);
      sl = &c->slots[c->take_seq % c->n_slots];
    }
    if (sl->state != SLOT_FILLED) { /* quitting, nothing left */
      pthread_mutex_unlock(&c->mu);
      return NULL;
    }
    sl->state = SLOT_TAKEN;
    long seq = c->take_seq++;
    int failed = c->err_code != 0;
    pthread_cond_broadcast(&c->can_take); /* the next slot may be waiting */
    pthread_mutex_unlock(&c->mu);
    int png = 0, vid = 0;
    if (!failed && c->png_dir[0]) png = write_png(c, sl);
    pthread_mutex_lock(&c->mu);
    while (c->video_seq != seq) pthread_cond_wait(&c->video_turn, &c->mu);
    failed = c->err_code != 0;
    pthread_mutex_unlock(&c->mu);
    /* Our turn: no other thread writes to the pipe now. */
    if (!failed) vid = write_video(c, sl);
    pthread_mutex_lock(&c->mu);
    c->video_seq++;
    c->png_count += png;
    c->video_count += vid;
    sl->state = SLOT_FREE;
    pthread_cond_broadcast(&c->video_turn);
    pthread_cond_broadcast(&c->can_put);
    pthread_mutex_unlock(&c->mu);
  }
}

int drape_capture_open(const drape_capture_opts *o, drape_capture **out, drape_err *e) {
  *out = NULL;
  if (!o->png_dir && !o->video_path)
    return drape_fail(e, DRAPE_EINVAL, "capture: neither --png-dir nor --video given");
  if (o->width < 1 || o->height < 1 || o->width > 16384 || o->height > 16384)
    return drape_fail(e, DRAPE_EINVAL, "--size %dx%d: expected 1..16384 pixels per side",
                      o->width, o->height);
  if (o->png_dir && !*o->png_dir)
    return drape_fail(e, DRAPE_EINVAL, "--png-dir \"\": expected a folder name");
  if (o->png_dir && strlen(o->png_dir) > 3800)
    return drape_fail(e, DRAPE_EINVAL, "--png-dir: folder name longer than 3800 characters");
  char ffmpeg[4096] = "";
  if (o->video_path) {
    const char *v = o->video_path;
    const char *ext = ext_of(v);
    static const char *known[] = {"mp4", "mkv", "mov", "m4v", "webm", "avi", "gif"};
    int ok = 0;
    for (size_t k = 0; k < sizeof known / sizeof known[0]; k++) ok |= !strcasecmp(ext, known[k]);
    if (!*v || strlen(v) > 3800 || !ok)
      return drape_fail(e, DRAPE_EINVAL,
                        "--video \"%s\": expected a file name ending in .mp4, .mkv, .mov, .m4v, "
                        ".webm, .avi or .gif", v);
    if (!drape_find_on_path("ffmpeg", ffmpeg, sizeof ffmpeg))
      return drape_fail(e, DRAPE_EINVAL,
                        "--video %s: ffmpeg was not found on PATH; install it (Debian: "
                        "`apt-get install ffmpeg`) or write PNG frames with --png-dir DIR", v);
  }
  if (!(o->fps > 0 && o->fps <= 1000))
    return drape_fail(e, DRAPE_EINVAL, "video frame rate %g: expected 0 < fps <= 1000", o->fps);
  int rc;
  if (o->video_path) {
    char dir[4096];
    snprintf(dir, sizeof dir, "%s", o->video_path);
    char *slash = strrchr(dir, '/');
    if (!slash) snprintf(dir, sizeof dir, ".");
    else if (slash == dir) dir[1] = 0;
    else *slash = 0;
    if ((rc = check_dir("--video", dir, 0, e))) return rc;
    struct stat st;
    if (stat(o->video_path, &st) == 0 && S_ISDIR(st.st_mode))
      return drape_fail(e, DRAPE_EINVAL, "--video \"%s\": is a folder, expected a file name",
                        o->video_path);
  }
  /* Created last, so a bad --video leaves no empty PNG folder behind. */
  if (o->png_dir && (rc = check_dir("--png-dir", o->png_dir, 1, e))) return rc;

  drape_capture *c = calloc(1, sizeof *c);
  if (!c) return drape_fail(e, DRAPE_ENOMEM, "out of memory (capture)");
  c->o = *o;
  c->o.png_dir = NULL;
  c->o.video_path = NULL;
  c->pipe_fd = -1;
  if (c->o.png_level < 1 || c->o.png_level > 9) c->o.png_level = 6;
  if (c->o.queue_frames < 1) c->o.queue_frames = 4;
  if (c->o.frame_digits < 4 || c->o.frame_digits > 9) c->o.frame_digits = 4;
  c->frame_bytes = (size_t)o->width * (size_t)o->height * 3;
  if (o->png_dir) snprintf(c->png_dir, sizeof c->png_dir, "%s", o->png_dir);
  pthread_mutex_init(&c->mu, NULL);
  pthread_cond_init(&c->can_put, NULL);
  pthread_cond_init(&c->can_take, NULL);
  pthread_cond_init(&c->video_turn, NULL);
  /* Encoders: PNG encoding is the costly part and parallelises by frame;
   * leave a core to the renderer and the solver. The video alone needs
   * one thread (ffmpeg encodes in its own process). */
  int nw = c->o.encoders;
  if (nw <= 0) {
    long cpus = sysconf(_SC_NPROCESSORS_ONLN);
    nw = o->png_dir ? (int)(cpus - 1) : 1;
  }
  if (nw < 1) nw = 1;
  if (nw > MAX_ENCODERS) nw = MAX_ENCODERS;
  /* Every encoder busy and one frame waiting, unless frames are huge. */
  c->n_slots = c->o.queue_frames;
  if (c->n_slots < nw + 1 && c->frame_bytes <= ((size_t)64 << 20)) c->n_slots = nw + 1;
  if (nw > c->n_slots) nw = c->n_slots;
  c->slots = calloc((size_t)c->n_slots, sizeof *c->slots);
  if (!c->slots) {
    drape_capture_close(c, 0, NULL);
    return drape_fail(e, DRAPE_ENOMEM, "out of memory (capture queue)");
  }
  for (int i = 0; i < c->n_slots; i++) {
    c->slots[i].rgb = malloc(c->frame_bytes);
    if (!c->slots[i].rgb) {
      drape_capture_close(c, 0, NULL);
      return drape_fail(e, DRAPE_ENOMEM, "out of memory: %d frame buffers of %dx%d",
                        c->n_slots, o->width, o->height);
    }
  }
  /* stb's compression level is a global; every capture uses the same one. */
  stbi_write_png_compression_level = c->o.png_level;
  /* The Sub filter on every row, instead of stb's per-row trial of all
   * five: measured on a 1280x720 drape frame, 2.3x faster to encode and 8 %
   * smaller (smooth shading and a checker suit Sub; the trial's "minimum
   * sum of absolute values" heuristic picks worse filters here). */
  stbi_write_force_png_filter = 1;
  if (o->video_path) {
    snprintf(c->video_final, sizeof c->video_final, "%s", o->video_path);
    char dir[4096];
    const char *slash = strrchr(o->video_path, '/');
    const char *base = slash ? slash + 1 : o->video_path;
    if (slash) snprintf(dir, sizeof dir, "%.*s/", (int)(slash - o->video_path), o->video_path);
    else dir[0] = 0;
    /* Keep the extension last: ffmpeg picks the container from it. */
    const char *ext = ext_of(base);
    int stem = (int)(strlen(base) - strlen(ext) - 1);
    int w = snprintf(c->video_tmp, sizeof c->video_tmp, "%s.%.*s.partial-%d.%s", dir, stem,
                     base, (int)getpid(), ext);
    if (w < 0 || (size_t)w >= sizeof c->video_tmp) {
      drape_capture_close(c, 0, NULL);
      return drape_fail(e, DRAPE_EINVAL, "--video: file name too long");
    }
    if ((rc = start_ffmpeg(c, ffmpeg, e))) {
      c->video_tmp[0] = 0;
      drape_capture_close(c, 0, NULL);
      return rc;
    }
  }
  for (int i = 0; i < nw; i++) {
    if (pthread_create(&c->workers[i], NULL, worker_main, c) != 0) {
      drape_capture_close(c, 0, NULL);
      return drape_fail(e, DRAPE_ENOMEM, "capture: cannot start encoder thread %d", i + 1);
    }
    c->n_workers++;
  }
  *out = c;
  return DRAPE_OK;
}

int drape_capture_frame(drape_capture *c, int number, const uint8_t *rgb, drape_err *e) {
  pthread_mutex_lock(&c->mu);
  slot *sl = &c->slots[c->put_seq % c->n_slots];
  while (sl->state != SLOT_FREE && !c->err_code) pthread_cond_wait(&c->can_put, &c->mu);
  if (c->err_code) {
    int code = c->err_code;
    drape_fail(e, code, "%s", c->err_msg);
    pthread_mutex_unlock(&c->mu);
    return code;
  }
  pthread_mutex_unlock(&c->mu);
  /* A free slot is touched by no encoder: copy without the lock. */
  memcpy(sl->rgb, rgb, c->frame_bytes);
  sl->number = number;
  pthread_mutex_lock(&c->mu);
  sl->seq = c->put_seq++;
  sl->state = SLOT_FILLED;
  pthread_cond_broadcast(&c->can_take);
  pthread_mutex_unlock(&c->mu);
  return DRAPE_OK;
}

int drape_capture_png_count(const drape_capture *c) {
  drape_capture *m = (drape_capture *)c; /* the lock is not part of the value */
  pthread_mutex_lock(&m->mu);
  int n = c->png_count;
  pthread_mutex_unlock(&m->mu);
  return n;
}

int drape_capture_video_count(const drape_capture *c) {
  drape_capture *m = (drape_capture *)c;
  pthread_mutex_lock(&m->mu);
  int n = c->video_count;
  pthread_mutex_unlock(&m->mu);
  return n;
}

int drape_capture_close(drape_capture *c, int ok, drape_err *e) {
  if (!c) return DRAPE_OK;
  if (c->n_workers > 0) {
    pthread_mutex_lock(&c->mu);
    c->quit = 1;
    pthread_cond_broadcast(&c->can_take);
    pthread_mutex_unlock(&c->mu);
    for (int i = 0; i < c->n_workers; i++) pthread_join(c->workers[i], NULL);
  }
  int rc = c->err_code;
  if (rc) drape_fail(e, rc, "%s", c->err_msg);
  if (c->ffmpeg_pid > 0) {
    if (c->pipe_fd >= 0) close(c->pipe_fd); /* EOF: ffmpeg finishes the file */
    c->pipe_fd = -1;
    int st = dr_spawn_wait(c->ffmpeg_pid); /* reaped: no zombie */
    c->ffmpeg_pid = 0;
    int good = WIFEXITED(st) && WEXITSTATUS(st) == 0;
    if (!good && !rc) {
      rc = DRAPE_EIO;
      if (WIFEXITED(st) && WEXITSTATUS(st) == 127)
        drape_fail(e, rc, "--video %s: could not run ffmpeg", c->video_final);
      else
        drape_fail(e, rc, "--video %s: ffmpeg failed (%s %d); see its message above",
                   c->video_final, WIFEXITED(st) ? "exit status" : "signal",
                   WIFEXITED(st) ? WEXITSTATUS(st) : WTERMSIG(st));
    }
    if (ok && !rc && c->video_count > 0) {
      /* Never over a device or FIFO that appeared since the check. */
      rc = dr_out_commit(c->video_tmp, c->video_final, "--video", e);
    } else {
      unlink(c->video_tmp);
    }
  }
  if (c->pipe_handler_set) sigaction(SIGPIPE, &c->old_pipe, NULL);
  if (c->slots)
    for (int i = 0; i < c->n_slots; i++) free(c->slots[i].rgb);
  free(c->slots);
  pthread_mutex_destroy(&c->mu);
  pthread_cond_destroy(&c->can_put);
  pthread_cond_destroy(&c->can_take);
  pthread_cond_destroy(&c->video_turn);
  free(c);
  return rc;
}
