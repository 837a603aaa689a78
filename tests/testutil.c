#define _GNU_SOURCE
#include "testutil.h"

#include <check.h>
#include <fcntl.h>
#include <ftw.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

const struct jail_vars test_vars = {.home = "/home/u", .cwd = "/work/p", .tmp = "/tmp"};

int test_try_load(const char *text, struct jail_policy **out, struct jail_error *err)
{
	struct jail_load_opts o = {.vars = test_vars};
	struct jail_source src = {.name = "test.policy", .text = text};
	return jail_policy_load(&o, &src, 1, out, err);
}

struct jail_policy *test_load(const char *text)
{
	struct jail_policy *p = NULL;
	struct jail_error err;
	char msg[2048];
	if (test_try_load(text, &p, &err) != 0) {
		jail_error_format(&err, msg, sizeof(msg));
		ck_abort_msg("policy did not load: %s\n---\n%s", msg, text);
	}
	return p;
}

/* All of a run's directories live under one, removed when the run ends even
 * if a failing test (a forked child that exits at once) skipped its teardown. */
static char session[64];
static pid_t session_owner;

static void remove_session(void)
{
	if (session[0] && getpid() == session_owner) /* not in Check's forked children */
		test_rmtree(session);
}

__attribute__((constructor)) static void make_session(void)
{
	strcpy(session, "/tmp/jail-test-XXXXXX");
	if (!mkdtemp(session)) {
		perror("jail tests: mkdtemp");
		exit(2);
	}
	session_owner = getpid();
	atexit(remove_session);
}

void test_tmpdir(char *buf, size_t bufsz)
{
	char tmpl[128];
	snprintf(tmpl, sizeof(tmpl), "%s/t-XXXXXX", session);
	ck_assert_ptr_nonnull(mkdtemp(tmpl));
	ck_assert_ptr_nonnull(realpath(tmpl, buf));
	ck_assert_uint_lt(strlen(buf), bufsz);
}

void test_write_file(const char *dir, const char *name, const char *text, char *path, size_t pathsz)
{
	snprintf(path, pathsz, "%s/%s", dir, name);
	FILE *f = fopen(path, "w");
	ck_assert_ptr_nonnull(f);
	fputs(text, f);
	ck_assert_int_eq(fclose(f), 0);
}

static int rm_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	return remove(path);
}

void test_rmtree(const char *dir)
{
	nftw(dir, rm_one, 16, FTW_DEPTH | FTW_PHYS);
}

int test_run(Suite *s)
{
	SRunner *sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	int failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? 1 : 0;
}
