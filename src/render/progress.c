/* Progress line on stderr (render.h): "frame 120/600  14.2 fps  ETA 0:34".
 * On a terminal it is redrawn in place at most 10 times a second; into a
 * file or pipe (CI logs) it prints one line per 10 % so logs stay short. */
#include <string.h>
#include <unistd.h>

#include "drape/render.h"

void drape_progress_start(drape_progress *p, int total, FILE *out, int enabled) {
  memset(p, 0, sizeof *p);
  p->out = out ? out : stderr;
  p->total = total;
  p->enabled = enabled && total > 0;
  p->tty = isatty(fileno(p->out));
  p->t0 = drape_now();
  p->last_pct = 0; /* first line at 10 % */
  p->last_draw = -1;
}

static void draw(drape_progress *p, int done, double now) {
  double el = now - p->t0;
  double fps = el > 0 ? done / el : 0;
  double eta = fps > 0 ? (p->total - done) / fps : 0;
  int eta_s = (int)(eta + 0.5);
  char bar[32];
  int width = 24, fill = p->total > 0 ? (int)((long long)width * done / p->total) : 0;
  for (int i = 0; i < width; i++) bar[i] = i < fill ? '#' : '.';
  bar[width] = 0;
  if (p->tty)
    fprintf(p->out, "\r[%s] frame %d/%d  %.1f fps  ETA %d:%02d ", bar, done, p->total, fps,
            eta_s / 60, eta_s % 60);
  else
    fprintf(p->out, "frame %d/%d  %.1f fps  ETA %d:%02d\n", done, p->total, fps, eta_s / 60,
            eta_s % 60);
  fflush(p->out);
}

void drape_progress_update(drape_progress *p, int done) {
  if (!p->enabled) return;
  double now = drape_now();
  if (p->tty) {
    if (done < p->total && now - p->last_draw < 0.1) return;
    p->last_draw = now;
    draw(p, done, now);
    return;
  }
  int pct = (int)((long long)done * 10 / p->total);
  if (pct == p->last_pct) return;
  p->last_pct = pct;
  draw(p, done, now);
}

void drape_progress_end(drape_progress *p) {
  if (!p->enabled) return;
  if (p->tty) fputc('\n', p->out);
  fflush(p->out);
  p->enabled = 0;
}
