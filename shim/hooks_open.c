/*
 * hooks_open.c — open, stdio and handle hooks. They do not check a path and
 * then let libc walk it again: they open the object that was checked.
 *
 * The common route costs no extra system call for an absolute path (one,
 * getcwd or a dirfd readlink, for a relative one):
 *   1. decide on the lexical form of the path (pure, in memory);
 *   2. open it ourselves with openat2(RESOLVE_NO_SYMLINKS) on the caller's
 *      own (dirfd, path): success proves no symlink was on the way, so the
 *      object opened is the one decided on.
 * Otherwise (a symlink on the way, a refusal to explain, no openat2):
 *   3. resolve exactly (shim/resolve.c), decide, and open the resolved path
 *      with openat2(RESOLVE_NO_SYMLINKS) — a symlink swapped in meanwhile
 *      makes it fail with ELOOP, and the route is retried, never followed.
 * Remaining window: a path through /proc magic links (/proc/self/fd/N), a
 * kernel without openat2, or flags openat2 refuses but open(2) ignores, are
 * opened by the real libc function after the check; another thread could
 * change what the name refers to in between.
 */
#define _GNU_SOURCE
#include "shim.h"
#include "os.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <utmp.h>

#define RETRIES 4

/* glibc's _FORTIFY_SOURCE entry points; no public header declares them */
int __open_2(const char *path, int flags);
int __open64_2(const char *path, int flags);
int __openat_2(int dirfd, const char *path, int flags);
int __openat64_2(int dirfd, const char *path, int flags);
char *__realpath_chk(const char *path, char *resolved, size_t len); /* declared only under it */

static int via_proc(const char *path)
{
	return strncmp(path, "/proc/", 6) == 0 || strncmp(path, "/dev/fd/", 8) == 0;
}

typedef int (*real_openat_t)(int, const char *, int, ...);

static long real_open(int dirfd, const char *path, int flags, mode_t mode)
{
	real_openat_t f = JAIL_REAL(int, openat, (int, const char *, int, ...));
	if (!f)
		return jail_os_openat(dirfd, path, flags, mode);
	int fd = f(dirfd, path, flags, mode);
	return fd < 0 ? -errno : fd;
}

typedef long (*open_fn)(int dirfd, const char *path, int flags, mode_t mode);

/* The open behind every open-like hook: an fd, or -errno. Where the
 * checked object cannot be opened exactly (see the top), `fallback` opens
 * the name as given. */
static long checked_open_by(int dirfd, const char *path, int flags, mode_t mode, const char *op, open_fn fallback)
{
	struct jail_resolved res; /* on the stack: a signal handler may open too */
	struct jail_resolved *r = &res;
	enum jail_access a = jail_open_access(flags);
	/* O_EXCL|O_CREAT and O_NOFOLLOW act on a final symlink itself */
	unsigned rf = ((flags & O_NOFOLLOW) || (flags & (O_CREAT | O_EXCL)) == (O_CREAT | O_EXCL)) ? JAIL_RES_NOFOLLOW : 0;
	size_t plen;

	if (path == NULL)
		return fallback(dirfd, path, flags, mode); /* EFAULT, from the kernel */
	plen = strlen(path);
	if (jail_resolve_lexical(dirfd, path, r) == 0 && !via_proc(r->given) && jail_allowed_quietly(r->given, a)) {
		long fd = jail_os_open_checked(dirfd, path, flags, mode);
		if (fd != -ELOOP && fd != -ENOSYS && fd != -EINVAL)
			return fd; /* opened, or the kernel's own answer for a symlink-free walk */
	}
	for (int attempt = 0; attempt < RETRIES; attempt++) {
		int rc = jail_check_path(dirfd, path, a, rf, op, r);
		if (rc)
			return rc;
		if (r->kind != JAIL_OBJ_PATH || r->deleted || via_proc(r->given))
			return fallback(dirfd, path, flags, mode);
		/* keep a trailing slash: "file/" must still fail with ENOTDIR */
		size_t n = strlen(r->path);
		if (plen > 0 && path[plen - 1] == '/' && n + 1 < sizeof(r->path) && n > 1) {
			r->path[n] = '/';
			r->path[n + 1] = '\0';
		}
		long fd = jail_os_open_checked(AT_FDCWD, r->path, flags, mode);
		if (fd == -ENOSYS || fd == -EINVAL) /* no openat2, or flags it is stricter about than open */
			return fallback(dirfd, path, flags, mode);
		if (fd != -ELOOP || (rf && r->exists))
			return fd; /* ELOOP on a final link acted on itself is the kernel's answer */
	}
	return -ELOOP;
}

