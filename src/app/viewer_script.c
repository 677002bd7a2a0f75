/* Event scripts for scripted viewer runs (viewer.h; grammar in docs/rendering.md
 * "Interactive viewer"). One event per line, applied before the physics
 * of its frame, in file order:
 *
 *   # comment
 *   frame 10                          following events happen at frame 10
 *   frame 10 mouse_down 640 360       the same, on one line
 *   mouse_down X Y [left|right|middle] [shift] [ctrl]
 *   mouse_down world X Y Z ...        at the pixel where world point X Y Z shows
 *   mouse_move X Y | world X Y Z
 *   mouse_up [X Y | world X Y Z] [left|right|middle]
 *   scroll DY                         wheel notches (positive zooms in)
 *   key NAME [shift] [ctrl]           press and release (SPACE, F1, LEFT, R, 1, PLUS...)
 *   print                             print the state (grab, string end) on stdout
 *   screenshot FILE.png               save this frame
 *   resize W H                        window size in screen coordinates */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#define GLFW_INCLUDE_NONE
#include <GLFW/glfw3.h>

#include "app/viewer.h"

typedef struct {
  const char *name;
  int key;
} key_name;

static const key_name KEYS[] = {
    {"SPACE", GLFW_KEY_SPACE},         {"ESCAPE", GLFW_KEY_ESCAPE},
    {"ESC", GLFW_KEY_ESCAPE},          {"TAB", GLFW_KEY_TAB},
    {"ENTER", GLFW_KEY_ENTER},         {"BACKSPACE", GLFW_KEY_BACKSPACE},
    {"LEFT", GLFW_KEY_LEFT},           {"RIGHT", GLFW_KEY_RIGHT},
    {"UP", GLFW_KEY_UP},               {"DOWN", GLFW_KEY_DOWN},
    {"PAGE_UP", GLFW_KEY_PAGE_UP},     {"PAGE_DOWN", GLFW_KEY_PAGE_DOWN},
    {"HOME", GLFW_KEY_HOME},           {"END", GLFW_KEY_END},
    {"PLUS", GLFW_KEY_EQUAL},          {"EQUAL", GLFW_KEY_EQUAL},
    {"MINUS", GLFW_KEY_MINUS},         {"KP_ADD", GLFW_KEY_KP_ADD},
    {"KP_SUBTRACT", GLFW_KEY_KP_SUBTRACT},
};

int vw_key_from_name(const char *name) {
  if (!name || !*name) return -1;
  if (name[1] == 0) {
    char c = name[0];
    if (c >= 'a' && c <= 'z') c = (char)(c - 'a' + 'A');
    if (c >= 'A' && c <= 'Z') return GLFW_KEY_A + (c - 'A');
    if (c >= '0' && c <= '9') return GLFW_KEY_0 + (c - '0');
    if (c == '+' || c == '=') return GLFW_KEY_EQUAL;
    if (c == '-') return GLFW_KEY_MINUS;
    return -1;
  }
  if ((name[0] == 'F' || name[0] == 'f') && name[1] >= '1' && name[1] <= '9') {
    char *end = NULL;
    long n = strtol(name + 1, &end, 10);
    if (*end == 0 && n >= 1 && n <= 12) return GLFW_KEY_F1 + (int)n - 1;
    return -1;
  }
  for (size_t i = 0; i < sizeof KEYS / sizeof KEYS[0]; i++)
    if (!strcasecmp(name, KEYS[i].name)) return KEYS[i].key;
  return -1;
}

const char *vw_key_name(int key) {
  static char buf[8];
  if (key >= GLFW_KEY_A && key <= GLFW_KEY_Z) {
    snprintf(buf, sizeof buf, "%c", 'A' + (key - GLFW_KEY_A));
    return buf;
  }
  if (key >= GLFW_KEY_0 && key <= GLFW_KEY_9) {
    snprintf(buf, sizeof buf, "%c", '0' + (key - GLFW_KEY_0));
    return buf;
  }
  if (key >= GLFW_KEY_F1 && key <= GLFW_KEY_F12) {
    snprintf(buf, sizeof buf, "F%d", key - GLFW_KEY_F1 + 1);
    return buf;
  }
  for (size_t i = 0; i < sizeof KEYS / sizeof KEYS[0]; i++)
    if (KEYS[i].key == key) return KEYS[i].name;
  return "?";
}

#define MAX_TOK 12

static int parse_num(const char *s, double *out) {
  if (!s || !*s) return 0;
  char *end = NULL;
  errno = 0;
  double v = strtod(s, &end);
  if (*end != 0 || errno == ERANGE || !isfinite(v)) return 0;
  *out = v;
  return 1;
}

