/* Helpers of the commands and of the renderer's output (the render
 * library; the solver library needs none of them): strict number parsing
 * for flags, creating and checking output paths (outpath.c), JSON and
 * gnuplot strings (io.c), starting helper programs (spawn.c) and stopping
 * cleanly on SIGINT/SIGTERM (interrupt.c). */
#ifndef DRAPE_IO_IO_H
#define DRAPE_IO_IO_H

#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#include "drape/base.h"

/* A whole decimal number in [lo, hi] and nothing else; 1 on success. */
int dr_parse_long(const char *text, long lo, long hi, long *out);
int dr_parse_int(const char *text, long lo, long hi, int *out);
/* "WxH" (or "WXH") with both sides in [lo, hi]; 1 on success. */
int dr_parse_size(const char *text, long lo, long hi, int *w, int *h);

/* mkdir -p: 0, or -1 with errno set. */
int dr_mkdir_p(const char *path);
/* mkdir -p, then requires a writable directory; errors are DRAPE_EINVAL
 * naming `flag` (e.g. "--obj-dir"), the path and the reason. */
int dr_make_dirs(const char *path, const char *flag, drape_err *e);

/* JSON output: a number as %.9g, or null when it is not finite (JSON has
 * no NaN/Infinity); a string with quotes, backslashes and control
 * characters escaped. */
void dr_json_num(FILE *f, double v);
void dr_json_str(FILE *f, const char *s);
/* A gnuplot single-quoted string: every ' doubled (gnuplot's escape inside
 * '...'), so a title or file name is always literal text. */
void dr_gp_str(FILE *f, const char *s);

/* ---- output paths (outpath.c) ----
 * Every output is checked before a run starts (issue 13 item 6), so a bad
 * path fails with exit 2 at once instead of after the run, and drape never
 * replaces or removes a file it did not create: files are written to a
 * temporary name in the same folder and renamed over the target, which is
 * only allowed when the target is absent or a plain regular file. */

/* An output file: the name is not empty and does not end in '/'; the
 * target does not exist, or is a regular file (not a folder, device, FIFO,
 * socket or symbolic link) that is none of the run's inputs (same device
 * and inode as any of inputs[0..n_inputs-1]; NULL entries are skipped);
 * its folder exists and files can be created in it. Creates nothing.
 * DRAPE_EINVAL naming `flag`, the path and the reason. */
int dr_out_file_check(const char *path, const char *flag, const char *const *inputs,
                         int n_inputs, drape_err *e);
/* An output folder: it exists as a folder (a symbolic link to one is fine)
 * in which files can be created, or it can be created (every existing
 * part of the path is a folder and the deepest one is writable). Creates
 * nothing. DRAPE_EINVAL naming `flag`. */
int dr_out_dir_check(const char *dir, const char *flag, drape_err *e);
/* 1 when a file can be created in `dir` (an O_EXCL probe: access() says
 * yes to root even on a read-only file system); else 0 with *err = errno. */
int dr_dir_writable(const char *dir, int *err);
/* Renames the finished temporary `tmp` to `path` unless `path` has become
 * something other than a regular file since the check (then `tmp` is
 * removed, never `path`). DRAPE_EIO naming `flag` on failure. */
int dr_out_commit(const char *tmp, const char *path, const char *flag, drape_err *e);

/* Frame files: frame_NNNN.obj / .png with as many digits as the frame
 * count needs, at least 4 (frame 10000 of 10000 gets 5, so names sort). */
int dr_frame_digits(long frames);
/* Files drape names in a frame folder: frame_<digits>.obj, frame_<digits>.png,
 * run.json and the temporaries of those (frame_<digits>.obj.part,
 * .frame_<digits>.png.tmp, frame_<digits>.obj.tmp<pid>, .run.json.tmp<pid>). */
int dr_is_frame_file(const char *name);
/* Counts drape's files in `dir` (0 when it does not exist); `first` gets
 * the first name found. -1 with errno when the folder cannot be read. */
int dr_frame_files_scan(const char *dir, char *first, size_t cap);
/* Removes drape's files from `dir` (dr_is_frame_file) and nothing else;
 * the number removed, or -1 with e set. */
int dr_frame_files_remove(const char *dir, const char *flag, drape_err *e);

/* FNV-1a 64-bit hash of a file's bytes (a change detector, not a
 * cryptographic hash); 0 on success, -1 with errno. */
int dr_hash_file_fnv1a64(const char *path, uint64_t *out);
/* The time now as "YYYY-MM-DDTHH:MM:SSZ". */
void dr_utc_now(char *buf, size_t cap);

/* ---- helper programs (spawn.c) ----
 * gnuplot and ffmpeg are started with an argument vector (posix_spawn),
 * never through a shell, so no file name is ever parsed as a command
 * (issue 13 item 7). */
typedef struct dr_spawn_opts {
  const char *cwd;   /* the child's working folder; NULL: this one's      */
  int stdin_fd;      /* dup'ed to the child's stdin; -1: inherited        */
  int stdout_fd;     /* dup'ed to the child's stdout; -1: inherited       */
  int stdout_null;   /* the child's stdout goes to /dev/null              */
  int stderr_null;   /* the child's stderr goes to /dev/null              */
  int own_group;     /* own process group: a terminal's Ctrl-C reaches
                        drape only, which then ends the child cleanly     */
} dr_spawn_opts;
dr_spawn_opts dr_spawn_opts_default(void);
/* Starts argv[0] (a path, or a name looked up on PATH) with argv; SIGINT,
 * SIGTERM and SIGPIPE at their defaults in the child. DRAPE_EIO naming
 * argv[0] when it cannot be started. */
int dr_spawn(const char *const *argv, const dr_spawn_opts *o, pid_t *pid, drape_err *e);
/* waitpid, retried on EINTR: the raw status, or -1. */
int dr_spawn_wait(pid_t pid);
/* Runs a helper to the end: 0 when it exited with status 0, else
 * DRAPE_EIO with "`what`: NAME exited with status N" (or "was killed by
 * signal N", "could not be started: ..."). */
int dr_spawn_run(const char *const *argv, const dr_spawn_opts *o, const char *what,
                    drape_err *e);

/* ---- interruption (interrupt.c) ----
 * SIGINT and SIGTERM set a flag (the first one only: the handler resets
 * itself, so a second Ctrl-C ends the process at once); long loops look at
 * it at each frame boundary, clean up and exit with 128 + the signal
 * (130 for SIGINT, 143 for SIGTERM). */
void dr_interrupt_install(void);
/* The signal received (SIGINT or SIGTERM), or 0. */
int dr_interrupted(void);
/* The exit code for a signal: 128 + sig. */
int dr_interrupt_exit_code(int sig);
/* Holds SIGINT and SIGTERM back while a few files are written and renamed
 * (block), then lets a pending one act (unblock). */
void dr_signals_block(void);
void dr_signals_unblock(void);

#endif
