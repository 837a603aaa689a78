/*
 * landlock_linux.c — the kernel layer: a Landlock ruleset derived from the
 * compiled policy, so that programs the shim cannot see (static binaries,
 * raw system calls) stay inside the policy's outer bound.
 *
 * What the kernel enforces, per policy layer (one Landlock layer each; the
 * kernel, like the shim, requires every layer to allow):
 *  - allow read    → READ_FILE, READ_DIR beneath the pattern's literal
 *                    leading directory (a glob makes the grant coarser);
 *  - allow write   → also WRITE_FILE, TRUNCATE, MAKE_*, REMOVE_*, REFER,
 *                    IOCTL_DEV;
 *  - allow exec    → EXECUTE;
 *  - deny read of a literal path inside a readable tree → that tree's
 *    READ_FILE grant is expanded: its existing entries are granted one by
 *    one except along the denied path. Files created later directly under
 *    an expanded directory are not readable (the safe direction). Listing
 *    (READ_DIR) stays granted on the whole tree: names, not contents.
 *    (Not under a supervisor, which holds read denies exactly for every
 *    process: then readable trees are granted whole.)
 *  - net allow/none (ABI 4) → CONNECT_TCP handled, and allowed only to the
 *    ports the layer's allow rules name and the jail's proxy port, when
 *    every allow rule names ports (addresses are the shim's and proxy's).
 *  - kernel strict: deny write of an entry that exists at start (a literal
 *    rule, or a glob's match within CARVE_DEPTH levels of a writable
 *    tree's top) → the writable tree is expanded the same way, for every
 *    right: the directories along the way keep none of their own, so no
 *    entry can be made, removed or renamed directly in them ({cwd} itself,
 *    when it holds .git/hooks), while their other entries keep all.
 * What stays with the shim alone: glob read denies (a .env anywhere), write
 * carve-outs unless strict (expanding them would forbid creating files at
 * the tree's top), and everything finer than a directory.
 *
 * Invariants: runs once, in jailrun's launcher before the command starts
 * (not in hooks); directories are opened O_PATH|O_NOFOLLOW entry by entry,
 * so a symlink in an expanded directory grants nothing beyond itself.
 */
#define _GNU_SOURCE
#include "landlock.h"
#include "os.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

/* The kernel's ABI, defined here so that older headers do not matter. */
#define LL_CREATE_RULESET_VERSION (1u << 0)
#define LL_RULE_PATH_BENEATH 1
#define FS_EXECUTE (1ULL << 0)
#define FS_WRITE_FILE (1ULL << 1)
#define FS_READ_FILE (1ULL << 2)
#define FS_READ_DIR (1ULL << 3)
#define FS_REMOVE_DIR (1ULL << 4)
#define FS_REMOVE_FILE (1ULL << 5)
#define FS_MAKE_CHAR (1ULL << 6)
#define FS_MAKE_DIR (1ULL << 7)
#define FS_MAKE_REG (1ULL << 8)
#define FS_MAKE_SOCK (1ULL << 9)
#define FS_MAKE_FIFO (1ULL << 10)
#define FS_MAKE_BLOCK (1ULL << 11)
#define FS_MAKE_SYM (1ULL << 12)
#define FS_REFER (1ULL << 13)    /* ABI 2 */
#define FS_TRUNCATE (1ULL << 14) /* ABI 3 */
#define FS_IOCTL_DEV (1ULL << 15) /* ABI 5 */
#define SCOPE_ABSTRACT_UNIX (1ULL << 0) /* ABI 6 */
#define SCOPE_SIGNAL (1ULL << 1)        /* ABI 6 */
#define NET_CONNECT_TCP (1ULL << 1)     /* ABI 4 */
#define LL_RULE_NET_PORT 2

struct ll_net_port_attr {
	unsigned long long allowed_access;
	unsigned long long port;
};

