/* GL contexts: headless EGL (Mesa surfaceless or the EGL device platform)
 * and GLFW windows. See drape/render.h.
 *
 * Why EGL and not a hidden GLFW window for headless capture: GLFW 3.3 needs
 * an X server (error 65544 without DISPLAY), and render servers have none.
 * Mesa's surfaceless platform gives llvmpipe (or a DRM GPU) with no display
 * at all; NVIDIA's driver offers no surfaceless platform, only
 * EGL_EXT_platform_device, so a hardware EGL device is preferred when the
 * loader lists one. Rendering goes to FBOs, so no EGL surface is needed
 * (EGL_KHR_surfaceless_context; a 1x1 pbuffer otherwise). */
#include <epoxy/egl.h>
#include <epoxy/gl.h>
#include <epoxy/glx.h>
#define GLFW_INCLUDE_NONE
#include <GLFW/glfw3.h>
#define GLFW_EXPOSE_NATIVE_EGL
#include <GLFW/glfw3native.h>
/* GLFW's GLX accessor, declared here because glfw3native.h's GLX section
 * pulls in the Xrandr headers, which drape does not otherwise need. */
GLFWAPI GLXContext glfwGetGLXContext(GLFWwindow *window);

#include <stdlib.h>
#include <string.h>

#include "render/gl_util.h"

struct drape_gl {
  drape_gl_kind kind;
  EGLDisplay dpy;
  EGLContext ctx;
  EGLSurface pbuffer; /* only without EGL_KHR_surfaceless_context */
  GLFWwindow *win;
  char renderer[256];
  char describe[512];
};

const char *drape_gl_errstr(unsigned code) {
  switch (code) {
  case GL_NO_ERROR: return "GL_NO_ERROR";
  case GL_INVALID_ENUM: return "GL_INVALID_ENUM";
  case GL_INVALID_VALUE: return "GL_INVALID_VALUE";
  case GL_INVALID_OPERATION: return "GL_INVALID_OPERATION";
  case GL_STACK_OVERFLOW: return "GL_STACK_OVERFLOW";
  case GL_STACK_UNDERFLOW: return "GL_STACK_UNDERFLOW";
  case GL_OUT_OF_MEMORY: return "GL_OUT_OF_MEMORY";
  case GL_INVALID_FRAMEBUFFER_OPERATION: return "GL_INVALID_FRAMEBUFFER_OPERATION";
  case 0x0507: return "GL_CONTEXT_LOST";
  default: return "unknown GL error";
  }
}

const char *drape_egl_errstr(int code) {
  switch (code) {
  case EGL_SUCCESS: return "EGL_SUCCESS";
  case EGL_NOT_INITIALIZED: return "EGL_NOT_INITIALIZED";
  case EGL_BAD_ACCESS: return "EGL_BAD_ACCESS";
  case EGL_BAD_ALLOC: return "EGL_BAD_ALLOC";
  case EGL_BAD_ATTRIBUTE: return "EGL_BAD_ATTRIBUTE";
  case EGL_BAD_CONFIG: return "EGL_BAD_CONFIG";
  case EGL_BAD_CONTEXT: return "EGL_BAD_CONTEXT";
  case EGL_BAD_CURRENT_SURFACE: return "EGL_BAD_CURRENT_SURFACE";
  case EGL_BAD_DISPLAY: return "EGL_BAD_DISPLAY";
  case EGL_BAD_MATCH: return "EGL_BAD_MATCH";
  case EGL_BAD_NATIVE_PIXMAP: return "EGL_BAD_NATIVE_PIXMAP";
  case EGL_BAD_NATIVE_WINDOW: return "EGL_BAD_NATIVE_WINDOW";
  case EGL_BAD_PARAMETER: return "EGL_BAD_PARAMETER";
  case EGL_BAD_SURFACE: return "EGL_BAD_SURFACE";
  case EGL_CONTEXT_LOST: return "EGL_CONTEXT_LOST";
  default: return "unknown EGL error";
  }
}

int drape_gl_check(drape_err *e, const char *what) {
  GLenum rc = glGetError();
  if (rc == GL_NO_ERROR) return DRAPE_OK;
  return drape_fail(e, DRAPE_EGL, "%s failed: %s", what, drape_gl_errstr(rc));
}

#define EGL_FAIL(e, what) \
  drape_fail((e), DRAPE_EGL, "%s failed: %s", (what), drape_egl_errstr(eglGetError()))

