/* Output paths, frame names, helper programs and interruption (src/core/
 * outpath.c, spawn.c, interrupt.c; issue 13 items 6-9): what is refused
 * and why, that nothing refused is touched, frame number widths, the
 * names --overwrite may remove, argument vectors reaching a program
 * verbatim, and the SIGINT flag. */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "support.h"
#include "io/io.h"

static char g_path[4][1400];

static const char *at(int k, const char *dir, const char *name) {
  snprintf(g_path[k], sizeof g_path[k], "%s/%s", dir, name);
  return g_path[k];
}

static void touch(const char *path, const char *text) {
  FILE *f = fopen(path, "w");
  assert_non_null(f);
  fputs(text, f);
  fclose(f);
}

static void test_frame_digits(void **state) {
  (void)state;
  assert_int_equal(dr_frame_digits(1), 4);
  assert_int_equal(dr_frame_digits(60), 4);
  assert_int_equal(dr_frame_digits(9999), 4);
  assert_int_equal(dr_frame_digits(10000), 5); /* frame 10000 sorts after 9999 */
  assert_int_equal(dr_frame_digits(99999), 5);
  assert_int_equal(dr_frame_digits(100000), 6);
  assert_int_equal(dr_frame_digits(10000000), 8);
}

static void test_frame_file_names(void **state) {
  (void)state;
  const char *yes[] = {"frame_0001.obj", "frame_10000.obj", "frame_0001.png", "run.json",
                       "frame_0003.obj.part", "frame_0003.obj.tmp1234",
                       "frame_0003.obj.part.tmp99", ".frame_0007.png.tmp", "run.json.tmp42"};
  const char *no[] = {"frame_.obj", "frame_12a.obj", "frame_0001.OBJ", "frame_0001.obj.bak",
                      "frame_0001.png.tmp", "notes.txt", "run.json.bak", "run.jsonx",
                      "myframe_0001.obj", "frame_0001.jpg", "frame_0001.obj.tmp", "logo.png"};
  for (size_t i = 0; i < sizeof yes / sizeof yes[0]; i++)
    if (!dr_is_frame_file(yes[i])) fail_msg("%s should be drape's", yes[i]);
  for (size_t i = 0; i < sizeof no / sizeof no[0]; i++)
    if (dr_is_frame_file(no[i])) fail_msg("%s is not drape's", no[i]);
}

/* Scan counts only drape's names; remove takes only those, and only
 * regular files among them. */
static void test_scan_and_remove(void **state) {
  (void)state;
  const char *dir = drape_test_tmpdir("outpath-scan");
  assert_non_null(dir);
  char first[64];
  assert_int_equal(dr_frame_files_scan(at(0, dir, "missing"), first, sizeof first), 0);
  touch(at(0, dir, "notes.txt"), "keep");
  touch(at(0, dir, "frame_0001.png.bak"), "keep");
  assert_int_equal(dr_frame_files_scan(dir, first, sizeof first), 0);
  touch(at(0, dir, "frame_0001.obj"), "v 0 0 0\n");
  touch(at(0, dir, "frame_0002.png"), "x");
  touch(at(0, dir, "run.json"), "{}");
  mkdir(at(0, dir, "frame_0009.obj"), 0755); /* not a file drape made */
  assert_int_equal(dr_frame_files_scan(dir, first, sizeof first), 4);
  assert_true(dr_is_frame_file(first));
  drape_err e = {0};
  assert_int_equal(dr_frame_files_remove(dir, "--obj-dir", &e), 3);
  struct stat st;
  assert_int_equal(stat(at(0, dir, "notes.txt"), &st), 0);
  assert_int_equal(stat(at(0, dir, "frame_0001.png.bak"), &st), 0);
  assert_int_equal(stat(at(0, dir, "frame_0009.obj"), &st), 0);
  assert_true(S_ISDIR(st.st_mode));
  assert_int_not_equal(stat(at(0, dir, "frame_0001.obj"), &st), 0);
  assert_int_not_equal(stat(at(0, dir, "run.json"), &st), 0);
}

/* Each refused target: exit-2 code, the flag and path named, a reason. */
static void refused(const char *path, const char *const *inputs, int n, const char *why) {
  drape_err e = {0};
  int rc = dr_out_file_check(path, "--stats", inputs, n, &e);
  if (rc != DRAPE_EINVAL) fail_msg("%s accepted (rc %d), expected: %s", path, rc, why);
  if (!strstr(e.msg, "--stats") || !strstr(e.msg, path) || !strstr(e.msg, why))
    fail_msg("message for %s lacks '%s': %s", path, why, e.msg);
}

