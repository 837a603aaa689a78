/*
 * resolve.h — turn what a call names into the object the kernel will touch.
 *
 * The narrow interface between hooks (and tests) and path resolution. It is
 * exact where it matters for a jail: a dangling symlink resolves to where the
 * kernel would create the file, `..` after a symlink climbs from the link's
 * target, /proc magic links resolve to their objects.
 *
 * Invariants: no allocation, no locks, no stdio, errno untouched; the only
 * memory used is *out and one PATH_MAX buffer on the stack.
 */
#ifndef JAIL_RESOLVE_H
#define JAIL_RESOLVE_H

#include <limits.h>
#include <stddef.h>

enum jail_obj_kind {
	JAIL_OBJ_PATH, /* a filesystem path */
	JAIL_OBJ_ANON, /* pipe:[..], socket:[..], anon_inode:.., /memfd:..: no path to decide on */
};

#define JAIL_RES_NOFOLLOW 1u   /* the call acts on a final symlink itself */
#define JAIL_RES_EMPTY_PATH 2u /* AT_EMPTY_PATH: an empty path names dirfd itself */
#define JAIL_RES_SLOW 4u       /* walk component by component (tests, benchmarks) */

struct jail_resolved {
	char path[PATH_MAX];  /* what the kernel will touch: absolute, no symlinks, no . or .. */
	char given[PATH_MAX]; /* the path as given, made absolute, lexically normalized */
	enum jail_obj_kind kind;
	int exists;           /* the final object exists (with NOFOLLOW: as a name) */
	int deleted;          /* reached through a magic link to a deleted file or directory */
	unsigned links;       /* symlinks followed */
	int own_fd;           /* >= 0: the path ended at this process's own descriptor (/proc/self/fd/N) */
};

/*
 * Resolves (dirfd, path) as the kernel would for a call with these flags.
 * Returns 0, or -errno for the error the kernel would give (ENOENT for a
 * missing directory on the way, ENOTDIR, ELOOP, ENAMETOOLONG, EBADF, EACCES).
 * A missing final component is not an error: exists is 0 and path is where
 * it would be created. On error, path still holds the best guess (the
 * resolved prefix followed by the rest, lexically) so callers can apply
 * deny rules; given is always filled when the error is not about dirfd.
 */
int jail_resolve(int dirfd, const char *path, unsigned flags, struct jail_resolved *out);

/*
 * The first half of the fast route, for a hook that will make the
 * symlink-refusing call itself: fills out->given (and out->path with the
 * same) from the path's lexical form, costing a system call only for a
 * relative path (getcwd, or a readlink of the dirfd). Returns 0, -errno, or
 * 1 when the lexical form cannot stand for the object (an empty path, a
 * deleted or path-less base directory): then use jail_resolve().
 * The caller must confirm with openat2(RESOLVE_NO_SYMLINKS) on the caller's
 * own (dirfd, path) that no symlink was on the way.
 */
int jail_resolve_lexical(int dirfd, const char *path, struct jail_resolved *out);

/* A jail_canon_fn (policy.h) on top of jail_resolve: canonicalizes the
 * longest existing prefix of an absolute path. */
int jail_canon_existing(const char *path, char *out, size_t outsz, void *ctx);

#endif
