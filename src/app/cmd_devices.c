#include <stdio.h>
#include <string.h>

#include "app/app.h"
#include "drape/drape_cl.h"

int cmd_devices(dr_app *app, int argc, char **argv) {
  for (int i = 1; i < argc; i++) {
    if (!strcmp(argv[i], "--help")) {
      printf("usage: drape [--device N] devices\n"
             "Lists every OpenCL platform and device with its global index, type,\n"
             "compute units, memory, OpenCL C version and cl_khr_gl_sharing.\n"
             "With --device N (or DRAPE_DEVICE), checks that N exists and marks it.\n");
      return 0;
    }
    fprintf(stderr, "drape devices: unknown argument '%s'\nusage: drape [--device N] devices\n",
            argv[i]);
    return 2;
  }
  drape_err e = {0};
  int want = -1;
  if (drape_cl_requested_device(app->device, &want, &e)) return drape_app_report(&e);
  int n = drape_cl_device_count();
  if (want >= 0 && want >= n) {
    drape_fail(&e, DRAPE_EINVAL,
               n ? "device %d does not exist: valid device indices are 0..%d (see `drape devices`)"
                 : "device %d does not exist: no OpenCL device is available (%d)",
               want, n - 1);
    return drape_app_report(&e);
  }
  if (drape_cl_list(stdout, &e)) return drape_app_report(&e);
  if (want >= 0) printf("selected: device %d\n", want);
  return 0;
}