/* Whole-word search in a space-separated extension list. */
static int has_word(const char *list, const char *word) {
  if (!list) return 0;
  size_t n = strlen(word);
  for (const char *s = list; (s = strstr(s, word)) != NULL; s += n)
    if ((s == list || s[-1] == ' ') && (s[n] == ' ' || s[n] == 0)) return 1;
  return 0;
}

static void fill_names(drape_gl *gl, const char *platform) {
  const char *r = (const char *)glGetString(GL_RENDERER);
  const char *v = (const char *)glGetString(GL_VERSION);
  snprintf(gl->renderer, sizeof gl->renderer, "%s", r ? r : "unknown renderer");
  snprintf(gl->describe, sizeof gl->describe, "%s: %s, OpenGL %s", platform, gl->renderer,
           v ? v : "?");
}

/* The EGL displays to try, best first. A hardware EGL device comes first:
 * on NVIDIA it is the only headless path, and on a machine with both Mesa
 * and a GPU vendor library, Mesa's surfaceless platform would silently
 * pick the software rasteriser. Then Mesa's surfaceless platform, then any
 * EGL device (Mesa's software one). Returns the count. */
typedef struct egl_candidate {
  drape_gl_kind kind;
  EGLDisplay dpy;
} egl_candidate;

static int egl_candidates(egl_candidate *c, int cap, char *why, size_t why_cap) {
  const char *client = eglQueryString(EGL_NO_DISPLAY, EGL_EXTENSIONS);
  int has_platform_base = has_word(client, "EGL_EXT_platform_base");
  int has_surfaceless = has_platform_base && has_word(client, "EGL_MESA_platform_surfaceless");
  int has_device_pf = has_platform_base && has_word(client, "EGL_EXT_platform_device") &&
                      has_word(client, "EGL_EXT_device_enumeration");
  const char *force = getenv("DRAPE_EGL_PLATFORM");
  int want_surfaceless = 1, want_device = 1;
  if (force && *force) {
    want_surfaceless = !strcmp(force, "surfaceless");
    want_device = !strcmp(force, "device");
  }
  int n = 0;
  EGLDeviceEXT devs[16];
  EGLint nd = 0;
  if (has_device_pf && want_device && !eglQueryDevicesEXT(16, devs, &nd)) nd = 0;
  for (int pass = 0; pass < 3 && n < cap; pass++) {
    if (pass == 1) {
      if (has_surfaceless && want_surfaceless) {
        EGLDisplay d =
            eglGetPlatformDisplayEXT(EGL_PLATFORM_SURFACELESS_MESA, EGL_DEFAULT_DISPLAY, NULL);
        if (d != EGL_NO_DISPLAY) c[n++] = (egl_candidate){DRAPE_GL_EGL_SURFACELESS, d};
      }
      continue;
    }
    /* pass 0: hardware devices; pass 2: software devices */
    for (EGLint i = 0; i < nd && n < cap; i++) {
      const char *ext = eglQueryDeviceStringEXT(devs[i], EGL_EXTENSIONS);
      int software = has_word(ext, "EGL_MESA_device_software");
      if (software != (pass == 2)) continue;
      EGLDisplay d = eglGetPlatformDisplayEXT(EGL_PLATFORM_DEVICE_EXT, devs[i], NULL);
      if (d != EGL_NO_DISPLAY) c[n++] = (egl_candidate){DRAPE_GL_EGL_DEVICE, d};
    }
  }
  if (n == 0)
    snprintf(why, why_cap,
             "no headless EGL platform%s (client extensions: surfaceless %s, device %s); "
             "install Mesa's EGL (libegl-mesa0) or the GPU vendor's EGL library",
             force && *force ? " matching DRAPE_EGL_PLATFORM" : "",
             has_surfaceless ? "yes" : "no", has_device_pf ? "yes" : "no");
  return n;
}

