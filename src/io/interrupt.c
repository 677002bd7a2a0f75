/* SIGINT / SIGTERM: stop at the next frame boundary and clean up (util.h;
 * issue 13 item 8).
 *
 * Why not the default action: it killed drape mid-write and left the
 * run's temporaries (stats.json.tmpPID, frame_N.obj.tmpPID, the video's
 * .NAME.partial-PID.mp4) and a zombie ffmpeg. The handler only sets a flag
 * (the one thing a handler may safely do); the frame loops look at it,
 * finish or remove their outputs and exit with 128 + the signal, as a
 * shell reports a process the signal ended. SA_RESETHAND: a second signal
 * ends the process at once, for a user who does not want to wait. A
 * signal that was ignored when drape started (a shell's background job
 * ignores SIGINT) stays ignored, as the shell meant. */
#include "io/io.h"

#include <signal.h>
#include <string.h>

static volatile sig_atomic_t g_signal = 0;

static void on_signal(int sig) {
  if (!g_signal) g_signal = sig;
}

void dr_interrupt_install(void) {
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = on_signal;
  sigemptyset(&sa.sa_mask);
  /* SA_RESTART: reads, writes and waits in progress carry on. */
  sa.sa_flags = SA_RESETHAND | SA_RESTART;
  const int sigs[2] = {SIGINT, SIGTERM};
  for (int i = 0; i < 2; i++) {
    struct sigaction old;
    if (sigaction(sigs[i], NULL, &old) == 0 && old.sa_handler == SIG_IGN) continue;
    sigaction(sigs[i], &sa, NULL);
  }
}

int dr_interrupted(void) { return (int)g_signal; }

int dr_interrupt_exit_code(int sig) { return 128 + sig; }

void dr_signals_block(void) {
  sigset_t s;
  sigemptyset(&s);
  sigaddset(&s, SIGINT);
  sigaddset(&s, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &s, NULL);
}

void dr_signals_unblock(void) {
  sigset_t s;
  sigemptyset(&s);
  sigaddset(&s, SIGINT);
  sigaddset(&s, SIGTERM);
  pthread_sigmask(SIG_UNBLOCK, &s, NULL);
}
