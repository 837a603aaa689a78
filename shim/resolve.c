/*
 * resolve.c — canonicalize (dirfd, path) the way the kernel will.
 *
 * Two routes, one answer:
 *  - fast: when the kernel can walk the caller's own string with
 *    openat2(RESOLVE_NO_SYMLINKS), no symlink is on the way, so the lexical
 *    normalization of the absolute path is exactly what the kernel reaches
 *    (`..` included). Cost: one open and one close (plus getcwd or a
 *    /proc/self/fd readlink for a relative path); one more open of the parent
 *    when the final component does not exist yet.
 *  - slow (a symlink, a magic link, or an error on the way): walk component
 *    by component with one readlinkat per component, splicing link targets
 *    into the unread rest, as the kernel's path walk does.
 *
 * Invariants:
 *  1. A followed final symlink that dangles resolves to where the kernel
 *     creates the file: its target, resolved the same way, not the link.
 *  2. `..` pops the resolved prefix, which never contains a symlink, so it
 *     climbs from a link's target, never lexically over the link.
 *  3. More than 40 links → ELOOP; a result over PATH_MAX → ENAMETOOLONG.
 *  4. Memory: *out and the walker's PATH_MAX buffer; the unread rest of the
 *     path sits right-aligned in that buffer, so link targets are read into
 *     its free front and moved next to the rest, without a second buffer.
 *  5. No allocation, no locks, errno untouched (os.h calls only).
 */
#define _GNU_SOURCE
#include "resolve.h"
#include "os.h"
#include "policy.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>

#define JAIL_MAXLINKS 40
#define DELETED_SUFFIX " (deleted)"
#define DELETED_LEN (sizeof(DELETED_SUFFIX) - 1)

struct walker {
	char *res;     /* out->path: resolved so far; "/" or "/a/b", no trailing '/' */
	size_t rlen;
	char w[PATH_MAX]; /* unread rest at w[r..], NUL at w[PATH_MAX - 1] */
	size_t r;
	unsigned flags;
	struct jail_resolved *out;
};

static int starts_with(const char *s, const char *prefix)
{
	return strncmp(s, prefix, strlen(prefix)) == 0;
}

/* "/proc/thread-self/fd/N" for fd into buf (at least 40 bytes): the calling
 * thread's descriptor table, which may differ from the leader's
 * (/proc/self) after unshare(CLONE_FILES) or when the leader has exited. */