static int parse_frame(const char *s, int *out) {
  if (!s || !*s) return 0;
  char *end = NULL;
  errno = 0;
  long v = strtol(s, &end, 10);
  if (*end != 0 || errno == ERANGE || v < 1 || v > 10000000) return 0;
  *out = (int)v;
  return 1;
}

#define BAD(...)                                                                       \
  do {                                                                                 \
    char what_[600];                                                                   \
    snprintf(what_, sizeof what_, __VA_ARGS__);                                        \
    return drape_fail(e, DRAPE_EINVAL, "--script %s line %d: %s", label, line, what_); \
  } while (0)

/* Position (X Y, or world X Y Z) starting at tok[*i]; optional when opt. */
static int parse_pos(char **tok, int nt, int *i, vw_event *ev, int opt, const char *label, int line,
                     drape_err *e) {
  if (*i < nt && !strcmp(tok[*i], "world")) {
    if (*i + 3 >= nt || !parse_num(tok[*i + 1], &ev->x) || !parse_num(tok[*i + 2], &ev->y) ||
        !parse_num(tok[*i + 3], &ev->z))
      BAD("'world' needs three numbers X Y Z (metres)");
    ev->world = 1;
    ev->has_pos = 1;
    *i += 4;
    return DRAPE_OK;
  }
  if (*i + 1 < nt && parse_num(tok[*i], &ev->x) && parse_num(tok[*i + 1], &ev->y)) {
    ev->has_pos = 1;
    *i += 2;
    return DRAPE_OK;
  }
  if (opt && (*i >= nt || !parse_num(tok[*i], &ev->x))) return DRAPE_OK;
  BAD("%s needs a position: X Y (window coordinates) or world X Y Z (metres)",
      tok[0]);
}

static int parse_line(char **tok, int nt, int frame, int line, const char *label, vw_event *ev,
                      drape_err *e) {
  memset(ev, 0, sizeof *ev);
  ev->frame = frame;
  ev->line = line;
  const char *w = tok[0];
  int i = 1, rc;
  if (!strcmp(w, "mouse_down") || !strcmp(w, "mouse_move") || !strcmp(w, "mouse_up")) {
    ev->kind = w[6] == 'd' ? VW_EV_MOUSE_DOWN : w[6] == 'm' ? VW_EV_MOUSE_MOVE : VW_EV_MOUSE_UP;
    if ((rc = parse_pos(tok, nt, &i, ev, ev->kind == VW_EV_MOUSE_UP, label, line, e))) return rc;
    for (; i < nt; i++) {
      if (ev->kind == VW_EV_MOUSE_MOVE) BAD("mouse_move takes only a position, not '%s'", tok[i]);
      if (!strcmp(tok[i], "left")) ev->button = 0;
      else if (!strcmp(tok[i], "right")) ev->button = 1;
      else if (!strcmp(tok[i], "middle")) ev->button = 2;
      else if (!strcmp(tok[i], "shift")) ev->mods |= VW_MOD_SHIFT;
      else if (!strcmp(tok[i], "ctrl")) ev->mods |= VW_MOD_CTRL;
      else BAD("%s: unknown word '%s' (allowed: left, right, middle, shift, ctrl)", w, tok[i]);
    }
  } else if (!strcmp(w, "scroll")) {
    ev->kind = VW_EV_SCROLL;
    if (nt != 2 || !parse_num(tok[1], &ev->y) || fabs(ev->y) > 1000)
      BAD("scroll needs one number of wheel notches, -1000..1000");
  } else if (!strcmp(w, "key")) {
    ev->kind = VW_EV_KEY;
    if (nt < 2) BAD("key needs a key name (e.g. SPACE, F1, LEFT, R, 1, PLUS)");
    ev->key = vw_key_from_name(tok[1]);
    if (ev->key < 0)
      BAD("key '%s': unknown key (allowed: A-Z, 0-9, F1-F12, SPACE, ESCAPE, TAB, ENTER, LEFT, "
          "RIGHT, UP, DOWN, PAGE_UP, PAGE_DOWN, HOME, END, PLUS, MINUS, KP_ADD, KP_SUBTRACT)",
          tok[1]);
    for (i = 2; i < nt; i++) {
      if (!strcmp(tok[i], "shift")) ev->mods |= VW_MOD_SHIFT;
      else if (!strcmp(tok[i], "ctrl")) ev->mods |= VW_MOD_CTRL;
      else BAD("key: unknown modifier '%s' (allowed: shift, ctrl)", tok[i]);
    }
  } else if (!strcmp(w, "print")) {
    ev->kind = VW_EV_PRINT;
    if (nt != 1) BAD("print takes no arguments");
  } else if (!strcmp(w, "screenshot")) {
    ev->kind = VW_EV_SCREENSHOT;
    if (nt != 2) BAD("screenshot needs one file name (FILE.png, no spaces)");
    if (strlen(tok[1]) >= sizeof ev->path) BAD("screenshot: file name too long");
    snprintf(ev->path, sizeof ev->path, "%s", tok[1]);
  } else if (!strcmp(w, "resize")) {
    ev->kind = VW_EV_RESIZE;
    if (nt != 3 || !parse_num(tok[1], &ev->x) || !parse_num(tok[2], &ev->y) || ev->x < 16 ||
        ev->y < 16 || ev->x > 8192 || ev->y > 8192 || ev->x != floor(ev->x) || ev->y != floor(ev->y))
      BAD("resize needs a width and a height in screen coordinates, whole numbers 16..8192");
  } else {
    BAD("unknown event '%s' (allowed: frame, mouse_down, mouse_move, mouse_up, scroll, key, "
        "print, screenshot, resize)", w);
  }
  return DRAPE_OK;
}

