/* testutil.h — helpers shared by the Check suites. */
#ifndef JAIL_TESTUTIL_H
#define JAIL_TESTUTIL_H

#include "policy.h"

#include <stddef.h>

/* The variables every pure test uses: ~ is /home/u, {cwd} /work/p, {tmp} /tmp. */
extern const struct jail_vars test_vars;

/* Loads policy text named "test.policy"; fails the test on an error. */
struct jail_policy *test_load(const char *text);

/* Loads policy text; returns 0 and sets *out, or -1 and fills *err. */
int test_try_load(const char *text, struct jail_policy **out, struct jail_error *err);

/* Makes a fresh temporary directory (canonical path) into buf. */
void test_tmpdir(char *buf, size_t bufsz);

/* Writes text to dir/name; returns the full path in a static-free buffer. */
void test_write_file(const char *dir, const char *name, const char *text, char *path, size_t pathsz);

/* Runs a suite, returns the process exit status (0 when all passed). */
struct Suite;
int test_run(struct Suite *s);

/* rm -rf of a test directory. */
void test_rmtree(const char *dir);

#endif
