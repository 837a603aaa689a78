/*
 * subtree.c — renaming a directory moves everything beneath it.
 *
 * Deciding only the two names of a rename would let `mv .git .g`, a write
 * to .g/hooks/post-checkout and `mv .g .git` plant a hook that the policy
 * refuses, or let `mv conf c2` read a key a deny rule covered. So a rename
 * whose source (or, for RENAME_EXCHANGE, destination) is a directory walks
 * it: every entry must be writable where it is and where it will be.
 *
 * Invariants:
 *  1. The walk uses raw system calls and memory mapped for it; nothing is
 *     allocated on the heap, and little on the stack.
 *  2. It never follows a symlink (entries are names; a link moves as a link)
 *     and opens each directory with RESOLVE_NO_SYMLINKS / O_NOFOLLOW.
 *  3. A tree too deep or too large to check is refused, not assumed safe.
 *  4. The check and the rename are not atomic: an entry created beneath the
 *     source after the walk moves unchecked. libjail(7) says so.
 */
#define _GNU_SOURCE
#include "shim.h"
#include "os.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <dirent.h>
#include <sys/mman.h>

#define MAX_DEPTH 128
#define MAX_ENTRIES 1000000L
#define DENTS_BUF 4096

struct level {
	int fd;
	size_t src_len, dst_len; /* path lengths at this level */
	long pos, len;           /* position in buf, bytes in buf */
	char buf[DENTS_BUF];
};

struct walk {
	char src[PATH_MAX], dst[PATH_MAX];
	struct jail_resolved r;
	struct level lv[MAX_DEPTH];
};

struct dirent64_raw {
	unsigned long long d_ino;
	long long d_off;
	unsigned short d_reclen;
	unsigned char d_type;
	char d_name[];
};

/* Appends "/name" to both paths at this level's lengths. */
static int extend(struct walk *w, const struct level *l, const char *name)
{
	size_t n = strlen(name);
	if (l->src_len + n + 2 > PATH_MAX || l->dst_len + n + 2 > PATH_MAX)
		return -ENAMETOOLONG;
	w->src[l->src_len] = '/';
	memcpy(w->src + l->src_len + 1, name, n + 1);
	w->dst[l->dst_len] = '/';
	memcpy(w->dst + l->dst_len + 1, name, n + 1);
	return 0;
}

/* Reports and refuses the first entry that may not move. */
static int refuse(struct walk *w, const char *path, const char *op)
{
	memset(&w->r, 0, sizeof(w->r));
	w->r.kind = JAIL_OBJ_PATH;
	w->r.exists = 1;
	w->r.own_fd = -1;
	memcpy(w->r.path, path, strlen(path) + 1);
	memcpy(w->r.given, path, strlen(path) + 1);
	int rc = jail_check_resolved(&w->r, JAIL_WRITE, op);
	return rc ? rc : -EACCES;
}

static int check_entry(struct walk *w, const char *op)
{
	if (!jail_allowed_quietly(w->src, JAIL_WRITE))
		return refuse(w, w->src, op);
	if (!jail_allowed_quietly(w->dst, JAIL_WRITE))
		return refuse(w, w->dst, op);
	return 0;
}

static int walk_tree(struct walk *w, const char *op)
{
	long entries = 0;
	int depth = 0, rc = 0;
	w->lv[0].src_len = strlen(w->src);
	w->lv[0].dst_len = strlen(w->dst);
	w->lv[0].pos = w->lv[0].len = 0;
	long fd = jail_os_open_checked(AT_FDCWD, w->src, O_RDONLY | O_DIRECTORY | O_CLOEXEC | O_NOFOLLOW, 0);
	if (fd == -ENOSYS)
		fd = jail_os_openat(AT_FDCWD, w->src, O_RDONLY | O_DIRECTORY | O_CLOEXEC | O_NOFOLLOW, 0);
	if (fd < 0)
		return fd == -ENOTDIR ? 0 : (int)fd;
	w->lv[0].fd = (int)fd;
	while (depth >= 0 && rc == 0) {
		struct level *l = &w->lv[depth];
		if (l->pos >= l->len) {
			l->len = jail_os_getdents64(l->fd, l->buf, sizeof(l->buf));
			l->pos = 0;
			if (l->len <= 0) { /* end of this directory (or an error: refuse) */
				rc = l->len < 0 ? (int)l->len : 0;
				jail_os_close(l->fd);
				depth--;
				continue;
			}
		}
		const struct dirent64_raw *d = (const void *)(l->buf + l->pos);
		l->pos += d->d_reclen;
		if (strcmp(d->d_name, ".") == 0 || strcmp(d->d_name, "..") == 0)
			continue;
		if (++entries > MAX_ENTRIES) {
			rc = jail_refuse(op, w->src, "the directory is too large for the jail to check what it would move");
			break;
		}
		if ((rc = extend(w, l, d->d_name)) != 0 || (rc = check_entry(w, op)) != 0)
			break;
		int is_dir = d->d_type == DT_DIR;
		if (d->d_type == DT_UNKNOWN) {
			struct stat st;
			is_dir = jail_os_fstatat(l->fd, d->d_name, &st, 1) == 0 && S_ISDIR(st.st_mode);
		}
		if (!is_dir)
			continue;
		if (depth + 1 == MAX_DEPTH) {
			rc = jail_refuse(op, w->src, "the directory is too deep for the jail to check what it would move");
			break;
		}
		long sub = jail_os_openat(l->fd, d->d_name, O_RDONLY | O_DIRECTORY | O_CLOEXEC | O_NOFOLLOW, 0);
		if (sub < 0) {
			rc = (int)sub;
			break;
		}
		struct level *n = &w->lv[++depth];
		n->fd = (int)sub;
		n->src_len = strlen(w->src);
		n->dst_len = strlen(w->dst);
		n->pos = n->len = 0;
	}
	for (; depth >= 0; depth--) /* after a refusal: close what is still open */
		jail_os_close(w->lv[depth].fd);
	return rc;
}

int jail_check_move(const char *src, const char *dst, const char *op)
{
	struct stat st;
	if (jail_os_fstatat(AT_FDCWD, src, &st, 1) != 0 || !S_ISDIR(st.st_mode))
		return 0; /* not a directory: its own name was all there was to decide */
	size_t len = (sizeof(struct walk) + 4095) & ~(size_t)4095;
	struct walk *w = jail_os_mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (w == MAP_FAILED)
		return -ENOMEM;
	memcpy(w->src, src, strlen(src) + 1);
	memcpy(w->dst, dst, strlen(dst) + 1);
	int rc = walk_tree(w, op);
	jail_os_munmap(w, len);
	return rc;
}