/* Initialises one display and makes a 3.3 core context current on it. */
static int egl_try(drape_gl *gl, const egl_candidate *cand, drape_err *e) {
  gl->kind = cand->kind;
  gl->dpy = cand->dpy;
  EGLint major = 0, minor = 0;
  if (!eglInitialize(gl->dpy, &major, &minor)) return EGL_FAIL(e, "eglInitialize");
  if (!eglBindAPI(EGL_OPENGL_API)) return EGL_FAIL(e, "eglBindAPI(EGL_OPENGL_API)");
  const char *dext = eglQueryString(gl->dpy, EGL_EXTENSIONS);
  int surfaceless_ctx = has_word(dext, "EGL_KHR_surfaceless_context");
  EGLint cfg_attr[] = {EGL_SURFACE_TYPE, EGL_PBUFFER_BIT, EGL_RENDERABLE_TYPE, EGL_OPENGL_BIT,
                       EGL_RED_SIZE, 8, EGL_GREEN_SIZE, 8, EGL_BLUE_SIZE, 8, EGL_NONE};
  EGLConfig cfg = NULL;
  EGLint ncfg = 0;
  if (!eglChooseConfig(gl->dpy, cfg_attr, &cfg, 1, &ncfg)) return EGL_FAIL(e, "eglChooseConfig");
  if (ncfg == 0 && surfaceless_ctx) { /* no pbuffer configs: any config will do */
    cfg_attr[1] = 0;
    if (!eglChooseConfig(gl->dpy, cfg_attr, &cfg, 1, &ncfg))
      return EGL_FAIL(e, "eglChooseConfig");
  }
  if (ncfg == 0)
    return drape_fail(e, DRAPE_EGL, "eglChooseConfig: no RGB8 OpenGL config on this display");
  EGLint ctx_attr[] = {EGL_CONTEXT_MAJOR_VERSION, 3, EGL_CONTEXT_MINOR_VERSION, 3,
                       EGL_CONTEXT_OPENGL_PROFILE_MASK, EGL_CONTEXT_OPENGL_CORE_PROFILE_BIT,
                       EGL_NONE};
  gl->ctx = eglCreateContext(gl->dpy, cfg, EGL_NO_CONTEXT, ctx_attr);
  if (gl->ctx == EGL_NO_CONTEXT) return EGL_FAIL(e, "eglCreateContext(OpenGL 3.3 core)");
  EGLSurface surf = EGL_NO_SURFACE;
  if (!surfaceless_ctx) {
    EGLint pb_attr[] = {EGL_WIDTH, 1, EGL_HEIGHT, 1, EGL_NONE};
    gl->pbuffer = eglCreatePbufferSurface(gl->dpy, cfg, pb_attr);
    if (gl->pbuffer == EGL_NO_SURFACE) return EGL_FAIL(e, "eglCreatePbufferSurface");
    surf = gl->pbuffer;
  }
  if (!eglMakeCurrent(gl->dpy, surf, surf, gl->ctx)) return EGL_FAIL(e, "eglMakeCurrent");
  fill_names(gl, cand->kind == DRAPE_GL_EGL_DEVICE ? "EGL device" : "EGL surfaceless");
  if (epoxy_gl_version() < 33)
    return drape_fail(e, DRAPE_EGL, "OpenGL 3.3 needed, the EGL context offers %d.%d (%s)",
                      epoxy_gl_version() / 10, epoxy_gl_version() % 10, gl->renderer);
  return DRAPE_OK;
}

static void egl_undo(drape_gl *gl) {
  if (!gl->dpy) return;
  eglMakeCurrent(gl->dpy, EGL_NO_SURFACE, EGL_NO_SURFACE, EGL_NO_CONTEXT);
  if (gl->pbuffer) eglDestroySurface(gl->dpy, gl->pbuffer);
  if (gl->ctx) eglDestroyContext(gl->dpy, gl->ctx);
  gl->pbuffer = EGL_NO_SURFACE;
  gl->ctx = EGL_NO_CONTEXT;
  gl->dpy = EGL_NO_DISPLAY;
}

int drape_gl_open_headless(drape_gl **out, drape_err *e) {
  *out = NULL;
  const char *force = getenv("DRAPE_EGL_PLATFORM");
  if (force && *force && strcmp(force, "surfaceless") && strcmp(force, "device"))
    return drape_fail(e, DRAPE_EINVAL,
                      "DRAPE_EGL_PLATFORM = \"%s\": expected \"surfaceless\" or \"device\"", force);
  drape_gl *gl = calloc(1, sizeof *gl);
  if (!gl) return drape_fail(e, DRAPE_ENOMEM, "out of memory (GL context)");
  char why[512] = "";
  egl_candidate cands[20];
  int n = egl_candidates(cands, 20, why, sizeof why);
  if (n == 0) {
    free(gl);
    return drape_fail(e, DRAPE_EGL, "headless OpenGL: %s", why);
  }
  /* Each candidate in turn: a display that lists but will not initialise
   * (a GPU without its driver, say) must not stop the next one. */
  char tried[1024] = "";
  for (int i = 0; i < n; i++) {
    drape_err ei = {0};
    if (egl_try(gl, &cands[i], &ei) == DRAPE_OK) {
      *out = gl;
      return DRAPE_OK;
    }
    size_t len = strlen(tried);
    snprintf(tried + len, sizeof tried - len, "%s%s: %.200s", len ? "; " : "",
             cands[i].kind == DRAPE_GL_EGL_DEVICE ? "EGL device" : "EGL surfaceless", ei.msg);
    egl_undo(gl);
  }
  free(gl);
  return drape_fail(e, DRAPE_EGL, "headless OpenGL: no EGL display gave an OpenGL 3.3 core "
                    "context (%s)", tried);
}