static long checked_open(int dirfd, const char *path, int flags, mode_t mode, const char *op)
{
	return checked_open_by(dirfd, path, flags, mode, op, real_open);
}

static int finish(long rc)
{
	if (rc < 0) {
		errno = (int)-rc;
		return -1;
	}
	return (int)rc;
}

static mode_t mode_arg(int flags, va_list ap)
{
	return ((flags & O_CREAT) || (flags & O_TMPFILE) == O_TMPFILE) ? (mode_t)va_arg(ap, unsigned) : 0;
}

#define OPEN_HOOK(name)                                                                                        \
	JAIL_EXPORT int name(const char *path, int flags, ...)                                                 \
	{                                                                                                      \
		va_list ap;                                                                                    \
		va_start(ap, flags);                                                                           \
		mode_t mode = mode_arg(flags, ap);                                                             \
		va_end(ap);                                                                                    \
		return finish(checked_open(AT_FDCWD, path, flags, mode, #name));                              \
	}
#define OPENAT_HOOK(name)                                                                                      \
	JAIL_EXPORT int name(int dirfd, const char *path, int flags, ...)                                      \
	{                                                                                                      \
		va_list ap;                                                                                    \
		va_start(ap, flags);                                                                           \
		mode_t mode = mode_arg(flags, ap);                                                             \
		va_end(ap);                                                                                    \
		return finish(checked_open(dirfd, path, flags, mode, #name));                                 \
	}

OPEN_HOOK(open)
OPEN_HOOK(open64)
OPENAT_HOOK(openat)
OPENAT_HOOK(openat64)

/* The C library's own opens (detours.def): glibc makes them through
 * __open_nocancel, which its callers reach without a preload's names.
 * One of them runs where a check cannot: the child of glibc's posix_spawn
 * opening a file action's path, on a stack of about 32 KiB that a check's
 * refusal path can outgrow (the child shares the parent's memory: no guard
 * page). Those paths were decided just before the spawn (hooks_exec.c), and
 * the open goes to the kernel as glibc would make it, from outside the
 * syscall page, so a supervisor decides it again. */
static int in_spawn_child(void)
{
	return jail_spawner && jail_spawner != jail_os_gettid();
}

int jail_libc_open(const char *path, int flags, ...)
{
	va_list ap;
	va_start(ap, flags);
	mode_t mode = mode_arg(flags, ap);
	va_end(ap);
	if (in_spawn_child())
		return finish(jail_os_openat_outside(AT_FDCWD, path, flags, mode));
	/* glibc's internal open is no cancellation point, and its callers rely
	 * on that (they hold locks: pthread_getattr_np reads /proc/self/maps with
	 * one); libc's openat is one. So the fallback is the plain system call,
	 * outside the syscall page: a supervisor decides it again. */
	return finish(checked_open_by(AT_FDCWD, path, flags, mode, "open", jail_os_openat_outside));
}

/* Whether glibc's internal open, in this thread, reaches the check above.
 * Not in glibc's posix_spawn child, nor in a process that thread forked
 * from a signal handler in the middle of a spawn (jail_spawner is copied
 * with the thread; the fork handler below clears it, but not for vfork,
 * _Fork or clone): the hooks then check for themselves. */
int jail_libc_checks(void)
{
	return jail_detoured() && !in_spawn_child();
}

static void forked(void)
{
	jail_spawner = 0;
}

__attribute__((constructor)) static void clear_spawner_on_fork(void)
{
	pthread_atfork(NULL, NULL, forked);
}

/* The _FORTIFY_SOURCE entry points: called without a mode and never with
 * O_CREAT (glibc's own versions abort then; so do we, through them). */
JAIL_EXPORT int __open_2(const char *path, int flags)
{
	if ((flags & O_CREAT) || (flags & O_TMPFILE) == O_TMPFILE)
		return JAIL_REAL(int, __open_2, (const char *, int))(path, flags);
	return finish(checked_open(AT_FDCWD, path, flags, 0, "__open_2"));
}

JAIL_EXPORT int __open64_2(const char *path, int flags)
{
	if ((flags & O_CREAT) || (flags & O_TMPFILE) == O_TMPFILE)
		return JAIL_REAL(int, __open64_2, (const char *, int))(path, flags);
	return finish(checked_open(AT_FDCWD, path, flags, 0, "__open64_2"));
}

JAIL_EXPORT int __openat_2(int dirfd, const char *path, int flags)
{
	if ((flags & O_CREAT) || (flags & O_TMPFILE) == O_TMPFILE)
		return JAIL_REAL(int, __openat_2, (int, const char *, int))(dirfd, path, flags);
	return finish(checked_open(dirfd, path, flags, 0, "__openat_2"));
}

JAIL_EXPORT int __openat64_2(int dirfd, const char *path, int flags)
{
	if ((flags & O_CREAT) || (flags & O_TMPFILE) == O_TMPFILE)
		return JAIL_REAL(int, __openat64_2, (int, const char *, int))(dirfd, path, flags);
	return finish(checked_open(dirfd, path, flags, 0, "__openat64_2"));
}

JAIL_EXPORT int creat(const char *path, mode_t mode)
{
	return finish(checked_open(AT_FDCWD, path, O_CREAT | O_WRONLY | O_TRUNC, mode, "creat"));
}

JAIL_EXPORT int creat64(const char *path, mode_t mode)
{
	return finish(checked_open(AT_FDCWD, path, O_CREAT | O_WRONLY | O_TRUNC, mode, "creat64"));
}

/* Opening by handle goes past every path: never allowed in the jail. */
JAIL_EXPORT int open_by_handle_at(int mount_fd, struct file_handle *h, int flags)
{
	(void)mount_fd;
	(void)h;
	(void)flags;
	return finish(jail_refuse("open_by_handle_at", "(a file handle)", "opening by inode bypasses every path"));
}

/* ---- stdio ---- */

/* open(2) flags from an fopen mode; -1 when the mode is not one. The mode
 * for fdopen/freopen drops 'x' (the exclusive create has happened). */
static int mode_flags(const char *mode, char *clean, size_t cleansz)
{
	int flags;
	size_t n = 0;
	switch (mode[0]) {
	case 'r': flags = O_RDONLY; break;
	case 'w': flags = O_WRONLY | O_CREAT | O_TRUNC; break;
	case 'a': flags = O_WRONLY | O_CREAT | O_APPEND; break;
	default: return -1;
	}
	for (const char *m = mode; *m && n + 1 < cleansz; m++) {
		if (*m == ',') { /* ",ccs=..." is passed on as is */
			while (*m && n + 1 < cleansz)
				clean[n++] = *m++;
			break;
		}
		if (*m == '+')
			flags = (flags & ~O_ACCMODE) | O_RDWR;
		else if (*m == 'x')
			flags |= O_EXCL;
		else if (*m == 'e')
			flags |= O_CLOEXEC;
		if (*m != 'x')
			clean[n++] = *m;
	}
	clean[n] = '\0';
	return flags;
}

static FILE *open_stream(const char *path, const char *mode, const char *op, FILE *(*fallback)(const char *, const char *))
{
	char clean[64];
	int flags = path && mode ? mode_flags(mode, clean, sizeof(clean)) : -1;
	if (flags < 0)
		return fallback ? fallback(path, mode) : NULL; /* libc's EINVAL or EFAULT */
	long fd = checked_open(AT_FDCWD, path, flags, 0666, op);
	if (fd < 0) {
		errno = (int)-fd;
		return NULL;
	}
	FILE *f = fdopen((int)fd, clean);
	if (!f) {
		int e = errno;
		jail_os_close((int)fd);
		errno = e;
	}
	return f;
}

JAIL_EXPORT FILE *fopen(const char *path, const char *mode)
{
	return open_stream(path, mode, "fopen", JAIL_REAL(FILE *, fopen, (const char *, const char *)));
}

JAIL_EXPORT FILE *fopen64(const char *path, const char *mode)
{
	return open_stream(path, mode, "fopen64", JAIL_REAL(FILE *, fopen64, (const char *, const char *)));
}

/* "/proc/thread-self/fd/N" for a descriptor, in link (40 bytes; no stdio
 * here): this thread's table, which unshare(CLONE_FILES) may have made its
 * own (/proc/self is the main thread's). */
static void fd_link(char link[40], int fd)
{
	memcpy(link, "/proc/thread-self/fd/", 21);
	int n = 21, d = 1;
	while (fd / d >= 10)
		d *= 10;
	for (; d; d /= 10)
		link[n++] = (char)('0' + fd / d % 10);
	link[n] = '\0';
}

/* freopen attaches a new file to an existing stream. The checked fd is
 * handed over through its /proc/self/fd link, so the stream gets exactly the
 * object that was checked; a NULL path reopens the stream's own file, which
 * needs the new mode's access to it. */
static FILE *reopen(const char *path, const char *mode, FILE *stream, const char *op,
                    FILE *(*real)(const char *, const char *, FILE *))
{
	char clean[64], link[40];
	int flags = mode ? mode_flags(mode, clean, sizeof(clean)) : -1;
	if (!real || flags < 0)
		return real ? real(path, mode, stream) : NULL;
	if (path == NULL) {
		int rc = jail_check_fd(fileno(stream), jail_open_access(flags), op);
		if (rc) {
			errno = -rc;
			return NULL;
		}
		return real(path, mode, stream);
	}
	long fd = checked_open(AT_FDCWD, path, flags, 0666, op);
	if (fd < 0) {
		errno = (int)-fd;
		return NULL;
	}
	fd_link(link, (int)fd);
	FILE *f = real(link, clean, stream);
	int e = errno;
	jail_os_close((int)fd);
	errno = e;
	return f;
}

JAIL_EXPORT FILE *freopen(const char *path, const char *mode, FILE *stream)
{
	return reopen(path, mode, stream, "freopen", JAIL_REAL(FILE *, freopen, (const char *, const char *, FILE *)));
}

JAIL_EXPORT FILE *freopen64(const char *path, const char *mode, FILE *stream)
{
	return reopen(path, mode, stream, "freopen64",
	              JAIL_REAL(FILE *, freopen64, (const char *, const char *, FILE *)));
}

/* updwtmp(3) appends to a file through glibc's internal open: decided
 * there when the shim routes that open to itself, here otherwise. */
JAIL_EXPORT void updwtmp(const char *path, const struct utmp *u)
{
	if (jail_libc_checks() || jail_check_path(AT_FDCWD, path, JAIL_WRITE, 0, "updwtmp", NULL) == 0)
		JAIL_REAL(void, updwtmp, (const char *, const struct utmp *))(path, u);
}

/* realpath(3), canonicalize_file_name(3): glibc's walks the name with
 * internal readlink calls the shim does not see, each one a round trip to
 * a supervisor. The name is decided as a stat of it is; then the object is
 * opened O_PATH through the syscall page and its name read back from
 * /proc/thread-self/fd, the kernel's own answer, which is decided too (a
 * name swapped in between reveals nothing that is not allowed). glibc's
 * walk still answers every other failure (its errno, and what it leaves in
 * the buffer) and any name the kernel gives without a path ("pipe:[N]"),
 * or whose text is ambiguous (a " (deleted)" ending).
 * Returns 0 and the name in out; -errno for a refusal (already reported);
 * 1 for glibc's walk to answer. */
static int kernel_canonical(const char *path, char out[PATH_MAX])
{
	if (!path || !*path)
		return 1;
	int rc = jail_check_path(AT_FDCWD, path, JAIL_META, 0, "realpath", NULL);
	if (rc)
		return rc;
	long fd = jail_os_openat(AT_FDCWD, path, O_PATH | O_CLOEXEC, 0);
	if (fd < 0)
		return 1;
	char link[40];
	fd_link(link, (int)fd);
	long n = jail_os_readlinkat(AT_FDCWD, link, out, PATH_MAX);
	jail_os_close((int)fd);
	if (n <= 0 || n >= PATH_MAX || out[0] != '/')
		return 1;
	out[n] = '\0';
	static const char deleted[] = " (deleted)";
	if ((size_t)n >= sizeof(deleted) - 1 && memcmp(out + n - (sizeof(deleted) - 1), deleted, sizeof(deleted) - 1) == 0)
		return 1;
	return jail_check_path(AT_FDCWD, out, JAIL_META, JAIL_RES_NOFOLLOW, "realpath", NULL);
}

typedef char *(*real_realpath_t)(const char *, char *);

static char *canonical(const char *path, char *resolved, real_realpath_t real)
{
	char buf[PATH_MAX];
	int e = errno;
	int rc = kernel_canonical(path, buf);
	if (rc < 0) {
		errno = -rc; /* refused, once */
		return NULL;
	}
	if (rc > 0) {
		errno = e;
		return real(path, resolved); /* glibc's answer, on a name decided as a stat */
	}
	errno = e;
	if (!resolved)
		return strdup(buf);
	return strcpy(resolved, buf);
}

JAIL_EXPORT char *realpath(const char *path, char *resolved)
{
	return canonical(path, resolved, JAIL_REAL(char *, realpath, (const char *, char *)));
}

static char *canonicalize_real(const char *path, char *unused)
{
	(void)unused;
	return JAIL_REAL(char *, canonicalize_file_name, (const char *))(path);
}

JAIL_EXPORT char *canonicalize_file_name(const char *path)
{
	return canonical(path, NULL, canonicalize_real);
}

/* _FORTIFY_SOURCE's realpath: glibc's own aborts on a buffer shorter than
 * PATH_MAX, before anything else */
JAIL_EXPORT char *__realpath_chk(const char *path, char *resolved, size_t len)
{
	if (resolved && len < PATH_MAX)
		return JAIL_REAL(char *, __realpath_chk, (const char *, char *, size_t))(path, resolved, len);
	return canonical(path, resolved, JAIL_REAL(char *, realpath, (const char *, char *)));
}

/* mkstemp(3) and its kin, mkdtemp(3): glibc's fill in the name and open or
 * make it with internal calls the shim does not see (each one a round trip
 * to a supervisor), and the shim could only decide on the template. Here
 * the name is made as glibc makes it -- the six X before the suffix become
 * letters and digits, tried until one is new (up to 62^3 tries) -- and
 * each name is decided and opened (O_RDWR|O_CREAT|O_EXCL, 0600) or made
 * (0700) by the shim: a refusal names the file it would have been. */
static unsigned long long temp_seed(void)
{
	unsigned long long v = 0;
	if (jail_os_sys(SYS_getrandom, (long)&v, (long)sizeof(v), 1 /* GRND_NONBLOCK */, 0, 0) != (long)sizeof(v)) {
		long sec = 0, nsec = 0;
		jail_os_clock_realtime(&sec, &nsec);
		v = ((unsigned long long)sec << 30) ^ (unsigned long long)nsec ^ ((unsigned long long)jail_os_gettid() << 40);
	}
	return v;
}

/* an fd (file), 0 (directory), or -errno; tmpl is left holding the last name tried */
static long make_temp(char *tmpl, int suffixlen, int flags, int dir, const char *op)
{
	static const char letters[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
	size_t len = tmpl ? strlen(tmpl) : 0;
	if (!tmpl || suffixlen < 0 || len < 6 + (size_t)suffixlen || memcmp(tmpl + len - suffixlen - 6, "XXXXXX", 6) != 0)
		return -EINVAL;
	char *x = tmpl + len - suffixlen - 6;
	unsigned long long v = temp_seed();
	for (long attempt = 0; attempt < 62L * 62 * 62; attempt++) {
		v = v * 6364136223846793005ULL + 1442695040888963407ULL;
		unsigned long long r = v >> 16;
		for (int i = 0; i < 6; i++, r /= 62)
			x[i] = letters[r % 62];
		long rc;
		if (dir) {
			rc = jail_check_path(AT_FDCWD, tmpl, JAIL_WRITE, JAIL_RES_NOFOLLOW, op, NULL);
			if (rc == 0)
				rc = jail_os_sys(SYS_mkdirat, AT_FDCWD, (long)tmpl, 0700, 0, 0);
		} else {
			rc = checked_open(AT_FDCWD, tmpl, (flags & ~O_ACCMODE) | O_RDWR | O_CREAT | O_EXCL, 0600, op);
		}
		if (rc != -EEXIST)
			return rc;
	}
	return -EEXIST;
}

static int temp_file(char *tmpl, int suffixlen, int flags, const char *op)
{
	int e = errno;
	long fd = make_temp(tmpl, suffixlen, flags, 0, op);
	if (fd >= 0)
		errno = e;
	return finish(fd);
}

#define TEMP_HOOK(name, params, suffixlen, flags)                                                           \
	JAIL_EXPORT int name params                                                                            \
	{                                                                                                      \
		return temp_file(t, suffixlen, flags, #name);                                                  \
	}

TEMP_HOOK(mkstemp, (char *t), 0, 0)
TEMP_HOOK(mkstemp64, (char *t), 0, 0)
TEMP_HOOK(mkostemp, (char *t, int f), 0, f)
TEMP_HOOK(mkostemp64, (char *t, int f), 0, f)
TEMP_HOOK(mkstemps, (char *t, int s), s, 0)
TEMP_HOOK(mkstemps64, (char *t, int s), s, 0)
TEMP_HOOK(mkostemps, (char *t, int s, int f), s, f)
TEMP_HOOK(mkostemps64, (char *t, int s, int f), s, f)

JAIL_EXPORT char *mkdtemp(char *t)
{
	int e = errno;
	long rc = make_temp(t, 0, 0, 1, "mkdtemp");
	if (rc < 0) {
		errno = (int)-rc;
		return NULL;
	}
	errno = e;
	return t;
}