static void fd_link_path(int fd, char *buf)
{
	char digits[12];
	int n = 0;
	unsigned v = (unsigned)fd;
	do {
		digits[n++] = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	memcpy(buf, "/proc/thread-self/fd/", 21);
	for (int i = 0; i < n; i++)
		buf[21 + i] = digits[n - 1 - i];
	buf[21 + n] = '\0';
}

/* Objects a magic link can name that have no path: pipe:[..], socket:[..],
 * anon_inode:[..], and memfds, which show as "/memfd:NAME (deleted)". */
static int anon_target(const char *t)
{
	return (t[0] != '/' && (strstr(t, ":[") != NULL || starts_with(t, "anon_inode:"))) ||
	       starts_with(t, "/memfd:");
}

/* The magic link `link` read as target[0..n) (NUL-terminated). A trailing
 * " (deleted)" is the kernel's mark of an unlinked object, unless a file of
 * that very name exists and is the same object. Strips the mark; returns 1
 * when the object is deleted. */
static int strip_deleted(const char *link, char *target, size_t *n)
{
	struct stat a, b;
	if (*n <= DELETED_LEN || strcmp(target + *n - DELETED_LEN, DELETED_SUFFIX) != 0)
		return 0;
	if (jail_os_fstatat(AT_FDCWD, link, &a, 0) == 0 && jail_os_fstatat(AT_FDCWD, target, &b, 1) == 0 &&
	    a.st_dev == b.st_dev && a.st_ino == b.st_ino)
		return 0;
	*n -= DELETED_LEN;
	target[*n] = '\0';
	return 1;
}

/* Reads the path of a magic link (cwd or an fd) into buf. Returns its
 * length, or -errno; sets *kind and *deleted. */
static long read_magic(const char *link, char *buf, size_t bufsz, enum jail_obj_kind *kind, int *deleted)
{
	long n = jail_os_readlinkat(AT_FDCWD, link, buf, bufsz - 1);
	if (n < 0)
		return n;
	if ((size_t)n >= bufsz - 1)
		return -ENAMETOOLONG;
	buf[n] = '\0';
	*kind = anon_target(buf) ? JAIL_OBJ_ANON : JAIL_OBJ_PATH;
	if (*kind == JAIL_OBJ_PATH) {
		size_t len = (size_t)n;
		*deleted |= strip_deleted(link, buf, &len);
		n = (long)len;
	}
	return n;
}

/* The directory a relative path starts from, into buf. */
static long base_dir(int dirfd, char *buf, size_t bufsz, struct jail_resolved *out)
{
	enum jail_obj_kind kind = JAIL_OBJ_PATH;
	long n;
	if (dirfd == AT_FDCWD) {
		n = jail_os_getcwd(buf, bufsz);
		if (n > 0 && buf[0] == '/')
			return n - 1;
		/* deleted or unreachable cwd: ask /proc for the name it had */
		n = read_magic("/proc/self/cwd", buf, bufsz, &kind, &out->deleted);
	} else {
		char link[40];
		if (dirfd < 0)
			return -EBADF;
		fd_link_path(dirfd, link);
		n = read_magic(link, buf, bufsz, &kind, &out->deleted);
		if (n == -ENOENT)
			return -EBADF;
	}
	if (n >= 0 && (kind != JAIL_OBJ_PATH || buf[0] != '/'))
		return -ENOTDIR;
	return n;
}

/* out->given: base + "/" + path, lexically normalized. base may alias
 * nothing in out->given. */
static int make_given(const char *base, size_t blen, const char *path, struct jail_resolved *out)
{
	size_t plen = strlen(path);
	if (path[0] == '/')
		blen = 0;
	if (blen + 1 + plen >= sizeof(out->given))
		return -ENAMETOOLONG;
	memcpy(out->given, base, blen);
	out->given[blen] = '/';
	memcpy(out->given + blen + 1, path, plen + 1);
	if (jail_path_normalize(out->given, out->given, sizeof(out->given)) < 0)
		return -ENAMETOOLONG;
	return 0;
}

/* ---- the slow walk ---- */

static void res_pop(struct walker *k)
{
	while (k->rlen > 1 && k->res[k->rlen - 1] != '/')
		k->rlen--;
	if (k->rlen > 1)
		k->rlen--;
	k->res[k->rlen] = '\0';
}

static int res_push(struct walker *k, const char *c, size_t len)
{
	if (len > NAME_MAX || k->rlen + 1 + len >= PATH_MAX)
		return -ENAMETOOLONG;
	if (k->rlen > 1)
		k->res[k->rlen++] = '/';
	memcpy(k->res + k->rlen, c, len);
	k->rlen += len;
	k->res[k->rlen] = '\0';
	return 0;
}

/* On an error: the resolved prefix, then the unread rest, lexically. */
static int best_effort(struct walker *k, int err)
{
	size_t rest = strlen(k->w + k->r);
	if (k->rlen + 1 + rest < PATH_MAX) {
		k->res[k->rlen] = '/';
		memcpy(k->res + k->rlen + 1, k->w + k->r, rest + 1);
		jail_path_normalize(k->res, k->res, PATH_MAX);
	}
	return err;
}

/* A magic link to an object without a path, or to a deleted one. Returns 1
 * when handled (the walk continues from the new k->res, or ends), 0 for an
 * ordinary link, or -errno. */
/* N when res is "/proc/PID/fd/N" (or .../task/TID/fd/N) of this process. */
static int own_fd_of(const char *res)
{
	const char *p = res + 6; /* after "/proc/" */
	long pid = 0, fd = 0;
	if (*p < '0' || *p > '9')
		return -1;
	while (*p >= '0' && *p <= '9')
		pid = pid * 10 + (*p++ - '0');
	if (starts_with(p, "/task/")) {
		p += 6;
		while (*p >= '0' && *p <= '9')
			p++;
	}
	if (!starts_with(p, "/fd/") || p[4] == '\0')
		return -1;
	for (p += 4; *p; p++) {
		if (*p < '0' || *p > '9' || fd > 1 << 24)
			return -1;
		fd = fd * 10 + (*p - '0');
	}
	if (pid != jail_os_getpid())
		return -1;
	/* the link may name the leader's table; the fd must be the same object
	 * in the calling thread's table */
	struct stat a, b;
	if (jail_os_fstat((int)fd, &a) != 0 || jail_os_fstatat(AT_FDCWD, res, &b, 0) != 0 || a.st_dev != b.st_dev ||
	    a.st_ino != b.st_ino)
		return -1;
	return (int)fd;
}

static int magic(struct walker *k, size_t n, int last, size_t rest_start)
{
	struct jail_resolved *out = k->out;
	if (!starts_with(k->res, "/proc/"))
		return 0;
	if (last)
		out->own_fd = own_fd_of(k->res);
	k->w[n] = '\0';
	if (anon_target(k->w)) {
		if (!last)
			return -ENOTDIR;
		memcpy(out->path, k->w, n + 1);
		out->kind = JAIL_OBJ_ANON;
		out->exists = 1;
		k->r = PATH_MAX - 1;
		return 1;
	}
	if (k->w[0] != '/' || !strip_deleted(k->res, k->w, &n))
		return 0;
	/* The name the deleted object had is already canonical: take it as is. */
	out->deleted = 1;
	memcpy(k->res, k->w, n + 1);
	k->rlen = n;
	k->r = rest_start;
	return 1;
}

static void scan_component(const struct walker *k, size_t *cs, size_t *clen, size_t *q, int *slash)
{
	size_t r = k->r;
	while (k->w[r] == '/')
		r++;
	*cs = r;
	while (k->w[r] != '\0' && k->w[r] != '/')
		r++;
	*clen = r - *cs;
	*slash = 0;
	*q = r;
	while (k->w[*q] == '/') {
		(*q)++;
		*slash = 1;
	}
}

static int walk(struct walker *k)
{
	struct jail_resolved *out = k->out;
	out->exists = 1;
	for (;;) {
		size_t cs, clen, q;
		int slash, rc;
		scan_component(k, &cs, &clen, &q, &slash);
		if (clen == 0)
			return 0;
		int last = k->w[q] == '\0';
		/* rest keeps a trailing slash: it forces the final link to be followed */
		size_t rest_start = (last && slash) ? cs + clen : q;
		k->r = q;
		if (clen == 1 && k->w[cs] == '.')
			continue;
		if (clen == 2 && k->w[cs] == '.' && k->w[cs + 1] == '.') {
			res_pop(k);
			continue;
		}
		if ((rc = res_push(k, k->w + cs, clen)) != 0)
			return best_effort(k, rc);
		if (last && !slash && (k->flags & JAIL_RES_NOFOLLOW)) {
			char one;
			long n = jail_os_readlinkat(AT_FDCWD, k->res, &one, 1);
			out->exists = n >= 0 || n == -EINVAL;
			return (n >= 0 || n == -EINVAL || n == -ENOENT) ? 0 : (int)n;
		}
		size_t ins = k->w[rest_start] != '\0' && k->w[rest_start] != '/';
		long n = jail_os_readlinkat(AT_FDCWD, k->res, k->w, rest_start);
		if (n == -EINVAL)
			continue; /* exists, not a link */
		if (n == -ENOENT && last) {
			out->exists = 0;
			return 0;
		}
		if (n < 0)
			return best_effort(k, (int)n);
		if ((size_t)n + ins + 1 >= rest_start)
			return best_effort(k, -ENAMETOOLONG);
		if (++out->links > JAIL_MAXLINKS)
			return best_effort(k, -ELOOP);
		rc = magic(k, (size_t)n, last, rest_start);
		if (rc < 0)
			return best_effort(k, rc);
		if (rc > 0) {
			if (out->kind == JAIL_OBJ_ANON)
				return 0;
			continue;
		}
		/* splice the target in front of the rest */
		memmove(k->w + rest_start - ins - (size_t)n, k->w, (size_t)n);
		if (ins)
			k->w[rest_start - 1] = '/';
		k->r = rest_start - ins - (size_t)n;
		if (k->w[k->r] == '/') {
			k->rlen = 1;
			k->res[1] = '\0';
		} else {
			res_pop(k); /* a relative target starts from the link's directory */
		}
	}
}

static int slow(struct walker *k, const char *path, size_t plen)
{
	k->w[PATH_MAX - 1] = '\0';
	k->r = PATH_MAX - 1 - plen;
	memcpy(k->w + k->r, path, plen);
	if (path[0] == '/') {
		k->res[0] = '/';
		k->res[1] = '\0';
		k->rlen = 1;
	} else {
		k->rlen = strlen(k->res);
	}
	return walk(k);
}

/* The final component's offsets in path: [*s, *e); 0 when it is "." or "..". */
static int final_component(const char *path, size_t plen, size_t *s, size_t *e)
{
	*e = plen;
	while (*e > 1 && path[*e - 1] == '/')
		(*e)--;
	*s = *e;
	while (*s > 0 && path[*s - 1] != '/')
		(*s)--;
	return !((*e - *s == 1 && path[*s] == '.') || (*e - *s == 2 && path[*s] == '.' && path[*s + 1] == '.'));
}

/* The fast route: 1 when it answered, 0 to take the slow route. */
static int fast(struct walker *k, int dirfd, const char *path, size_t plen)
{
	struct jail_resolved *out = k->out;
	unsigned of = (k->flags & JAIL_RES_NOFOLLOW) ? JAIL_OS_NOFOLLOW : 0;
	long fd = jail_os_open_nosymlinks(dirfd, path, of);
	if (fd >= 0) {
		jail_os_close((int)fd);
		out->exists = 1;
		return 1;
	}
	if (fd != -ENOENT)
		return 0;
	/* Does everything but the final component exist, free of symlinks? */
	size_t s, e;
	if (!final_component(path, plen, &s, &e))
		return 0;
	if (s == 0) {
		fd = jail_os_open_nosymlinks(dirfd, ".", JAIL_OS_DIRECTORY);
	} else {
		memcpy(k->w, path, s);
		k->w[s] = '\0';
		fd = jail_os_open_nosymlinks(dirfd, k->w, JAIL_OS_DIRECTORY);
	}
	if (fd < 0)
		return 0;
	jail_os_close((int)fd);
	out->exists = 0;
	return 1;
}

/* Asks the kernel where an O_PATH descriptor it opened is: into out->path. */
static int where_is(long fd, struct jail_resolved *out)
{
	char link[40];
	fd_link_path((int)fd, link);
	long n = read_magic(link, out->path, sizeof(out->path), &out->kind, &out->deleted);
	jail_os_close((int)fd);
	return n > 0 && out->kind == JAIL_OBJ_PATH && out->path[0] == '/' && !out->deleted;
}

/*
 * The middle route, for a path with a symlink on the way (the fast route
 * saw ELOOP): the kernel walks the caller's string itself with an O_PATH
 * open, following links as the call would, and says where it arrived
 * (/proc/thread-self/fd/N). A missing final component is placed in its
 * parent, found the same way. Anything else — a dangling final link, a
 * path under /proc or /dev (magic links), a deleted object, an error — is
 * left to the exact slow walk.
 * Three system calls instead of one per component. Returns 1 when it
 * answered.
 */
static int middle(struct walker *k, int dirfd, const char *path, size_t plen)
{
	struct jail_resolved *out = k->out;
	int nofollow = (k->flags & JAIL_RES_NOFOLLOW) != 0;
	size_t s, e;
	/* /dev/stdout, /dev/fd/N and /proc/... lead through magic links whose
	 * details (an own descriptor, a deleted object) the slow walk keeps */
	if (starts_with(out->given, "/proc/") || starts_with(out->given, "/dev/"))
		return 0;
	long fd = jail_os_openat(dirfd, path, O_PATH | O_CLOEXEC | (nofollow ? O_NOFOLLOW : 0), 0);
	if (fd >= 0) {
		out->exists = 1;
		out->links = 1;
		return where_is(fd, out);
	}
	if (fd != -ENOENT || !final_component(path, plen, &s, &e) || e - s > NAME_MAX)
		return 0;
	if (s == 0) {
		fd = jail_os_openat(dirfd, ".", O_PATH | O_CLOEXEC | O_DIRECTORY, 0);
	} else {
		memcpy(k->w, path, s);
		k->w[s] = '\0';
		fd = jail_os_openat(dirfd, k->w, O_PATH | O_CLOEXEC | O_DIRECTORY, 0);
	}
	if (fd < 0)
		return 0;
	struct stat st;
	memcpy(k->w, path + s, e - s);
	k->w[e - s] = '\0';
	if (jail_os_fstatat((int)fd, k->w, &st, 1) != -ENOENT) { /* a dangling link: the slow walk */
		jail_os_close((int)fd);
		return 0;
	}
	if (!where_is(fd, out))
		return 0;
	size_t n = strlen(out->path);
	if (n + 1 + (e - s) >= sizeof(out->path))
		return 0;
	if (n > 1)
		out->path[n++] = '/';
	memcpy(out->path + n, path + s, e - s);
	out->path[n + e - s] = '\0';
	out->exists = 0;
	out->links = 1;
	return 1;
}

static int empty_path(int dirfd, struct jail_resolved *out)
{
	long n;
	out->exists = 1;
	if (dirfd == AT_FDCWD) {
		n = base_dir(dirfd, out->path, sizeof(out->path), out);
	} else {
		char link[40];
		if (dirfd < 0)
			return -EBADF;
		fd_link_path(dirfd, link);
		n = read_magic(link, out->path, sizeof(out->path), &out->kind, &out->deleted);
		if (n == -ENOENT)
			return -EBADF;
	}
	if (n < 0)
		return (int)n;
	memcpy(out->given, out->path, (size_t)n + 1);
	return 0;
}

/* What both routes begin with: *out reset; for a relative path the base
 * directory in out->path (its length in *blen); the lexical form in
 * out->given. 0, -errno, or 1 for an empty path. */
static int begin(int dirfd, const char *path, size_t plen, struct jail_resolved *out, long *blen)
{
	out->kind = JAIL_OBJ_PATH;
	out->exists = 0;
	out->deleted = 0;
	out->links = 0;
	out->own_fd = -1;
	out->path[0] = out->given[0] = '\0';
	*blen = 0;
	if (plen == 0)
		return 1;
	if (plen >= PATH_MAX)
		return -ENAMETOOLONG;
	if (path[0] != '/') {
		*blen = base_dir(dirfd, out->path, sizeof(out->path), out);
		if (*blen < 0) {
			out->path[0] = '\0';
			return (int)*blen;
		}
	}
	return make_given(out->path, (size_t)*blen, path, out);
}

int jail_resolve(int dirfd, const char *path, unsigned flags, struct jail_resolved *out)
{
	struct walker k = {.res = out->path, .flags = flags, .out = out};
	size_t plen = strlen(path);
	long blen;
	int rc = begin(dirfd, path, plen, out, &blen);
	if (rc == 1)
		return (flags & JAIL_RES_EMPTY_PATH) ? empty_path(dirfd, out) : -ENOENT;
	if (rc)
		return rc;
	if (!(flags & JAIL_RES_SLOW) && !out->deleted && fast(&k, dirfd, path, plen)) {
		memcpy(out->path, out->given, strlen(out->given) + 1);
		return 0;
	}
	if (!(flags & JAIL_RES_SLOW) && !out->deleted && middle(&k, dirfd, path, plen))
		return 0;
	/* the slow walk starts again from the base */
	out->kind = JAIL_OBJ_PATH;
	out->deleted = 0;
	out->links = 0;
	if (path[0] != '/') {
		blen = base_dir(dirfd, out->path, sizeof(out->path), out);
		if (blen < 0)
			return (int)blen;
		out->path[blen] = '\0';
	}
	return slow(&k, path, plen);
}

int jail_resolve_lexical(int dirfd, const char *path, struct jail_resolved *out)
{
	long blen;
	int rc = begin(dirfd, path, strlen(path), out, &blen);
	if (rc)
		return rc;
	if (out->deleted)
		return 1;
	memcpy(out->path, out->given, strlen(out->given) + 1);
	return 0;
}

int jail_canon_existing(const char *path, char *out, size_t outsz, void *ctx)
{
	struct jail_resolved r;
	(void)ctx;
	int rc = jail_resolve(AT_FDCWD, path, 0, &r);
	if ((rc != 0 && rc != -ENOENT && rc != -ENOTDIR) || r.kind != JAIL_OBJ_PATH || r.path[0] != '/')
		return -1;
	size_t n = strlen(r.path);
	if (n >= outsz)
		return -1;
	memcpy(out, r.path, n + 1);
	return 0;
}
