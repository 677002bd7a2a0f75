/* Output paths checked before a run starts, frame folders and their file
 * names (util.h; issue 13 items 6 and 9).
 *
 * Why the rules are what they are: drape writes each output to a temporary
 * name in the target's folder and renames it into place, so a failed run
 * never leaves a half-written file. A rename replaces whatever has the
 * target name: run as root, `--stats /dev/null` replaced the device node
 * with a JSON file, and `--stats SCENE` replaced the scene. So a target
 * must be absent or a plain regular file that is not an input, and this is
 * checked before any work, so a bad path costs nothing. */
#include "io/io.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

int dr_dir_writable(const char *dir, int *err) {
  char probe[4300];
  if (snprintf(probe, sizeof probe, "%s/.drape-probe-%ld", dir, (long)getpid()) >=
      (int)sizeof probe) {
    *err = ENAMETOOLONG;
    return 0;
  }
  int fd = open(probe, O_WRONLY | O_CREAT | O_EXCL, 0644);
  if (fd < 0) {
    *err = errno;
    return 0;
  }
  close(fd);
  unlink(probe);
  return 1;
}

/* The folder part of a file path: "." for a bare name, "/" for "/x". */
static void parent_of(const char *path, char *dir, size_t cap) {
  snprintf(dir, cap, "%s", path);
  char *slash = strrchr(dir, '/');
  if (!slash) snprintf(dir, cap, ".");
  else if (slash == dir) dir[1] = 0;
  else *slash = 0;
}

static const char *kind_of(mode_t m) {
  return S_ISREG(m)    ? "a file"
         : S_ISDIR(m)  ? "a folder"
         : S_ISLNK(m)  ? "a symbolic link"
         : S_ISFIFO(m) ? "a FIFO"
         : S_ISCHR(m)  ? "a character device"
         : S_ISBLK(m)  ? "a block device"
         : S_ISSOCK(m) ? "a socket"
                       : "not a regular file";
}

int dr_out_file_check(const char *path, const char *flag, const char *const *inputs,
                         int n_inputs, drape_err *e) {
  if (!path || !*path) return drape_fail(e, DRAPE_EINVAL, "%s \"\": expected a file name", flag);
  size_t n = strlen(path);
  if (n > 3800)
    return drape_fail(e, DRAPE_EINVAL, "%s: file name longer than 3800 characters", flag);
  if (path[n - 1] == '/')
    return drape_fail(e, DRAPE_EINVAL, "%s \"%s\": ends in '/', expected a file name", flag, path);
  struct stat st;
  if (lstat(path, &st) == 0) {
    if (S_ISLNK(st.st_mode))
      return drape_fail(e, DRAPE_EINVAL,
                        "%s \"%s\": is a symbolic link; drape writes a new file and renames it "
                        "into place, which would replace the link: give the file's own path",
                        flag, path);
    if (!S_ISREG(st.st_mode))
      return drape_fail(e, DRAPE_EINVAL,
                        "%s \"%s\": exists and is %s; drape only replaces regular files", flag,
                        path, kind_of(st.st_mode));
    for (int i = 0; i < n_inputs; i++) {
      struct stat in;
      if (inputs[i] && stat(inputs[i], &in) == 0 && in.st_dev == st.st_dev &&
          in.st_ino == st.st_ino)
        return drape_fail(e, DRAPE_EINVAL,
                          "%s \"%s\": is an input of this run (%s); choose another file name",
                          flag, path, inputs[i]);
    }
  } else if (errno != ENOENT && errno != ENOTDIR) {
    return drape_fail(e, DRAPE_EINVAL, "%s \"%s\": %s", flag, path, strerror(errno));
  }
  char dir[4096];
  parent_of(path, dir, sizeof dir);
  if (stat(dir, &st) != 0)
    return drape_fail(e, DRAPE_EINVAL, "%s \"%s\": folder \"%s\" does not exist (%s)", flag,
                      path, dir, strerror(errno));
  if (!S_ISDIR(st.st_mode))
    return drape_fail(e, DRAPE_EINVAL, "%s \"%s\": \"%s\" is not a folder", flag, path, dir);
  int err = 0;
  if (!dr_dir_writable(dir, &err))
    return drape_fail(e, DRAPE_EINVAL, "%s \"%s\": cannot create files in folder \"%s\": %s",
                      flag, path, dir, strerror(err));
  return DRAPE_OK;
}

int dr_out_dir_check(const char *dir, const char *flag, drape_err *e) {
  if (!dir || !*dir) return drape_fail(e, DRAPE_EINVAL, "%s \"\": expected a folder", flag);
  if (strlen(dir) > 3800)
    return drape_fail(e, DRAPE_EINVAL, "%s: folder name longer than 3800 characters", flag);
  struct stat st;
  int err = 0;
  if (stat(dir, &st) == 0) {
    if (!S_ISDIR(st.st_mode))
      return drape_fail(e, DRAPE_EINVAL, "%s \"%s\": exists and is %s, expected a folder", flag,
                        dir, kind_of(st.st_mode));
    if (!dr_dir_writable(dir, &err))
      return drape_fail(e, DRAPE_EINVAL, "%s \"%s\": cannot create files in the folder: %s",
                        flag, dir, strerror(err));
    return DRAPE_OK;
  }
  if (errno != ENOENT && errno != ENOTDIR)
    return drape_fail(e, DRAPE_EINVAL, "%s \"%s\": %s", flag, dir, strerror(errno));
  /* To be created: the deepest existing part must be a writable folder. */
  char up[4096];
  snprintf(up, sizeof up, "%s", dir);
  for (;;) {
    size_t n = strlen(up);
    while (n > 1 && up[n - 1] == '/') up[--n] = 0;
    char *slash = strrchr(up, '/');
    if (!slash) snprintf(up, sizeof up, ".");
    else if (slash == up) up[1] = 0;
    else *slash = 0;
    if (stat(up, &st) == 0) break;
    if (errno != ENOENT && errno != ENOTDIR)
      return drape_fail(e, DRAPE_EINVAL, "%s \"%s\": %s: %s", flag, dir, up, strerror(errno));
    if (!strcmp(up, ".") || !strcmp(up, "/")) break;
  }
  if (!S_ISDIR(st.st_mode))
    return drape_fail(e, DRAPE_EINVAL, "%s \"%s\": cannot create the folder: \"%s\" is %s", flag,
                      dir, up, kind_of(st.st_mode));
  if (!dr_dir_writable(up, &err))
    return drape_fail(e, DRAPE_EINVAL, "%s \"%s\": cannot create the folder in \"%s\": %s", flag,
                      dir, up, strerror(err));
  return DRAPE_OK;
}

