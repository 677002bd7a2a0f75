/* Shared test helpers (cmocka is the framework everywhere). */
#ifndef DRAPE_TEST_SUPPORT_H
#define DRAPE_TEST_SUPPORT_H

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
/* cmocka needs the four headers above first. */
#include <cmocka.h>

/* Asserts |a - b| <= tol with both values printed on failure. */
#define assert_near(a, b, tol) drape_assert_near((double)(a), (double)(b), (double)(tol), #a, #b, __FILE__, __LINE__)
void drape_assert_near(double a, double b, double tol, const char *sa, const char *sb,
                       const char *file, int line);

/* Paths handed in by ctest (tests/CMakeLists.txt); fall back to the
 * compile-time layout when run by hand. */
const char *drape_test_source_dir(void);
const char *drape_test_binary_dir(void);
const char *drape_test_exe(void); /* the drape command */

/* Runs a shell command; stdout+stderr captured into out (may be NULL).
 * Returns the exit status (or -1). */
int drape_test_sh(char *out, size_t cap, const char *fmt, ...);

/* A fresh empty folder under the build tree, named after tag. */
const char *drape_test_tmpdir(const char *tag);

#endif
