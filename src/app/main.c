/* drape — cloth and rope on OpenCL, strings on the CPU.
 * Usage: drape [--device N] COMMAND [ARGS]; see usage() below. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "app/app.h"
#include "drape/drape_cl.h"

typedef struct {
  const char *name;
  drape_cmd_fn fn;
  const char *summary;
} command;

static const command commands[] = {
    {"devices", cmd_devices, "list OpenCL platforms and devices"},
    {"run", cmd_run, "simulate a scene's cloths and ropes; OBJ frames, stats JSON"},
    {"bench", cmd_bench, "benchmark ladder: cloth sizes x settings x devices, CSV/JSON/plot"},
    {"string", cmd_string, "run the seed 000 string (CPU), CSV out"},
    {"view", cmd_view, "interactive viewer: drape, grab the cloth, drag the string"},
    {"compare", cmd_compare, "one scene with each solver: strain, energy, stability, speed"},
    {"batch", cmd_batch, "parameter sweeps: many runs, K at a time, shards, Slurm, summary"},
};

static void usage(FILE *out) {
  fprintf(out,
          "usage: drape [--device N] [--kernel-form F] [--help] [--version] COMMAND [ARGS]\n"
          "\n"
          "commands:\n");
  for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
    fprintf(out, "  %-10s %s\n", commands[i].name, commands[i].summary);
  fprintf(out,
          "\n"
          "global options:\n"
          "  --device N   OpenCL device index from `drape devices` (also DRAPE_DEVICE);\n"
          "               default: the first GPU, else the first device\n"
          "  --kernel-form auto|gpu|cpu\n"
          "               OpenCL kernel form (docs/solver.md): gpu = one constraint or\n"
          "               particle per work item, cpu = 8 per work item in vector\n"
          "               registers (for PoCL); auto (default; DRAPE_KERNEL_FORM when\n"
          "               set): gpu on GPU and accelerator devices, else cpu\n"
          "  --help       this text; `drape COMMAND --help` for a command\n"
          "  --version    print the version\n");
}

int drape_app_report(const drape_err *e) {
  fprintf(stderr, "drape: %s\n", e->msg);
  return e->code == DRAPE_EINVAL ? 2 : 1;
}

int drape_app_parse_kernel_form(const char *text, int *out, drape_err *e) {
  const int f = drape_cl_kernel_form_parse(text);
  if (f < 0)
    return drape_fail(e, DRAPE_EINVAL, "--kernel-form \"%s\": expected auto, gpu or cpu",
                      text ? text : "");
  *out = f;
  return DRAPE_OK;
}

int drape_app_parse_device(const char *text, int *out, drape_err *e) {
  char *end = NULL;
  long v = text ? strtol(text, &end, 10) : -1;
  if (!text || !*text || *end != 0 || v < 0 || v > 1000000)
    return drape_fail(e, DRAPE_EINVAL,
                      "--device \"%s\": expected a device index (0, 1, ...; see `drape devices`)",
                      text ? text : "");
  *out = (int)v;
  return DRAPE_OK;
}

int main(int argc, char **argv) {
  dr_app app = {.device = -1, .argv0 = argv[0]};
  int i = 1;
  for (; i < argc && argv[i][0] == '-'; i++) {
    const char *a = argv[i];
    if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
      usage(stdout);
      return 0;
    } else if (!strcmp(a, "--version")) {
      printf("drape %s\n", drape_version());
      return 0;
    } else if (!strcmp(a, "--device") || !strncmp(a, "--device=", 9)) {
      const char *val = a[8] == '=' ? a + 9 : (i + 1 < argc ? argv[++i] : NULL);
      drape_err e = {0};
      if (drape_app_parse_device(val, &app.device, &e)) {
        drape_app_report(&e);
        usage(stderr);
        return 2;
      }
    } else if (!strcmp(a, "--kernel-form") || !strncmp(a, "--kernel-form=", 14)) {
      const char *val = a[13] == '=' ? a + 14 : (i + 1 < argc ? argv[++i] : NULL);
      drape_err e = {0};
      if (drape_app_parse_kernel_form(val, &app.kernel_form, &e)) {
        drape_app_report(&e);
        usage(stderr);
        return 2;
      }
    } else {
      fprintf(stderr, "drape: unknown option '%s'\n\n", a);
      usage(stderr);
      return 2;
    }
  }
  const char *env_form = getenv("DRAPE_KERNEL_FORM");
  if (!app.kernel_form && env_form && *env_form && drape_cl_kernel_form_parse(env_form) < 0) {
    /* checked again where a solver starts; here so that it is named alone */
    fprintf(stderr, "drape: DRAPE_KERNEL_FORM = \"%s\": expected auto, gpu or cpu\n", env_form);
    return 2;
  }
  if (i >= argc) {
    fprintf(stderr, "drape: missing command\n\n");
    usage(stderr);
    return 2;
  }
  for (size_t c = 0; c < sizeof commands / sizeof commands[0]; c++)
    if (!strcmp(argv[i], commands[c].name)) return commands[c].fn(&app, argc - i, argv + i);
  fprintf(stderr, "drape: unknown command '%s'\n\n", argv[i]);
  usage(stderr);
  return 2;
}