/* GLFW reports errors through a callback; keep the last one for messages. */
static char glfw_last_error[512];
static void glfw_error_cb(int code, const char *desc) {
  snprintf(glfw_last_error, sizeof glfw_last_error, "GLFW error %d: %s", code, desc);
}

drape_gl_window_opts drape_gl_window_opts_default(void) {
  drape_gl_window_opts o = {1280, 720, "drape", 1, 1, 4};
  return o;
}

int drape_gl_open_window(const drape_gl_window_opts *o_in, drape_gl **out, drape_err *e) {
  *out = NULL;
  drape_gl_window_opts o = o_in ? *o_in : drape_gl_window_opts_default();
  if (o.width <= 0 || o.height <= 0 || o.width > 16384 || o.height > 16384)
    return drape_fail(e, DRAPE_EINVAL, "window size %dx%d: expected 1..16384 per side",
                      o.width, o.height);
  const char *d = getenv("DISPLAY"), *wd = getenv("WAYLAND_DISPLAY");
  if ((!d || !*d) && (!wd || !*wd))
    return drape_fail(e, DRAPE_EINVAL,
                      "no display: DISPLAY is not set, so no window can open; render "
                      "headless instead with `drape run SCENE --png-dir DIR` or "
                      "`--video FILE.mp4`");
  glfwSetErrorCallback(glfw_error_cb);
  glfw_last_error[0] = 0;
  if (!glfwInit())
    return drape_fail(e, DRAPE_EINVAL,
                      "cannot open a window on display \"%s\" (%s); render headless instead "
                      "with `drape run SCENE --png-dir DIR` or `--video FILE.mp4`",
                      d && *d ? d : wd, glfw_last_error);
  glfwWindowHint(GLFW_CONTEXT_VERSION_MAJOR, 3);
  glfwWindowHint(GLFW_CONTEXT_VERSION_MINOR, 3);
  glfwWindowHint(GLFW_OPENGL_PROFILE, GLFW_OPENGL_CORE_PROFILE);
  glfwWindowHint(GLFW_OPENGL_FORWARD_COMPAT, GLFW_TRUE);
  glfwWindowHint(GLFW_SAMPLES, o.samples > 1 ? o.samples : 0);
  glfwWindowHint(GLFW_VISIBLE, o.visible ? GLFW_TRUE : GLFW_FALSE);
  glfwWindowHint(GLFW_SCALE_TO_MONITOR, GLFW_TRUE);
  glfwWindowHint(GLFW_COCOA_RETINA_FRAMEBUFFER, GLFW_TRUE);
  GLFWwindow *win = glfwCreateWindow(o.width, o.height, o.title ? o.title : "drape", NULL, NULL);
  if (!win) {
    return drape_fail(e, DRAPE_EGL, "glfwCreateWindow (OpenGL 3.3 core) failed: %s",
                      glfw_last_error);
  }
  drape_gl *gl = calloc(1, sizeof *gl);
  if (!gl) {
    glfwDestroyWindow(win);
    return drape_fail(e, DRAPE_ENOMEM, "out of memory (GL context)");
  }
  gl->kind = DRAPE_GL_GLFW;
  gl->win = win;
  glfwMakeContextCurrent(win);
  glfwSwapInterval(o.vsync ? 1 : 0);
  fill_names(gl, "GLFW window");
  *out = gl;
  return DRAPE_OK;
}

void drape_gl_close(drape_gl *gl) {
  if (!gl) return;
  if (gl->win) {
    glfwMakeContextCurrent(NULL);
    glfwDestroyWindow(gl->win);
    /* GLFW stays initialised until the process ends (the next window reuses
     * it): glfwTerminate closes the X display, which unloads Mesa's
     * driver, after which LeakSanitizer can no longer attribute (and
     * suppress) the driver's leftovers. */
  }
  if (gl->dpy != EGL_NO_DISPLAY && gl->dpy) {
    eglMakeCurrent(gl->dpy, EGL_NO_SURFACE, EGL_NO_SURFACE, EGL_NO_CONTEXT);
    if (gl->pbuffer) eglDestroySurface(gl->dpy, gl->pbuffer);
    if (gl->ctx) eglDestroyContext(gl->dpy, gl->ctx);
    /* No eglTerminate: the display is process-wide (the next
     * eglGetPlatformDisplayEXT returns the same one), and terminating it
     * unloads Mesa's driver, after which its few leftover allocations can
     * no longer be attributed (and suppressed) by LeakSanitizer. */
    eglReleaseThread();
  }
  free(gl);
}