#define FS_READ (FS_READ_FILE | FS_READ_DIR)
#define FS_WRITE                                                                                               \
	(FS_WRITE_FILE | FS_REMOVE_DIR | FS_REMOVE_FILE | FS_MAKE_CHAR | FS_MAKE_DIR | FS_MAKE_REG | FS_MAKE_SOCK |   \
	 FS_MAKE_FIFO | FS_MAKE_BLOCK | FS_MAKE_SYM | FS_REFER | FS_TRUNCATE | FS_IOCTL_DEV)
#define FS_FILE_RIGHTS (FS_EXECUTE | FS_WRITE_FILE | FS_READ_FILE | FS_TRUNCATE | FS_IOCTL_DEV)

struct ll_ruleset_attr {
	unsigned long long handled_access_fs;
	unsigned long long handled_access_net; /* ABI 4 */
	unsigned long long scoped;             /* ABI 6 */
};

struct __attribute__((packed)) ll_path_beneath_attr {
	unsigned long long allowed_access;
	int parent_fd;
};

int jail_landlock_abi(void)
{
	const char *sim = getenv("JAIL_TEST_LANDLOCK_ABI"); /* tests simulate an older or absent kernel */
	if (sim && *sim)
		return atoi(sim);
	long abi = syscall(SYS_landlock_create_ruleset, NULL, 0, LL_CREATE_RULESET_VERSION);
	return abi < 0 ? 0 : (int)abi;
}

static unsigned long long handled_for(int abi)
{
	unsigned long long h = FS_EXECUTE | FS_READ | (FS_WRITE & ~(FS_REFER | FS_TRUNCATE | FS_IOCTL_DEV));
	if (abi >= 2)
		h |= FS_REFER;
	if (abi >= 3)
		h |= FS_TRUNCATE;
	if (abi >= 5)
		h |= FS_IOCTL_DEV;
	return h;
}

struct builder {
	int ruleset;
	int abi;
	unsigned long long handled;
	const struct jail_policy *p;
	struct jail_landlock_stats *stats;
	int expand; /* expand readable trees around literal read denies */
	struct carveouts *cv; /* kernel strict: the write carve-outs found, else NULL */
	const char *const *hold; /* refused to every access (jail_landlock_extra) */
	size_t nhold;
	char err[512];
};

#define EXPAND_DEPTH 64 /* a tree is expanded this deep at most: deeper, the layer is not built */

static int beneath(const char *path, const char *dir);

/* A held path at path itself, or strictly beneath it. */
static int held(const struct builder *b, const char *path, int strictly_beneath)
{
	for (size_t i = 0; i < b->nhold; i++)
		if (strictly_beneath ? beneath(b->hold[i], path) : strcmp(b->hold[i], path) == 0)
			return 1;
	return 0;
}

static int too_deep(struct builder *b, const char *dir)
{
	snprintf(b->err, sizeof(b->err), "cannot expand %s around what lies more than %d levels beneath it", dir,
	         EXPAND_DEPTH);
	return -ELOOP;
}

/* Adds one path-beneath rule; a path that does not exist grants nothing. */
static int add_rule(struct builder *b, const char *path, unsigned long long access, int nofollow)
{
	struct stat st;
	int fd = open(path, O_PATH | O_CLOEXEC | (nofollow ? O_NOFOLLOW : 0));
	if (fd < 0)
		return errno == ENOENT || errno == ENOTDIR || errno == ELOOP || errno == EACCES ? 0 : -errno;
	if (fstat(fd, &st) == 0 && !S_ISDIR(st.st_mode))
		access &= FS_FILE_RIGHTS;
	struct ll_path_beneath_attr attr = {.allowed_access = access & b->handled, .parent_fd = fd};
	long rc = attr.allowed_access ? syscall(SYS_landlock_add_rule, b->ruleset, LL_RULE_PATH_BENEATH, &attr, 0) : 0;
	int e = errno;
	close(fd);
	if (rc < 0) {
		snprintf(b->err, sizeof(b->err), "cannot add a Landlock rule for %s: %s", path, strerror(e));
		return -e;
	}
	b->stats->rules++;
	return 0;
}

