/*
 * test_resolve.c — the resolver on a real temporary tree.
 *
 * Two kinds of evidence:
 *  - differential: for every existing path we can spell in the tree, the
 *    resolver must agree with realpath(3) and with the kernel itself (open
 *    O_PATH, then readlink /proc/self/fd/N) — by both routes (fast, slow);
 *  - cases: each row names a path that is easy to get wrong (dangling links,
 *    loops, `..` after a link, magic links, dirfds, deleted directories) and
 *    the answer the kernel gives; where the kernel can show it (creating a
 *    file through a dangling link), the test makes it show it.
 */
#define _GNU_SOURCE
#include "resolve.h"
#include "testutil.h"

#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

static char root[PATH_MAX];     /* the tree: root/in is "the jail", root/out outside */
static struct jail_resolved res; /* big: keep it off the stack */

static void mk(const char *rel, char kind, const char *target)
{
	char p[2 * PATH_MAX];
	snprintf(p, sizeof(p), "%s/%s", root, rel);
	switch (kind) {
	case 'd':
		ck_assert_msg(mkdir(p, 0755) == 0, "mkdir %s: %s", p, strerror(errno));
		break;
	case 'f': {
		int fd = open(p, O_CREAT | O_WRONLY | O_EXCL, 0644);
		ck_assert_msg(fd >= 0, "create %s: %s", p, strerror(errno));
		close(fd);
		break;
	}
	case 'l':
		ck_assert_msg(symlink(target, p) == 0, "symlink %s: %s", p, strerror(errno));
		break;
	default:
		ck_abort();
	}
}

/* The tree every test starts from. */
static void setup(void)
{
	test_tmpdir(root, sizeof(root));
	char abs_out[PATH_MAX + 32];
	snprintf(abs_out, sizeof(abs_out), "%s/out", root);
	mk("in", 'd', NULL);
	mk("out", 'd', NULL);
	mk("out/secret", 'f', NULL);
	mk("in/a", 'd', NULL);
	mk("in/a/b", 'd', NULL);
	mk("in/a/b/c", 'd', NULL);
	mk("in/a/b/c/file", 'f', NULL);
	mk("in/a/f", 'f', NULL);
	mk("in/rel", 'l', "a/b");                 /* relative, to a directory */
	mk("in/absout", 'l', abs_out);            /* absolute, outside */
	mk("in/up", 'l', "../out");               /* relative, climbing out */
	mk("in/chain1", 'l', "chain2");           /* chain of three */
	mk("in/chain2", 'l', "chain3");
	mk("in/chain3", 'l', "a/b/c/file");
	mk("in/a/b/c/back", 'l', "../../f");      /* .. inside a target */
	mk("in/deep", 'l', "a/b/c");              /* for "deep/../x" */
	mk("in/dangle", 'l', "../out/created");   /* dangling, points outside */
	mk("in/dangle_abs", 'l', "/nonexistent-jail-test-dir/x"); /* dangling, parent missing */
	mk("in/dchain", 'l', "dangle");           /* chain ending dangling */
	mk("in/loop1", 'l', "loop2");
	mk("in/loop2", 'l', "loop1");
	mk("in/self", 'l', "self");
	mk("in/tofile", 'l', "a/f");
	mk("in/slashy", 'l', "a//b/./c/");        /* odd spelling in a target */
	mk("in/dotdot", 'l', "..");
	mk("in/x (deleted)", 'f', NULL);          /* a real name that looks like the kernel's mark */
}

static void teardown(void)
{
	test_rmtree(root);
}

/* ---- differential against realpath(3) and the kernel ---- */

static const char *spellings[] = {
    "in", "in/a", "in/a/b/c/file", "in/rel", "in/rel/c", "in/rel/c/file", "in/rel/../f", "in/absout",
    "in/absout/secret", "in/up/secret", "in/up/../in/a", "in/chain1", "in/a/b/c/back", "in/deep/../c/file",
    "in/deep/../../f", "in/deep/..", "in//a///b/./c/", "in/tofile", "in/slashy", "in/slashy/file",
    "in/dotdot/out/secret", "in/dotdot/in/dotdot/in/rel", "in/./a/../a/b/../b/c/./file", "in/rel/c/back",
    "in/x (deleted)", "in/rel/c/../c/file", ".", "in/rel/", "in/rel/c/..",
};