int dr_out_commit(const char *tmp, const char *path, const char *flag, drape_err *e) {
  struct stat st;
  if (lstat(path, &st) == 0 && !S_ISREG(st.st_mode)) {
    unlink(tmp);
    return drape_fail(e, DRAPE_EIO, "%s \"%s\": became %s during the run; left as it is, the "
                      "output was discarded", flag, path, kind_of(st.st_mode));
  }
  if (rename(tmp, path) != 0) {
    int err = errno;
    unlink(tmp);
    return drape_fail(e, DRAPE_EIO, "%s: cannot rename %s to %s: %s", flag, tmp, path,
                      strerror(err));
  }
  return DRAPE_OK;
}

/* ---- frame folders ---- */

int dr_frame_digits(long frames) {
  int d = 1;
  for (long f = frames; f >= 10; f /= 10) d++;
  return d < 4 ? 4 : d;
}

/* Skips a run of decimal digits; NULL when there is none. */
static const char *digits(const char *s) {
  const char *p = s;
  while (*p >= '0' && *p <= '9') p++;
  return p > s ? p : NULL;
}

/* ".tmp<pid>" */
static int is_tmp_pid(const char *s) {
  if (strncmp(s, ".tmp", 4)) return 0;
  const char *p = digits(s + 4);
  return p && !*p;
}

int dr_is_frame_file(const char *name) {
  if (!strcmp(name, "run.json")) return 1;
  if (!strncmp(name, "run.json", 8) && is_tmp_pid(name + 8)) return 1;
  if (!strncmp(name, ".frame_", 7)) { /* capture.c's PNG temporaries */
    const char *p = digits(name + 7);
    return p && !strcmp(p, ".png.tmp");
  }
  if (strncmp(name, "frame_", 6)) return 0;
  const char *p = digits(name + 6);
  if (!p) return 0;
  if (!strcmp(p, ".png")) return 1;
  if (strncmp(p, ".obj", 4)) return 0;
  p += 4;
  if (!*p || is_tmp_pid(p)) return 1;
  if (strncmp(p, ".part", 5)) return 0;
  p += 5;
  return !*p || is_tmp_pid(p);
}

int dr_frame_files_scan(const char *dir, char *first, size_t cap) {
  if (first && cap) first[0] = 0;
  DIR *d = opendir(dir);
  if (!d) return errno == ENOENT ? 0 : -1;
  int n = 0;
  struct dirent *de;
  while ((de = readdir(d)) != NULL)
    if (dr_is_frame_file(de->d_name)) {
      if (n++ == 0 && first && cap) snprintf(first, cap, "%s", de->d_name);
    }
  closedir(d);
  return n;
}

int dr_frame_files_remove(const char *dir, const char *flag, drape_err *e) {
  DIR *d = opendir(dir);
  if (!d) {
    if (errno == ENOENT) return 0;
    drape_fail(e, DRAPE_EIO, "%s \"%s\": cannot read the folder: %s", flag, dir, strerror(errno));
    return -1;
  }
  int n = 0;
  struct dirent *de;
  char path[4400];
  while ((de = readdir(d)) != NULL) {
    if (!dr_is_frame_file(de->d_name)) continue;
    snprintf(path, sizeof path, "%s/%s", dir, de->d_name);
    struct stat st;
    /* Only regular files: a folder or a device that happens to have a
     * frame's name was not made by drape. */
    if (lstat(path, &st) != 0 || !S_ISREG(st.st_mode)) continue;
    if (unlink(path) != 0) {
      drape_fail(e, DRAPE_EIO, "%s: cannot remove %s: %s", flag, path, strerror(errno));
      closedir(d);
      return -1;
    }
    n++;
  }
  closedir(d);
  return n;
}

/* ---- hashes and times ---- */

int dr_hash_file_fnv1a64(const char *path, uint64_t *out) {
  /* FNV-1a, 64-bit (Fowler, Noll, Vo): offset basis and prime from the
   * reference description; enough to tell two scene files apart. */
  FILE *f = fopen(path, "rb");
  if (!f) return -1;
  uint64_t h = 14695981039346656037ULL;
  unsigned char buf[65536];
  size_t n;
  while ((n = fread(buf, 1, sizeof buf, f)) > 0)
    for (size_t i = 0; i < n; i++) {
      h ^= buf[i];
      h *= 1099511628211ULL;
    }
  int bad = ferror(f);
  fclose(f);
  if (bad) {
    errno = EIO;
    return -1;
  }
  *out = h;
  return 0;
}

void dr_utc_now(char *buf, size_t cap) {
  time_t now = time(NULL);
  struct tm tm;
  gmtime_r(&now, &tm);
  strftime(buf, cap, "%Y-%m-%dT%H:%M:%SZ", &tm);
}