/* The literal leading directories of a pattern (/a/b then a glob gives /a/b). */
static void literal_prefix(const char *pat, char *out, size_t outsz)
{
	size_t n = 0;
	const char *c = pat;
	out[0] = '/';
	out[1] = '\0';
	while (*c) {
		while (*c == '/')
			c++;
		const char *s = c;
		int magic = 0;
		while (*c && *c != '/') {
			if (*c == '\\' && c[1])
				c++;
			else if (*c == '*' || *c == '?' || *c == '[')
				magic = 1;
			c++;
		}
		if (c == s || magic)
			break;
		if (n + (size_t)(c - s) + 2 >= outsz)
			break;
		out[n++] = '/';
		for (const char *k = s; k < c; k++) {
			if (*k == '\\' && k + 1 < c)
				k++;
			out[n++] = *k;
		}
		out[n] = '\0';
	}
}

static int is_literal(const char *pat)
{
	for (const char *c = pat; *c; c++) {
		if (*c == '\\' && c[1]) {
			c++;
			continue;
		}
		if (*c == '*' || *c == '?' || *c == '[')
			return 0;
	}
	return 1;
}

static int beneath(const char *path, const char *dir)
{
	/* path lies strictly beneath dir */
	size_t n = strlen(dir);
	if (n == 1 && dir[0] == '/')
		return path[0] == '/' && path[1] != '\0';
	return strncmp(path, dir, n) == 0 && path[n] == '/';
}

/* A literal read deny of this layer at `path` itself, or beneath it. */
static int read_denied(const struct jail_policy *p, const char *path, int strictly_beneath)
{
	for (uint32_t i = 0; i < jail_rule_count(p); i++) {
		int32_t r = (int32_t)i;
		const char *pat = jail_rule_pattern(p, r);
		if (jail_rule_effect(p, r) != JAIL_DENY || !(jail_rule_access(p, r) & JAIL_READ) || !is_literal(pat))
			continue;
		if (strictly_beneath ? beneath(pat, path) : strcmp(pat, path) == 0)
			return 1;
	}
	return 0;
}

/* fn(child path, ctx) for each entry of dir (not . and ..), until one
 * returns non-zero, which is returned; 0 for a directory that cannot be
 * listed (it grants, or holds, nothing). */
static int each_entry(const char *dir, int (*fn)(const char *child, void *ctx), void *ctx)
{
	DIR *d = opendir(dir);
	if (!d)
		return 0;
	struct dirent *e;
	int rc = 0;
	char child[PATH_MAX];
	while (rc == 0 && (e = readdir(d)) != NULL) {
		if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
			continue;
		int n = snprintf(child, sizeof(child), "%s/%s", strcmp(dir, "/") == 0 ? "" : dir, e->d_name);
		if (n < 0 || (size_t)n >= sizeof(child))
			continue;
		rc = fn(child, ctx);
	}
	closedir(d);
	return rc;
}

struct expansion {
	struct builder *b;
	int depth;
	int (*grant)(struct builder *, const char *, int);
};

static int grant_one(const char *child, void *ctx)
{
	struct expansion *x = ctx;
	return x->grant(x->b, child, x->depth + 1);
}

/* An expanded directory: grant(b, entry, depth + 1) for each of its
 * entries, until one fails. */
static int grant_entries(struct builder *b, const char *dir, int depth, int (*grant)(struct builder *, const char *, int))
{
	struct expansion x = {b, depth, grant};
	b->stats->expanded++;
	return each_entry(dir, grant_one, &x);
}