static void test_out_file_check(void **state) {
  (void)state;
  const char *dir = drape_test_tmpdir("outpath-file");
  assert_non_null(dir);
  char fifo[1400], sub[1400], lnk[1400], scene[1400], hard[1400], ok[1400];
  snprintf(fifo, sizeof fifo, "%s/fifo", dir);
  snprintf(sub, sizeof sub, "%s/sub", dir);
  snprintf(lnk, sizeof lnk, "%s/devnull", dir);
  snprintf(scene, sizeof scene, "%s/scene.json", dir);
  snprintf(hard, sizeof hard, "%s/hardlink.json", dir);
  snprintf(ok, sizeof ok, "%s/new.json", dir);
  assert_int_equal(mkfifo(fifo, 0644), 0);
  assert_int_equal(mkdir(sub, 0755), 0);
  assert_int_equal(symlink("/dev/null", lnk), 0);
  touch(scene, "{\"frames\": 1}");
  assert_int_equal(link(scene, hard), 0);
  const char *inputs[2] = {NULL, scene};
  refused(fifo, inputs, 2, "FIFO");
  refused(sub, inputs, 2, "folder");
  refused(lnk, inputs, 2, "symbolic link");
  refused("/dev/null", inputs, 2, "character device");
  refused(scene, inputs, 2, "input of this run");
  refused(hard, inputs, 2, "input of this run"); /* same inode, other name */
  char nodir[1500], under_file[1500], slash[1500];
  snprintf(nodir, sizeof nodir, "%s/nodir/x.json", dir);
  snprintf(under_file, sizeof under_file, "%s/x.json", scene);
  snprintf(slash, sizeof slash, "%s/", sub);
  refused(nodir, inputs, 2, "does not exist");
  refused(under_file, inputs, 2, "is not a folder");
  refused(slash, inputs, 2, "ends in '/'");
  drape_err e = {0};
  assert_int_equal(dr_out_file_check(ok, "--stats", inputs, 2, &e), 0);
  touch(ok, "old");
  assert_int_equal(dr_out_file_check(ok, "--stats", inputs, 2, &e), 0); /* a regular file */
  assert_int_equal(dr_out_file_check(ok, "--stats", NULL, 0, &e), 0);
  /* Nothing refused was touched, nothing was created. */
  struct stat st;
  assert_int_equal(lstat(fifo, &st), 0);
  assert_true(S_ISFIFO(st.st_mode));
  assert_int_equal(lstat(lnk, &st), 0);
  assert_true(S_ISLNK(st.st_mode));
  assert_int_equal(stat("/dev/null", &st), 0);
  assert_true(S_ISCHR(st.st_mode));
  assert_int_not_equal(stat(at(0, dir, "nodir"), &st), 0);
}

static void test_out_dir_check(void **state) {
  (void)state;
  const char *dir = drape_test_tmpdir("outpath-dir");
  assert_non_null(dir);
  drape_err e = {0};
  char deep[1400], file[1400], under[1400];
  snprintf(deep, sizeof deep, "%s/a/b/c", dir);
  snprintf(file, sizeof file, "%s/file", dir);
  snprintf(under, sizeof under, "%s/file/sub", dir);
  assert_int_equal(dr_out_dir_check(dir, "--obj-dir", &e), 0);
  assert_int_equal(dr_out_dir_check(deep, "--obj-dir", &e), 0); /* creatable */
  struct stat st;
  assert_int_not_equal(stat(at(0, dir, "a"), &st), 0); /* ... but not created */
  touch(file, "x");
  assert_int_equal(dr_out_dir_check(file, "--obj-dir", &e), DRAPE_EINVAL);
  assert_non_null(strstr(e.msg, "--obj-dir"));
  assert_non_null(strstr(e.msg, "a file"));
  assert_int_equal(dr_out_dir_check(under, "--png-dir", &e), DRAPE_EINVAL);
  assert_non_null(strstr(e.msg, "--png-dir"));
  assert_int_equal(dr_out_dir_check("/dev/null", "--obj-dir", &e), DRAPE_EINVAL);
  assert_non_null(strstr(e.msg, "character device"));
}

/* A target that became a FIFO after the check is left alone; the
 * temporary goes, the FIFO stays. */
static void test_commit_never_replaces_special(void **state) {
  (void)state;
  const char *dir = drape_test_tmpdir("outpath-commit");
  assert_non_null(dir);
  char tmp[1400], target[1400];
  snprintf(tmp, sizeof tmp, "%s/out.json.tmp1", dir);
  snprintf(target, sizeof target, "%s/out.json", dir);
  touch(tmp, "{}");
  assert_int_equal(mkfifo(target, 0644), 0);
  drape_err e = {0};
  assert_int_equal(dr_out_commit(tmp, target, "--stats", &e), DRAPE_EIO);
  assert_non_null(strstr(e.msg, "FIFO"));
  struct stat st;
  assert_int_equal(lstat(target, &st), 0);
  assert_true(S_ISFIFO(st.st_mode));
  assert_int_not_equal(stat(tmp, &st), 0);
  /* A regular target is replaced. */
  unlink(target);
  touch(target, "old");
  touch(tmp, "new");
  assert_int_equal(dr_out_commit(tmp, target, "--stats", &e), 0);
  FILE *f = fopen(target, "r");
  char buf[8] = "";
  assert_non_null(fgets(buf, sizeof buf, f));
  fclose(f);
  assert_string_equal(buf, "new");
}