/* What the kernel resolves `abs` to: open O_PATH and read the fd's link. */
static int kernel_path(const char *abs, char *out, size_t outsz)
{
	int fd = open(abs, O_PATH | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	char link[64];
	snprintf(link, sizeof(link), "/proc/self/fd/%d", fd);
	ssize_t n = readlink(link, out, outsz - 1);
	close(fd);
	ck_assert_int_gt(n, 0);
	out[n] = '\0';
	return 0;
}

START_TEST(differential)
{
	char abs[PATH_MAX + 64], rp[PATH_MAX], kp[PATH_MAX];
	const char *s = spellings[_i];
	snprintf(abs, sizeof(abs), "%s/%s", root, s);
	ck_assert_msg(realpath(abs, rp) != NULL, "test tree broken: %s: %s", s, strerror(errno));
	ck_assert_int_eq(kernel_path(abs, kp, sizeof(kp)), 0);
	ck_assert_str_eq(rp, kp);
	for (unsigned slow = 0; slow < 2; slow++) {
		int rc = jail_resolve(AT_FDCWD, abs, slow ? JAIL_RES_SLOW : 0, &res);
		ck_assert_msg(rc == 0, "%s (slow=%u): rc %d", s, slow, rc);
		ck_assert_msg(strcmp(res.path, rp) == 0, "%s (slow=%u): got %s, realpath %s", s, slow, res.path, rp);
		ck_assert_int_eq(res.exists, 1);
		ck_assert_int_eq(res.kind, JAIL_OBJ_PATH);
	}
	/* the same through a relative path from the tree's root */
	char cwd[PATH_MAX];
	ck_assert_ptr_nonnull(getcwd(cwd, sizeof(cwd)));
	ck_assert_int_eq(chdir(root), 0);
	int rc = jail_resolve(AT_FDCWD, s, 0, &res);
	int rc_slow = jail_resolve(AT_FDCWD, s, JAIL_RES_SLOW, &res);
	ck_assert_int_eq(chdir(cwd), 0);
	ck_assert_int_eq(rc, 0);
	ck_assert_int_eq(rc_slow, 0);
	ck_assert_str_eq(res.path, rp);
}
END_TEST

/* ---- cases ---- */

struct rcase {
	const char *path;  /* relative to root, or absolute when it starts with '/' */
	unsigned flags;
	int rc;            /* expected return */
	const char *want;  /* expected path, relative to root ("" = root itself), or absolute with '/' */
	int exists;
	const char *why;
};

static const struct rcase cases[] = {
    {"in/dangle", 0, 0, "out/created", 0, "dangling link: resolves where the kernel creates"},
    {"in/dchain", 0, 0, "out/created", 0, "chain ending in a dangling link"},
    {"in/dangle", JAIL_RES_NOFOLLOW, 0, "in/dangle", 1, "acting on the link itself"},
    {"in/dangle_abs", 0, -ENOENT, NULL, 0, "dangling link whose target's parent is missing"},
    {"in/newfile", 0, 0, "in/newfile", 0, "a file about to be created"},
    {"in/rel/newfile", 0, 0, "in/a/b/newfile", 0, "created through a directory link"},
    {"in/absout/newfile", 0, 0, "out/newfile", 0, "created through an absolute link"},
    {"in/missing/x", 0, -ENOENT, "in/missing/x", 0, "missing directory on the way"},
    {"in/a/f/x", 0, -ENOTDIR, NULL, 0, "a file used as a directory"},
    {"in/loop1", 0, -ELOOP, NULL, 0, "two links pointing at each other"},
    {"in/self", 0, -ELOOP, NULL, 0, "a link to itself"},
    {"in/loop1", JAIL_RES_NOFOLLOW, 0, "in/loop1", 1, "a loop acted on as a link"},
    {"in/loop1/x", JAIL_RES_NOFOLLOW, -ELOOP, NULL, 0, "NOFOLLOW only spares the final component"},
    {"in/rel", JAIL_RES_NOFOLLOW, 0, "in/rel", 1, "unlink/lstat of a link"},
    {"in/rel/", JAIL_RES_NOFOLLOW, 0, "in/a/b", 1, "a trailing slash follows even with NOFOLLOW"},
    {"in/deep/../f", JAIL_RES_NOFOLLOW, 0, "in/a/b/f", 0, ".. climbs from the link target"},
    {"in/rel/c/back", JAIL_RES_NOFOLLOW, 0, "in/a/b/c/back", 1, "link in a linked directory"},
    {"in/chain1", 0, 0, "in/a/b/c/file", 1, "chain of three"},
    {"in/up/secret", 0, 0, "out/secret", 1, "relative link out of the jail"},
    {"/", 0, 0, "/", 1, "the root"},
    {"/..", 0, 0, "/", 1, "above the root is the root"},
    {"/proc/self/root/etc", 0, 0, "/etc", 1, "magic link to the root"},
    {"in/newdir/", 0, 0, "in/newdir", 0, "mkdir with a trailing slash"},
};

START_TEST(resolve_case)
{
	const struct rcase *c = &cases[_i];
	char abs[PATH_MAX + 64], want[PATH_MAX + 64];
	if (c->path[0] == '/')
		snprintf(abs, sizeof(abs), "%s", c->path);
	else
		snprintf(abs, sizeof(abs), "%s/%s", root, c->path);
	if (c->want && c->want[0] == '/')
		snprintf(want, sizeof(want), "%s", c->want);
	else if (c->want)
		snprintf(want, sizeof(want), "%s/%s", root, c->want);
	for (unsigned slow = 0; slow < 2; slow++) {
		int rc = jail_resolve(AT_FDCWD, abs, c->flags | (slow ? JAIL_RES_SLOW : 0), &res);
		ck_assert_msg(rc == c->rc, "%s [%s] slow=%u: rc %d (%s), want %d", c->path, c->why, slow, rc,
		              strerror(-rc), c->rc);
		if (c->want)
			ck_assert_msg(strcmp(res.path, want) == 0, "%s [%s] slow=%u: got %s, want %s", c->path, c->why,
			              slow, res.path, want);
		if (c->rc == 0)
			ck_assert_msg(res.exists == c->exists, "%s [%s] slow=%u: exists %d", c->path, c->why, slow,
			              res.exists);
	}
}
END_TEST

/* The kernel agrees: O_CREAT through the dangling link creates the file at
 * the resolved path, outside "in". A resolver that said "in/dangle" would
 * have let a jail allow this. */
START_TEST(dangling_create_lands_where_resolved)
{
	char link[PATH_MAX + 32], created[PATH_MAX + 32];
	snprintf(link, sizeof(link), "%s/in/dangle", root);
	snprintf(created, sizeof(created), "%s/out/created", root);
	ck_assert_int_eq(jail_resolve(AT_FDCWD, link, 0, &res), 0);
	ck_assert_str_eq(res.path, created);
	ck_assert_int_eq(access(created, F_OK), -1);
	int fd = open(link, O_CREAT | O_WRONLY, 0600);
	ck_assert_int_ge(fd, 0);
	close(fd);
	ck_assert_int_eq(access(created, F_OK), 0);
}
END_TEST

START_TEST(too_long)
{
	static char longp[PATH_MAX + 16];
	memset(longp, 'a', sizeof(longp) - 1);
	longp[0] = '/';
	longp[sizeof(longp) - 1] = '\0';
	ck_assert_int_eq(jail_resolve(AT_FDCWD, longp, 0, &res), -ENAMETOOLONG);
	/* a component over NAME_MAX */
	char p[PATH_MAX];
	int n = snprintf(p, sizeof(p), "%s/in/", root);
	memset(p + n, 'b', 300);
	p[n + 300] = '\0';
	ck_assert_int_eq(jail_resolve(AT_FDCWD, p, JAIL_RES_SLOW, &res), -ENAMETOOLONG);
	ck_assert_int_eq(jail_resolve(AT_FDCWD, p, 0, &res), -ENAMETOOLONG);
	/* links whose targets, spliced together, exceed PATH_MAX */
	char target[PATH_MAX], lp[PATH_MAX + 64];
	for (int i = 0; i < 3; i++) {
		int t = snprintf(target, sizeof(target), "%s/in/", root);
		for (int k = 0; k < 12; k++)
			t += snprintf(target + t, sizeof(target) - (size_t)t, "%0200d/", k);
		snprintf(target + t, sizeof(target) - (size_t)t, "long%d", i + 1);
		snprintf(lp, sizeof(lp), "%s/in/long%d", root, i);
		ck_assert_int_eq(symlink(target, lp), 0);
	}
	snprintf(lp, sizeof(lp), "%s/in/long0/x/long0", root);
	int rc = jail_resolve(AT_FDCWD, lp, 0, &res);
	ck_assert_msg(rc == -ENAMETOOLONG || rc == -ENOENT, "rc %d", rc);
}
END_TEST

START_TEST(dirfd_relative)
{
	char dir[PATH_MAX + 32], want[PATH_MAX + 64];
	snprintf(dir, sizeof(dir), "%s/in/a", root);
	int dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	ck_assert_int_ge(dfd, 0);
	snprintf(want, sizeof(want), "%s/in/a/b/c/file", root);
	for (unsigned slow = 0; slow < 2; slow++) {
		ck_assert_int_eq(jail_resolve(dfd, "b/c/file", slow ? JAIL_RES_SLOW : 0, &res), 0);
		ck_assert_str_eq(res.path, want);
		ck_assert_str_eq(res.given, want);
		/* .. from a dirfd, then back through a link */
		ck_assert_int_eq(jail_resolve(dfd, "../rel/c/file", slow ? JAIL_RES_SLOW : 0, &res), 0);
		ck_assert_str_eq(res.path, want);
	}
	/* an absolute path ignores dirfd */
	ck_assert_int_eq(jail_resolve(dfd, "/proc/self/root/etc", 0, &res), 0);
	ck_assert_str_eq(res.path, "/etc");
	/* AT_EMPTY_PATH names the fd itself */
	ck_assert_int_eq(jail_resolve(dfd, "", JAIL_RES_EMPTY_PATH, &res), 0);
	ck_assert_str_eq(res.path, dir);
	/* an empty path without AT_EMPTY_PATH is ENOENT, as for the kernel */
	ck_assert_int_eq(jail_resolve(dfd, "", 0, &res), -ENOENT);
	close(dfd);
	/* a closed or invalid dirfd */
	ck_assert_int_eq(jail_resolve(dfd, "x", 0, &res), -EBADF);
	ck_assert_int_eq(jail_resolve(-5, "x", 0, &res), -EBADF);
	/* a dirfd that is a regular file */
	snprintf(dir, sizeof(dir), "%s/in/a/f", root);
	int ffd = open(dir, O_RDONLY | O_CLOEXEC);
	ck_assert_int_ge(ffd, 0);
	ck_assert_int_eq(jail_resolve(ffd, "x", 0, &res), -ENOTDIR);
	close(ffd);
}
END_TEST

START_TEST(given_is_lexical)
{
	char cwd[PATH_MAX], want[PATH_MAX + 64];
	ck_assert_ptr_nonnull(getcwd(cwd, sizeof(cwd)));
	ck_assert_int_eq(chdir(root), 0);
	int rc = jail_resolve(AT_FDCWD, "in/deep/../f", 0, &res);
	ck_assert_int_eq(chdir(cwd), 0);
	ck_assert_int_eq(rc, 0);
	/* as given: lexical; resolved: from the link's target */
	snprintf(want, sizeof(want), "%s/in/f", root);
	ck_assert_str_eq(res.given, want);
	snprintf(want, sizeof(want), "%s/in/a/b/f", root);
	ck_assert_str_eq(res.path, want);
}
END_TEST

START_TEST(magic_links)
{
	char p[PATH_MAX + 64], want[PATH_MAX + 64], cwd[PATH_MAX];
	/* an fd to a file */
	snprintf(want, sizeof(want), "%s/in/a/b/c/file", root);
	int fd = open(want, O_RDONLY | O_CLOEXEC);
	ck_assert_int_ge(fd, 0);
	snprintf(p, sizeof(p), "/proc/self/fd/%d", fd);
	ck_assert_int_eq(jail_resolve(AT_FDCWD, p, 0, &res), 0);
	ck_assert_str_eq(res.path, want);
	ck_assert_int_eq(res.kind, JAIL_OBJ_PATH);
	snprintf(p, sizeof(p), "/dev/fd/%d", fd);
	ck_assert_int_eq(jail_resolve(AT_FDCWD, p, 0, &res), 0);
	ck_assert_str_eq(res.path, want);
	/* AT_EMPTY_PATH on a file fd */
	ck_assert_int_eq(jail_resolve(fd, "", JAIL_RES_EMPTY_PATH, &res), 0);
	ck_assert_str_eq(res.path, want);
	close(fd);
	/* /proc/self/cwd */
	ck_assert_ptr_nonnull(getcwd(cwd, sizeof(cwd)));
	snprintf(p, sizeof(p), "%s/in", root);
	ck_assert_int_eq(chdir(p), 0);
	int rc = jail_resolve(AT_FDCWD, "/proc/self/cwd/a/f", 0, &res);
	ck_assert_int_eq(chdir(cwd), 0);
	ck_assert_int_eq(rc, 0);
	snprintf(want, sizeof(want), "%s/in/a/f", root);
	ck_assert_str_eq(res.path, want);
	/* a file named like the kernel's deletion mark is not deleted */
	snprintf(want, sizeof(want), "%s/in/x (deleted)", root);
	fd = open(want, O_RDONLY | O_CLOEXEC);
	ck_assert_int_ge(fd, 0);
	snprintf(p, sizeof(p), "/proc/self/fd/%d", fd);
	ck_assert_int_eq(jail_resolve(AT_FDCWD, p, 0, &res), 0);
	ck_assert_str_eq(res.path, want);
	ck_assert_int_eq(res.deleted, 0);
	close(fd);
}
END_TEST

START_TEST(anonymous_objects)
{
	char p[64];
	int pfd[2], sv[2];
	ck_assert_int_eq(pipe(pfd), 0);
	snprintf(p, sizeof(p), "/proc/self/fd/%d", pfd[0]);
	ck_assert_int_eq(jail_resolve(AT_FDCWD, p, 0, &res), 0);
	ck_assert_int_eq(res.kind, JAIL_OBJ_ANON);
	ck_assert_msg(strncmp(res.path, "pipe:[", 6) == 0, "got %s", res.path);
	/* a path beneath a pipe cannot exist */
	snprintf(p, sizeof(p), "/proc/self/fd/%d/x", pfd[0]);
	ck_assert_int_eq(jail_resolve(AT_FDCWD, p, 0, &res), -ENOTDIR);
	close(pfd[0]);
	close(pfd[1]);
	ck_assert_int_eq(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
	snprintf(p, sizeof(p), "/dev/fd/%d", sv[0]);
	ck_assert_int_eq(jail_resolve(AT_FDCWD, p, 0, &res), 0);
	ck_assert_int_eq(res.kind, JAIL_OBJ_ANON);
	ck_assert_msg(strncmp(res.path, "socket:[", 8) == 0, "got %s", res.path);
	close(sv[0]);
	close(sv[1]);
	int mfd = memfd_create("jail-test", MFD_CLOEXEC);
	ck_assert_int_ge(mfd, 0);
	snprintf(p, sizeof(p), "/proc/self/fd/%d", mfd);
	ck_assert_int_eq(jail_resolve(AT_FDCWD, p, 0, &res), 0);
	ck_assert_int_eq(res.kind, JAIL_OBJ_ANON);
	ck_assert_msg(strncmp(res.path, "/memfd:jail-test", 16) == 0, "got %s", res.path);
	/* AT_EMPTY_PATH on the memfd: also anonymous */
	ck_assert_int_eq(jail_resolve(mfd, "", JAIL_RES_EMPTY_PATH, &res), 0);
	ck_assert_int_eq(res.kind, JAIL_OBJ_ANON);
	close(mfd);
}
END_TEST

START_TEST(deleted_file_and_directory)
{
	char p[PATH_MAX + 64], want[PATH_MAX + 64], cwd[PATH_MAX];
	/* a deleted file reached through its fd keeps the name it had */
	snprintf(want, sizeof(want), "%s/in/a/f", root);
	int fd = open(want, O_RDONLY | O_CLOEXEC);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(unlink(want), 0);
	snprintf(p, sizeof(p), "/proc/self/fd/%d", fd);
	ck_assert_int_eq(jail_resolve(AT_FDCWD, p, 0, &res), 0);
	ck_assert_str_eq(res.path, want);
	ck_assert_int_eq(res.deleted, 1);
	close(fd);
	/* a deleted directory as dirfd: children resolve beneath its old name */
	snprintf(want, sizeof(want), "%s/in/gone", root);
	ck_assert_int_eq(mkdir(want, 0755), 0);
	int dfd = open(want, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	ck_assert_int_ge(dfd, 0);
	ck_assert_int_eq(rmdir(want), 0);
	ck_assert_int_eq(jail_resolve(dfd, "newfile", 0, &res), 0);
	strcat(want, "/newfile");
	ck_assert_str_eq(res.path, want);
	ck_assert_str_eq(res.given, want);
	ck_assert_int_eq(res.deleted, 1);
	close(dfd);
	/* a deleted current directory */
	snprintf(want, sizeof(want), "%s/in/gone2", root);
	ck_assert_int_eq(mkdir(want, 0755), 0);
	ck_assert_ptr_nonnull(getcwd(cwd, sizeof(cwd)));
	ck_assert_int_eq(chdir(want), 0);
	ck_assert_int_eq(rmdir(want), 0);
	int rc = jail_resolve(AT_FDCWD, "x", 0, &res);
	ck_assert_int_eq(chdir(cwd), 0);
	ck_assert_int_eq(rc, 0);
	strcat(want, "/x");
	ck_assert_str_eq(res.path, want);
	ck_assert_int_eq(res.deleted, 1);
}
END_TEST

START_TEST(canon_existing)
{
	char p[PATH_MAX + 64], out[PATH_MAX], want[PATH_MAX + 64];
	/* existing leading directories through links are canonicalized; the rest kept */
	snprintf(p, sizeof(p), "%s/in/rel/not/yet", root);
	snprintf(want, sizeof(want), "%s/in/a/b/not/yet", root);
	ck_assert_int_eq(jail_canon_existing(p, out, sizeof(out), NULL), 0);
	ck_assert_str_eq(out, want);
	snprintf(p, sizeof(p), "%s/in/absout", root);
	snprintf(want, sizeof(want), "%s/out", root);
	ck_assert_int_eq(jail_canon_existing(p, out, sizeof(out), NULL), 0);
	ck_assert_str_eq(out, want);
	/* a loop cannot be canonicalized: the pattern stays as written */
	snprintf(p, sizeof(p), "%s/in/loop1/x", root);
	ck_assert_int_eq(jail_canon_existing(p, out, sizeof(out), NULL), -1);
}
END_TEST

/* errno is the caller's: the resolver never touches it */
START_TEST(errno_untouched)
{
	char p[PATH_MAX + 64];
	snprintf(p, sizeof(p), "%s/in/loop1", root);
	errno = 12345;
	ck_assert_int_eq(jail_resolve(AT_FDCWD, p, 0, &res), -ELOOP);
	ck_assert_int_eq(jail_resolve(AT_FDCWD, "/nonexistent-jail/x/y", 0, &res), -ENOENT);
	ck_assert_int_eq(errno, 12345);
}
END_TEST

/* A policy written through a symlinked directory matches the real path. */
START_TEST(policy_through_symlink)
{
	char text[PATH_MAX * 2], target[PATH_MAX + 64];
	struct jail_load_opts o = {.vars = test_vars, .canon = jail_canon_existing};
	snprintf(text, sizeof(text), "allow read /\ndeny read %s/in/rel\n", root);
	struct jail_source src = {.name = "t.policy", .text = text};
	struct jail_policy *p = NULL;
	struct jail_error err;
	ck_assert_int_eq(jail_policy_load(&o, &src, 1, &p, &err), 0);
	snprintf(target, sizeof(target), "%s/in/a/b/c/file", root);
	ck_assert_int_eq(jail_decide(p, JAIL_READ, target).verdict, JAIL_DENY);
	/* and the pattern as written still matches the link's own name */
	snprintf(target, sizeof(target), "%s/in/rel", root);
	ck_assert_int_eq(jail_decide(p, JAIL_READ, target).verdict, JAIL_DENY);
	snprintf(target, sizeof(target), "%s/in/a/f", root);
	ck_assert_int_eq(jail_decide(p, JAIL_READ, target).verdict, JAIL_ALLOW);
	jail_policy_free(p);
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("resolve");
	TCase *tc = tcase_create("tree");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_loop_test(tc, differential, 0, (int)(sizeof(spellings) / sizeof(spellings[0])));
	tcase_add_loop_test(tc, resolve_case, 0, (int)(sizeof(cases) / sizeof(cases[0])));
	tcase_add_test(tc, dangling_create_lands_where_resolved);
	tcase_add_test(tc, too_long);
	tcase_add_test(tc, dirfd_relative);
	tcase_add_test(tc, given_is_lexical);
	tcase_add_test(tc, magic_links);
	tcase_add_test(tc, anonymous_objects);
	tcase_add_test(tc, deleted_file_and_directory);
	tcase_add_test(tc, canon_existing);
	tcase_add_test(tc, errno_untouched);
	tcase_add_test(tc, policy_through_symlink);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return test_run(suite());
}