/* Grants read beneath dir, except along literal read denies under it. */
static int grant_read(struct builder *b, const char *dir, int depth)
{
	if ((b->expand && read_denied(b->p, dir, 0)) || held(b, dir, 0))
		return 0;
	if (!(b->expand && read_denied(b->p, dir, 1)) && !held(b, dir, 1))
		return add_rule(b, dir, FS_READ, depth > 0);
	if (depth > EXPAND_DEPTH)
		return too_deep(b, dir);
	/* Listing stays allowed throughout (names, not contents): `ls ~` keeps
	 * working; the shim still refuses listing a read-denied directory to
	 * every program it sees. Reading files is what is expanded. */
	int rc0 = add_rule(b, dir, FS_READ_DIR, depth > 0);
	if (rc0)
		return rc0;
	return grant_entries(b, dir, depth, grant_read);
}

/* ---- write carve-outs (kernel strict) ----
 * The entries a layer denies writing by a rule (a literal path, or a glob
 * such as the default's pattern for .git/hooks), found when the jail
 * starts: literal ones wherever they are, glob matches by walking each
 * writable tree CARVE_DEPTH levels deep, looking at CARVE_ENTRIES entries at
 * most per tree (more: strict refuses to start). A carve-out is not
 * entered. What lies deeper, or appears later, stays with the shim and the
 * supervisor (libjail(7)). */
#define CARVE_DEPTH 4
#define TEXT_OF(x) TEXT_OF_(x)
#define TEXT_OF_(x) #x
#define CARVE_ENTRIES 500000L /* JAIL_TEST_CARVE_ENTRIES overrides it (tests of the limit) */
#define CARVE_MAX 1024

struct carveouts {
	size_t n;
	char *path[CARVE_MAX];
};

static long carve_budget(void)
{
	const char *test = getenv("JAIL_TEST_CARVE_ENTRIES");
	return test && *test ? atol(test) : CARVE_ENTRIES;
}

static int denied_by_rule(const struct jail_policy *p, const char *path)
{
	struct jail_decision d = jail_decide(p, JAIL_WRITE, path);
	return d.verdict == JAIL_DENY && d.rule >= 0 && jail_rule_effect(p, d.rule) == JAIL_DENY;
}

static int carve_add(struct carveouts *cv, const char *path)
{
	for (size_t i = 0; i < cv->n; i++)
		if (strcmp(cv->path[i], path) == 0)
			return 0;
	if (cv->n == CARVE_MAX || !(cv->path[cv->n] = strdup(path)))
		return -E2BIG;
	cv->n++;
	return 0;
}

static void carve_free(struct carveouts *cv)
{
	for (size_t i = 0; cv && i < cv->n; i++)
		free(cv->path[i]);
	free(cv);
}

/* A carve-out worth holding: not a socket, nor a directory of sockets
 * alone (/tmp/tmux-1000): what a deny on those is about is connecting to
 * them, which Landlock has no rule for, and carving them out of {tmp} would
 * cost every new entry there. */
static int worth_holding(const char *path)
{
	struct stat st;
	if (lstat(path, &st) != 0 || S_ISSOCK(st.st_mode))
		return 0;
	if (!S_ISDIR(st.st_mode))
		return 1;
	DIR *d = opendir(path);
	if (!d)
		return 1;
	struct dirent *e;
	int sockets = 0, other = 0;
	while ((e = readdir(d)) != NULL && !other) {
		if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
			continue;
		if (e->d_type == DT_SOCK)
			sockets++;
		else
			other = 1;
	}
	closedir(d);
	return other || !sockets;
}

/* 0, -E2BIG (too many carve-outs) or -ENOSPC (a tree too large to look through). */
struct walk {
	const struct jail_policy *p;
	struct carveouts *cv;
	int depth;
	long *budget;
};

static int carve_walk(const struct jail_policy *p, struct carveouts *cv, const char *dir, int depth, long *budget);