static void test_fnv1a(void **state) {
  (void)state;
  const char *dir = drape_test_tmpdir("outpath-hash");
  assert_non_null(dir);
  /* Published FNV-1a 64 values: "" and "a". */
  touch(at(0, dir, "empty"), "");
  touch(at(1, dir, "a"), "a");
  uint64_t h = 0;
  assert_int_equal(dr_hash_file_fnv1a64(g_path[0], &h), 0);
  assert_true(h == 0xcbf29ce484222325ULL);
  assert_int_equal(dr_hash_file_fnv1a64(g_path[1], &h), 0);
  assert_true(h == 0xaf63dc4c8601ec8cULL);
  assert_int_equal(dr_hash_file_fnv1a64(at(2, dir, "missing"), &h), -1);
}

/* Arguments reach the program as they are: quotes, ';' and '$' in a name
 * run nothing. The child writes its argv[1] to stdout (a file here). */
static void test_spawn_verbatim(void **state) {
  (void)state;
  const char *dir = drape_test_tmpdir("outpath-spawn");
  assert_non_null(dir);
  const char *nasty = "x';touch PWNED;'$(touch PWNED2)\"";
  char out[1400];
  snprintf(out, sizeof out, "%s/out.txt", dir);
  int fd = open(out, O_WRONLY | O_CREAT | O_TRUNC, 0644);
  assert_true(fd >= 0);
  const char *argv[] = {"printf", "%s", nasty, NULL};
  dr_spawn_opts o = dr_spawn_opts_default();
  o.stdout_fd = fd;
  o.cwd = dir; /* a PWNED file would appear here */
  drape_err e = {0};
  assert_int_equal(dr_spawn_run(argv, &o, "test", &e), 0);
  close(fd);
  FILE *f = fopen(out, "r");
  char buf[256] = "";
  assert_non_null(fgets(buf, sizeof buf, f));
  fclose(f);
  assert_string_equal(buf, nasty);
  struct stat st;
  assert_int_not_equal(stat(at(0, dir, "PWNED"), &st), 0);
  assert_int_not_equal(stat(at(1, dir, "PWNED2"), &st), 0);
  /* A failing helper and a missing one are reported by name. */
  const char *fails[] = {"sh", "-c", "exit 3", NULL};
  assert_int_equal(dr_spawn_run(fails, NULL, "plot", &e), DRAPE_EIO);
  assert_non_null(strstr(e.msg, "plot: sh exited with status 3"));
  const char *missing[] = {"drape-no-such-helper-xyz", NULL};
  assert_int_equal(dr_spawn_run(missing, NULL, "plot", &e), DRAPE_EIO);
  assert_non_null(strstr(e.msg, "drape-no-such-helper-xyz"));
}

static void test_gnuplot_string(void **state) {
  (void)state;
  char *buf = NULL;
  size_t len = 0;
  FILE *f = open_memstream(&buf, &len);
  dr_gp_str(f, "it's a\nb");
  fclose(f);
  assert_string_equal(buf, "'it''s ab'");
  free(buf);
}

static void test_interrupt_flag(void **state) {
  (void)state;
  assert_int_equal(dr_interrupted(), 0);
  dr_interrupt_install();
  raise(SIGINT); /* handled: sets the flag, the process carries on */
  assert_int_equal(dr_interrupted(), SIGINT);
  assert_int_equal(dr_interrupt_exit_code(SIGINT), 130);
  assert_int_equal(dr_interrupt_exit_code(SIGTERM), 143);
  /* The handler reset itself: a second SIGINT would end the process. */
  struct sigaction sa;
  sigaction(SIGINT, NULL, &sa);
  assert_true(sa.sa_handler == SIG_DFL);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_frame_digits),
      cmocka_unit_test(test_frame_file_names),
      cmocka_unit_test(test_scan_and_remove),
      cmocka_unit_test(test_out_file_check),
      cmocka_unit_test(test_out_dir_check),
      cmocka_unit_test(test_commit_never_replaces_special),
      cmocka_unit_test(test_fnv1a),
      cmocka_unit_test(test_spawn_verbatim),
      cmocka_unit_test(test_gnuplot_string),
      cmocka_unit_test(test_interrupt_flag),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