int vw_script_parse(const char *text, const char *label, vw_script *out, drape_err *e) {
  memset(out, 0, sizeof *out);
  int frame = 1, cap = 0, line = 0;
  const char *p = text;
  while (*p) {
    line++;
    const char *nl = strchr(p, '\n');
    size_t len = nl ? (size_t)(nl - p) : strlen(p);
    char buf[2048];
    if (len >= sizeof buf) {
      vw_script_free(out);
      BAD("line too long (at most %d characters)", (int)sizeof buf - 1);
    }
    memcpy(buf, p, len);
    buf[len] = 0;
    p += len + (nl ? 1 : 0);
    char *hash = strchr(buf, '#');
    if (hash) *hash = 0;
    char *tok[MAX_TOK + 1];
    int nt = 0;
    for (char *s = strtok(buf, " \t\r"); s; s = strtok(NULL, " \t\r")) {
      if (nt == MAX_TOK) {
        vw_script_free(out);
        BAD("too many words (at most %d)", MAX_TOK);
      }
      tok[nt++] = s;
    }
    if (nt == 0) continue;
    char **t = tok;
    if (!strcmp(t[0], "frame")) {
      int f;
      if (nt < 2 || !parse_frame(t[1], &f)) {
        vw_script_free(out);
        BAD("frame needs a frame number, 1..10000000");
      }
      if (f < frame) {
        vw_script_free(out);
        BAD("frame %d comes after frame %d: frame numbers must not decrease", f, frame);
      }
      frame = f;
      t += 2;
      nt -= 2;
      if (nt == 0) continue;
    }
    if (out->n == cap) {
      cap = cap ? 2 * cap : 16;
      vw_event *ne = realloc(out->ev, sizeof *ne * (size_t)cap);
      if (!ne) {
        vw_script_free(out);
        return drape_fail(e, DRAPE_ENOMEM, "out of memory (script)");
      }
      out->ev = ne;
    }
    int rc = parse_line(t, nt, frame, line, label, &out->ev[out->n], e);
    if (rc) {
      vw_script_free(out);
      return rc;
    }
    out->n++;
    if (frame > out->last_frame) out->last_frame = frame;
  }
  return DRAPE_OK;
}

int vw_script_load(const char *path, vw_script *out, drape_err *e) {
  memset(out, 0, sizeof *out);
  FILE *f = fopen(path, "rb");
  if (!f)
    return drape_fail(e, DRAPE_EINVAL, "--script \"%s\": cannot read: %s", path, strerror(errno));
  char *text = NULL;
  size_t n = 0, cap = 0;
  for (;;) {
    if (n + 4096 + 1 > cap) {
      cap = cap ? 2 * cap : 8192;
      if (cap > ((size_t)16 << 20)) {
        free(text);
        fclose(f);
        return drape_fail(e, DRAPE_EINVAL, "--script \"%s\": larger than 16 MiB", path);
      }
      char *nt = realloc(text, cap);
      if (!nt) {
        free(text);
        fclose(f);
        return drape_fail(e, DRAPE_ENOMEM, "out of memory (script)");
      }
      text = nt;
    }
    size_t got = fread(text + n, 1, 4096, f);
    n += got;
    if (got < 4096) break;
  }
  int err = ferror(f);
  fclose(f);
  if (err) {
    free(text);
    return drape_fail(e, DRAPE_EINVAL, "--script \"%s\": read error", path);
  }
  text[n] = 0;
  if (strlen(text) != n) {
    free(text);
    return drape_fail(e, DRAPE_EINVAL, "--script \"%s\": not a text file (NUL byte)", path);
  }
  int rc = vw_script_parse(text, path, out, e);
  free(text);
  return rc;
}

void vw_script_free(vw_script *s) {
  free(s->ev);
  memset(s, 0, sizeof *s);
}