static int carve_one(const char *child, void *ctx)
{
	struct walk *w = ctx;
	struct stat st;
	if (--*w->budget < 0)
		return -ENOSPC;
	if (denied_by_rule(w->p, child))
		return worth_holding(child) ? carve_add(w->cv, child) : 0;
	if (lstat(child, &st) == 0 && S_ISDIR(st.st_mode))
		return carve_walk(w->p, w->cv, child, w->depth + 1, w->budget);
	return 0;
}

static int carve_walk(const struct jail_policy *p, struct carveouts *cv, const char *dir, int depth, long *budget)
{
	struct walk w = {p, cv, depth, budget};
	return depth > CARVE_DEPTH ? 0 : each_entry(dir, carve_one, &w);
}

/* The layer's write carve-outs inside its writable trees, in *out; 0, or
 * -1 with why (too many of them, or a tree too large to look through:
 * strict then refuses to start rather than hold less than it says). */
static int find_carveouts(const struct jail_policy *p, struct carveouts **out, char *why, size_t whysz)
{
	struct carveouts *cv = calloc(1, sizeof(*cv));
	char prefix[PATH_MAX];
	struct stat st;
	int rc = cv ? 0 : -ENOMEM;
	for (uint32_t i = 0; rc == 0 && i < jail_rule_count(p); i++) {
		int32_t r = (int32_t)i;
		const char *pat = jail_rule_pattern(p, r);
		if (jail_rule_effect(p, r) == JAIL_DENY && (jail_rule_access(p, r) & JAIL_WRITE) && is_literal(pat) &&
		    lstat(pat, &st) == 0 && denied_by_rule(p, pat) && worth_holding(pat))
			rc = carve_add(cv, pat);
		if (rc || jail_rule_effect(p, r) != JAIL_ALLOW || !(jail_rule_access(p, r) & JAIL_WRITE))
			continue;
		literal_prefix(pat, prefix, sizeof(prefix));
		long budget = carve_budget();
		if (denied_by_rule(p, prefix))
			rc = worth_holding(prefix) ? carve_add(cv, prefix) : 0;
		else if (lstat(prefix, &st) == 0 && S_ISDIR(st.st_mode))
			rc = carve_walk(p, cv, prefix, 1, &budget);
	}
	if (rc == -ENOSPC)
		snprintf(why, whysz,
		         "kernel strict: %s holds too many entries within %d levels to look through for write "
		         "carve-outs (more than %ld; narrow the writable trees, or use kernel require)",
		         prefix, CARVE_DEPTH, carve_budget());
	else if (rc)
		snprintf(why, whysz, "kernel strict: more than %d write carve-outs in the writable trees", CARVE_MAX);
	if (rc) {
		carve_free(cv);
		return -1;
	}
	*out = cv;
	return 0;
}

static int carved(const struct carveouts *cv, const char *path, int strictly_beneath)
{
	for (size_t i = 0; cv && i < cv->n; i++)
		if (strictly_beneath ? beneath(cv->path[i], path) : strcmp(cv->path[i], path) == 0)
			return 1;
	return 0;
}

/* Grants write beneath dir, except along the write carve-outs under it. */
static int grant_write(struct builder *b, const char *dir, int depth)
{
	if (carved(b->cv, dir, 0) || held(b, dir, 0))
		return 0;
	if (!carved(b->cv, dir, 1) && !held(b, dir, 1))
		return add_rule(b, dir, FS_WRITE, depth > 0);
	if (depth > EXPAND_DEPTH)
		return too_deep(b, dir);
	/* dir itself keeps no right: any would reach the carve-out beneath it */
	return grant_entries(b, dir, depth, grant_write);
}