drape_gl_kind drape_gl_kind_of(const drape_gl *gl) { return gl->kind; }
const char *drape_gl_describe(const drape_gl *gl) { return gl->describe; }
const char *drape_gl_renderer_name(const drape_gl *gl) { return gl->renderer; }
void *drape_gl_window(const drape_gl *gl) { return gl->win; }

void drape_gl_framebuffer_size(const drape_gl *gl, int *w, int *h) {
  *w = *h = 0;
  if (gl->win) glfwGetFramebufferSize(gl->win, w, h);
}

int drape_gl_make_current(drape_gl *gl, drape_err *e) {
  if (gl->win) {
    glfwMakeContextCurrent(gl->win);
    return DRAPE_OK;
  }
  EGLSurface s = gl->pbuffer ? gl->pbuffer : EGL_NO_SURFACE;
  if (!eglMakeCurrent(gl->dpy, s, s, gl->ctx)) return EGL_FAIL(e, "eglMakeCurrent");
  return DRAPE_OK;
}

/* The cl_gl.h property names, kept here so this file needs no CL header. */
#define DR_CL_GL_CONTEXT_KHR 0x2008
#define DR_CL_EGL_DISPLAY_KHR 0x2009
#define DR_CL_GLX_DISPLAY_KHR 0x200A

int drape_gl_cl_share_props(const drape_gl *gl, intptr_t props[7]) {
  memset(props, 0, 7 * sizeof props[0]);
  if (gl->kind != DRAPE_GL_GLFW) {
    props[0] = DR_CL_GL_CONTEXT_KHR;
    props[1] = (intptr_t)gl->ctx;
    props[2] = DR_CL_EGL_DISPLAY_KHR;
    props[3] = (intptr_t)gl->dpy;
    return 2;
  }
  /* GLFW on X11 creates GLX contexts by default, EGL ones when asked (or
   * on Wayland); GLFW's native accessors return NULL for the other kind. */
  GLXContext c = glfwGetGLXContext(gl->win);
  /* (glfwGetX11Display would need the Xrandr headers; GLX knows it.) */
  Display *d = c ? glXGetCurrentDisplay() : NULL;
  if (c && d) {
    props[0] = DR_CL_GL_CONTEXT_KHR;
    props[1] = (intptr_t)c;
    props[2] = DR_CL_GLX_DISPLAY_KHR;
    props[3] = (intptr_t)d;
    return 2;
  }
  EGLContext ec = glfwGetEGLContext(gl->win);
  EGLDisplay ed = ec ? glfwGetEGLDisplay() : EGL_NO_DISPLAY;
  glfwGetError(NULL); /* the accessor that did not apply set a GLFW error */
  if (ec == EGL_NO_CONTEXT || ed == EGL_NO_DISPLAY) return 0;
  props[0] = DR_CL_GL_CONTEXT_KHR;
  props[1] = (intptr_t)ec;
  props[2] = DR_CL_EGL_DISPLAY_KHR;
  props[3] = (intptr_t)ed;
  return 2;
}

int drape_gl_read_rgb(int w, int h, uint8_t *rgb, drape_err *e) {
  DRAPE_GL_TRY(e, glPixelStorei(GL_PACK_ALIGNMENT, 1));
  DRAPE_GL_TRY(e, glReadPixels(0, 0, w, h, GL_RGB, GL_UNSIGNED_BYTE, rgb));
  /* GL's first row is the bottom one; images and ffmpeg want the top first. */
  size_t row = (size_t)w * 3;
  uint8_t tmp[4096];
  for (int y = 0; y < h / 2; y++) {
    uint8_t *a = rgb + (size_t)y * row, *b = rgb + (size_t)(h - 1 - y) * row;
    for (size_t off = 0; off < row; off += sizeof tmp) {
      size_t n = row - off < sizeof tmp ? row - off : sizeof tmp;
      memcpy(tmp, a + off, n);
      memcpy(a + off, b + off, n);
      memcpy(b + off, tmp, n);
    }
  }
  return DRAPE_OK;
}
