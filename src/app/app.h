/* The drape command: one entry per subcommand (cmd_*.c), sharing the global
 * options parsed in main.c. */
#ifndef DRAPE_APP_H
#define DRAPE_APP_H

#include "drape/base.h"

typedef struct dr_app {
  int device;        /* --device N before the subcommand; -1 when absent */
  int kernel_form;   /* --kernel-form: DRAPE_KERNEL_FORM_* (0 = auto, also
                        when absent: DRAPE_KERNEL_FORM, else by device)    */
  const char *argv0;
} dr_app;

/* Each subcommand gets argv starting at its own name (argv[0] = "devices")
 * and returns the process exit code: 0 success, 2 bad input/usage,
 * 1 any other failure. */
typedef int (*drape_cmd_fn)(dr_app *app, int argc, char **argv);

int cmd_devices(dr_app *app, int argc, char **argv);
int cmd_run(dr_app *app, int argc, char **argv);
int cmd_bench(dr_app *app, int argc, char **argv);
int cmd_bench_scene(dr_app *app, int argc, char **argv); /* bench --scene: cmd_bench_scene.c */
int cmd_string(dr_app *app, int argc, char **argv);
int cmd_view(dr_app *app, int argc, char **argv);
int cmd_compare(dr_app *app, int argc, char **argv); /* cmd_compare.c */
int cmd_batch(dr_app *app, int argc, char **argv);   /* cmd_batch.c */

/* Maps a drape_err code to the exit code and prints the message. */
int drape_app_report(const drape_err *e);

/* Parses --kernel-form auto|gpu|cpu into a drape_kernel_form; returns 0 on
 * success, else DRAPE_EINVAL naming the flag and the allowed values. */
int drape_app_parse_kernel_form(const char *text, int *out, drape_err *e);

/* Parses a non-negative device index for --device; returns 0 on success. */
int drape_app_parse_device(const char *text, int *out, drape_err *e);

#endif