static int apply_layer(int abi, const struct jail_policy *p, const struct jail_landlock_extra *x, unsigned opts,
                       struct jail_landlock_stats *stats, char *err, size_t errsz)
{
	struct ll_ruleset_attr attr = {.handled_access_fs = handled_for(abi)};
	uint16_t ports[JAIL_NET_MAX_PORTS];
	int nports = jail_net_ports(p, ports, JAIL_NET_MAX_PORTS);
	if (nports >= 0 && abi >= 4) {
		attr.handled_access_net = NET_CONNECT_TCP;
		stats->net_bounded++;
	} else if (jail_policy_net(p) != JAIL_NET_MODE_OPEN) {
		stats->net_unbounded++;
	}
	if (abi >= 6)
		attr.scoped = SCOPE_SIGNAL | SCOPE_ABSTRACT_UNIX;
	size_t size = abi >= 6 ? sizeof(attr) : abi >= 4 ? 2 * sizeof(unsigned long long) : sizeof(unsigned long long);
	struct builder b = {.abi = abi, .handled = attr.handled_access_fs, .p = p, .stats = stats,
	                    .expand = !(opts & JAIL_LANDLOCK_READ_DENIES_ELSEWHERE), .hold = x->hold, .nhold = x->nhold};
	if (opts & JAIL_LANDLOCK_WRITE_CARVEOUTS) {
		if (find_carveouts(p, &b.cv, err, errsz) != 0)
			return -1;
		stats->carveouts += (int)b.cv->n;
	}
	b.ruleset = (int)syscall(SYS_landlock_create_ruleset, &attr, size, 0);
	if (b.ruleset < 0) {
		snprintf(err, errsz, "cannot create a Landlock ruleset: %s", strerror(errno));
		carve_free(b.cv);
		return -1;
	}
	char prefix[PATH_MAX];
	int rc = 0;
	for (uint32_t i = 0; rc == 0 && i < jail_rule_count(p); i++) {
		int32_t r = (int32_t)i;
		if (jail_rule_effect(p, r) != JAIL_ALLOW)
			continue;
		unsigned acc = jail_rule_access(p, r);
		literal_prefix(jail_rule_pattern(p, r), prefix, sizeof(prefix));
		if (acc & (JAIL_READ | JAIL_WRITE))
			rc = grant_read(&b, prefix, 0);
		if (rc == 0 && (acc & JAIL_WRITE))
			rc = grant_write(&b, prefix, 0);
		if (rc == 0 && (acc & JAIL_EXEC))
			rc = add_rule(&b, prefix, FS_EXECUTE, 0); /* (a held path, a terminal, cannot be run anyway) */
	}
	for (size_t i = 0; rc == 0 && i < x->nwrite; i++)
		rc = add_rule(&b, x->write[i], FS_WRITE | FS_READ, 0);
	for (size_t i = 0; rc == 0 && i < x->nread; i++)
		rc = add_rule(&b, x->read[i], FS_READ | FS_EXECUTE, 0);
	for (int i = 0; rc == 0 && attr.handled_access_net && i <= nports; i++) {
		unsigned port = i < nports ? ports[i] : x->connect_port;
		struct ll_net_port_attr na = {.allowed_access = NET_CONNECT_TCP, .port = port};
		if (port && syscall(SYS_landlock_add_rule, b.ruleset, LL_RULE_NET_PORT, &na, 0) != 0) {
			snprintf(b.err, sizeof(b.err), "cannot add a Landlock rule for TCP port %u: %s", port, strerror(errno));
			rc = -1;
		}
	}
	if (rc == 0 && syscall(SYS_landlock_restrict_self, b.ruleset, 0) != 0) {
		snprintf(b.err, sizeof(b.err), "cannot restrict the process with Landlock: %s", strerror(errno));
		rc = -1;
	}
	close(b.ruleset);
	carve_free(b.cv);
	if (rc)
		snprintf(err, errsz, "%s", b.err[0] ? b.err : "cannot build the Landlock ruleset");
	return rc ? -1 : 0;
}

int jail_landlock_apply(const struct jail_policy *const *layers, size_t nlayers, const struct jail_landlock_extra *x,
                        unsigned opts, struct jail_landlock_stats *stats, char *err, size_t errsz)
{
	int abi = jail_landlock_abi();
	memset(stats, 0, sizeof(*stats));
	stats->abi = abi;
	if (abi < 1) {
		snprintf(err, errsz, "the kernel has no Landlock (or it is disabled)");
		return -1;
	}
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0) {
		snprintf(err, errsz, "cannot set no_new_privs: %s", strerror(errno));
		return -1;
	}
	for (size_t i = 0; i < nlayers; i++)
		if (apply_layer(abi, layers[i], x, opts, stats, err, errsz) != 0)
			return -1;
	return 0;
}

/* Whether kernel strict's expansion refuses writing path: at or beneath a
 * carve-out, a directory along the way to one (it has no rights of its
 * own), or a new entry made directly in such a directory. */
static int strict_refuses_write(const struct jail_policy *p, const char *path)
{
	struct carveouts *cv = NULL;
	char why[PATH_MAX + 200];
	if (find_carveouts(p, &cv, why, sizeof(why)) != 0)
		return 1;
	char parent[PATH_MAX];
	snprintf(parent, sizeof(parent), "%s", path);
	char *slash = strrchr(parent, '/');
	if (slash)
		slash[slash == parent ? 1 : 0] = '\0';
	/* (an existing file there keeps its own write, but a write may be a
	 * removal or a rename, which needs its directory's: refused too) */
	int refused = 0;
	for (size_t i = 0; i < cv->n && !refused; i++)
		refused = strcmp(cv->path[i], path) == 0 || beneath(path, cv->path[i]) || beneath(cv->path[i], path) ||
		          beneath(cv->path[i], parent);
	carve_free(cv);
	return refused;
}

int jail_landlock_grants(const struct jail_policy *p, enum jail_access a, const char *path, unsigned opts)
{
	char prefix[PATH_MAX];
	if (a == JAIL_WRITE && (opts & JAIL_LANDLOCK_WRITE_CARVEOUTS) && strict_refuses_write(p, path))
		return 0;
	if (a == JAIL_READ && !(opts & JAIL_LANDLOCK_READ_DENIES_ELSEWHERE)) {
		/* an expanded tree: the denied path and what lies beneath it */
		for (const char *s = path + strlen(path);; s--) {
			if (s == path || *s == '/') {
				char head[PATH_MAX];
				size_t n = s == path ? 1 : (size_t)(s - path);
				if (n >= sizeof(head))
					return 0;
				memcpy(head, path, n);
				head[n] = '\0';
				if (read_denied(p, head, 0))
					return 0;
				if (s == path)
					break;
			}
		}
	}
	for (uint32_t i = 0; i < jail_rule_count(p); i++) {
		int32_t r = (int32_t)i;
		unsigned acc = jail_rule_access(p, r);
		if (jail_rule_effect(p, r) != JAIL_ALLOW)
			continue;
		if (!(a == JAIL_READ ? (acc & (JAIL_READ | JAIL_WRITE)) != 0 : (acc & (unsigned)a) != 0))
			continue;
		literal_prefix(jail_rule_pattern(p, r), prefix, sizeof(prefix));
		if (strcmp(path, prefix) == 0 || beneath(path, prefix))
			return 1;
	}
	return 0;
}

const char *jail_landlock_rule_scope(const struct jail_policy *p, int32_t r)
{
	const char *pat = jail_rule_pattern(p, r);
	if (jail_rule_effect(p, r) == JAIL_ALLOW)
		return is_literal(pat) ? "kernel+shim" : "kernel (its literal directory)+shim";
	if ((jail_rule_access(p, r) & JAIL_READ) && is_literal(pat))
		return "kernel+shim";
	if ((jail_rule_access(p, r) & JAIL_WRITE) && jail_policy_kernel(p) == JAIL_KERNEL_STRICT)
		return is_literal(pat) ? "kernel (strict: as it exists at start)+shim"
		                       : "kernel (strict: matches within " TEXT_OF(CARVE_DEPTH)
		                         " levels of a writable tree's top, at start)+shim";
	return "shim only";
}
