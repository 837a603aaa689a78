/*
 * state.c — the jail's configuration: loaded once per process, then frozen.
 *
 * Where it comes from, in order:
 *   JAIL_BLOB    compiled policies written by jailrun (mapped read-only; no
 *                parsing at start-up). Several, ':'-separated, are layers:
 *                every layer must allow (a nested jail can only narrow).
 *   JAIL_POLICY  policy files, parsed here (a plain LD_PRELOAD without jailrun)
 *   neither      the built-in default policy.
 *
 * Invariants:
 *  1. Loaded by the constructor, or by the first hook that runs before it
 *     (another library's constructor). Racing loaders each build a private
 *     copy and publish it with one compare-and-swap; losers discard theirs.
 *  2. Once published, the configuration lives in memory made read-only; it is
 *     never changed or freed, so hooks read it without locks.
 *  3. A policy that cannot be loaded ends the process with status 125 and
 *     one line "jail: FILE:LINE:COLUMN: message" — never a run unconfined.
 *  4. Loading reads files with raw system calls only (os.h), so it never
 *     re-enters the shim's own hooks.
 */
#define _GNU_SOURCE
#include "shim.h"
#include "os.h"

#include <dlfcn.h>
#include <link.h>
#include <errno.h>
#include <fcntl.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

extern char **environ;

#define ARENA_SIZE (1u << 20)
/* The arena's last 16 KiB: scratch space for resolving paths while loading
 * (racing loaders each have their own arena; nothing static is shared). */
#define ARENA_SCRATCH (ARENA_SIZE - 16384)
_Static_assert(sizeof(struct jail_resolved) <= 16384, "scratch space holds one resolution");

static _Atomic(struct jail_config *) published;

struct arena {
	char *base;
	size_t used;
};

__attribute__((noreturn)) static void fatal(const char *a, const char *b, const char *c)
{
	char line[4096];
	struct jail_buf m = {line, 0, sizeof(line)};
	jail_put(&m, "jail: ");
	jail_put(&m, a);
	jail_put(&m, b ? b : "");
	jail_put(&m, c ? c : "");
	jail_put(&m, "\n");
	jail_os_write(2, m.b, m.n);
	jail_os_exit(125);
}

static char *arena_dup(struct arena *a, const char *s1, const char *s2)
{
	size_t l1 = strlen(s1), l2 = s2 ? strlen(s2) : 0;
	if (a->used + l1 + l2 + 1 > ARENA_SCRATCH)
		fatal("the jail's configuration is too large", NULL, NULL);
	char *d = a->base + a->used;
	memcpy(d, s1, l1);
	if (l2)
		memcpy(d + l1, s2, l2);
	d[l1 + l2] = '\0';
	a->used += l1 + l2 + 1;
	return d;
}

/* getenv(3) reads environ without locks too; this one is ours to rely on. */
static const char *env(const char *name)
{
	size_t n = strlen(name);
	for (char **e = environ; e && *e; e++)
		if (strncmp(*e, name, n) == 0 && (*e)[n] == '=')
			return *e + n + 1;
	return NULL;
}

static void protect_one(struct jail_config *c, struct arena *a, const char *path)
{
	for (int i = 0; i < c->nprotected; i++)
		if (strcmp(c->protected_path[i], path) == 0)
			return;
	if (c->nprotected == JAIL_MAX_PROTECTED)
		fatal("too many policy files to protect (at most 512)", NULL, NULL);
	c->protected_path[c->nprotected++] = arena_dup(a, path, NULL);
}

/* A file of the jail's own, under its name as given and its canonical name
 * (a symlinked directory on the way must not be a second door to it). */
static void protect(struct jail_config *c, struct arena *a, const char *path)
{
	struct jail_resolved *r = (void *)(a->base + ARENA_SCRATCH);
	if (!path || path[0] != '/')
		return;
	protect_one(c, a, path);
	int rc = jail_resolve(AT_FDCWD, path, 0, r);
	if ((rc == 0 || rc == -ENOENT) && r->kind == JAIL_OBJ_PATH && r->path[0] == '/')
		protect_one(c, a, r->path);
}

/* The policy's own files, its log, and (for a blob) the blob and the
 * directory jailrun made for it: none of them writable from inside. */
static void protect_policy(struct jail_config *c, struct arena *a, const struct jail_policy *p)
{
	for (uint32_t i = 0; i < jail_policy_file_count(p); i++)
		protect(c, a, jail_policy_file(p, i));
	protect(c, a, jail_policy_log(p));
}

static const struct jail_policy *map_blob(const char *path)
{
	struct stat st;
	long fd = jail_os_openat(AT_FDCWD, path, O_RDONLY | O_CLOEXEC, 0);
	if (fd < 0)
		fatal(path, ":1:1: cannot read the compiled policy: ", strerror((int)-fd));
	if (jail_os_fstat((int)fd, &st) != 0 || st.st_size <= 0) {
		jail_os_close((int)fd);
		fatal(path, ":1:1: the compiled policy is empty or unreadable", NULL);
	}
	void *m = jail_os_mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, (int)fd, 0);
	jail_os_close((int)fd);
	if (m == MAP_FAILED)
		fatal(path, ":1:1: cannot map the compiled policy", NULL);
	const struct jail_policy *p = jail_policy_from_blob(m, (size_t)st.st_size);
	if (!p)
		fatal(path, ":1:1: not a valid compiled policy (rebuild it with jailrun)", NULL);
	return p;
}

/* A policy compiled in this process moves from the heap into its own
 * read-only mapping, like a blob jailrun compiled: it lives as long as the
 * process, and nothing in the process can change it afterwards. */
static const struct jail_policy *seal(struct jail_policy *p)
{
	size_t size;
	const void *blob = jail_policy_blob(p, &size);
	void *m = jail_os_mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (m == MAP_FAILED)
		fatal("cannot map memory for the policy", NULL, NULL);
	memcpy(m, blob, size);
	jail_policy_free(p);
	if (jail_os_mprotect(m, size, PROT_READ) != 0)
		fatal("cannot seal the policy read-only", NULL, NULL);
	const struct jail_policy *sealed = jail_policy_from_blob(m, size);
	if (!sealed)
		fatal("the policy did not survive sealing", NULL, NULL);
	return sealed;
}

static void load_blobs(struct jail_config *c, struct arena *a, const char *list)
{
	char path[PATH_MAX];
	const char *s = list;
	while (*s) {
		const char *e = strchr(s, ':');
		size_t n = e ? (size_t)(e - s) : strlen(s);
		if (n > 0) {
			if (n >= sizeof(path) || c->nlayers == JAIL_MAX_LAYERS)
				fatal(JAIL_ENV_BLOB, ": too many layers or too long a path", NULL);
			memcpy(path, s, n);
			path[n] = '\0';
			const struct jail_policy *p = map_blob(path);
			c->layer[c->nlayers++] = p;
			protect(c, a, path);
			char *slash = strrchr(path, '/');
			if (slash && slash != path) {
				*slash = '\0';
				const char *base = strrchr(path, '/');
				if (base && strncmp(base + 1, "jail.", 5) == 0)
					protect(c, a, path); /* the runtime directory jailrun made */
			}
			protect_policy(c, a, p);
		}
		if (!e)
			break;
		s = e + 1;
	}
	if (c->nlayers == 0)
		fatal(JAIL_ENV_BLOB, " is set but names no policy", NULL);
}

/* A jail_read_fn on raw system calls (invariant 4). */
static int raw_read(const char *path, char **text, size_t *len, unsigned long long id[2])
{
	struct stat st;
	long fd = jail_os_openat(AT_FDCWD, path, O_RDONLY | O_CLOEXEC | O_NOCTTY, 0);
	if (fd < 0)
		return (int)fd;
	long rc = jail_os_fstat((int)fd, &st);
	if (rc == 0 && !S_ISREG(st.st_mode))
		rc = -EINVAL;
	if (rc == 0 && st.st_size > (64 << 20))
		rc = -EFBIG;
	char *buf = rc == 0 ? malloc((size_t)st.st_size + 1) : NULL;
	size_t n = 0;
	if (rc == 0 && !buf)
		rc = -ENOMEM;
	while (rc == 0 && n < (size_t)st.st_size) {
		long r = jail_os_read((int)fd, buf + n, (size_t)st.st_size - n);
		if (r == -EINTR)
			continue;
		if (r <= 0) {
			rc = r < 0 ? r : 0;
			break;
		}
		n += (size_t)r;
	}
	jail_os_close((int)fd);
	if (rc) {
		free(buf);
		return (int)rc;
	}
	buf[n] = '\0';
	*text = buf;
	*len = n;
	id[0] = st.st_dev;
	id[1] = st.st_ino;
	return 0;
}

/* Parsed policies (no jailrun): the variables are fixed when the jail
 * starts and passed to every child (JAIL_HOME, JAIL_TMP, absolute
 * JAIL_POLICY), so a child with another HOME or TMPDIR, or in another
 * directory, reads the same policy the same way. */
static void load_text(struct jail_config *c, struct arena *a, const char *list, const char *cwd)
{
	struct jail_source src[JAIL_MAX_LAYERS];
	size_t nsrc = 0;
	struct jail_load_opts o = {.canon = jail_canon_existing, .read = raw_read};
	const char *home = env(JAIL_ENV_HOME), *tmp = env(JAIL_ENV_TMP);
	if (!home) {
		home = env("HOME");
		tmp = env("TMPDIR");
		tmp = (tmp && tmp[0] == '/') ? tmp : "/tmp";
	}
	o.vars.home = home;
	o.vars.cwd = cwd;
	o.vars.tmp = tmp && tmp[0] == '/' ? tmp : "/tmp";
	c->env_home = arena_dup(a, JAIL_ENV_HOME "=", home ? home : "");
	c->env_tmp = arena_dup(a, JAIL_ENV_TMP "=", o.vars.tmp);
	if (list && *list) {
		char *copy = arena_dup(a, list, NULL);
		char joined[4 * PATH_MAX], absname[2 * PATH_MAX];
		struct jail_buf j = {joined, 0, sizeof(joined)};
		jail_put(&j, JAIL_ENV_POLICY "=");
		for (char *s = copy; s && *s && nsrc < JAIL_MAX_LAYERS;) {
			char *e = strchr(s, ':');
			if (e)
				*e = '\0';
			if (*s) {
				const char *name = s;
				if (s[0] != '/') { /* relative to where the jail started */
					struct jail_buf nb = {absname, 0, sizeof(absname)};
					jail_put(&nb, cwd);
					jail_put(&nb, "/");
					jail_put(&nb, s);
					name = arena_dup(a, absname, NULL);
				}
				src[nsrc++] = (struct jail_source){.name = name};
				if (j.n > strlen(JAIL_ENV_POLICY) + 1)
					jail_put(&j, ":");
				jail_put(&j, name);
			}
			s = e ? e + 1 : NULL;
		}
		c->env_policy = arena_dup(a, joined, NULL);
	}
	if (nsrc == 0)
		src[nsrc++] = (struct jail_source){.name = "<no policy given>", .text = "include default\n"};
	struct jail_policy *p = NULL;
	struct jail_error err;
	if (jail_policy_load(&o, src, nsrc, &p, &err) != 0) {
		char msg[2048];
		jail_error_format(&err, msg, sizeof(msg));
		fatal(msg, NULL, NULL);
	}
	const struct jail_policy *sealed = seal(p);
	c->layer[c->nlayers++] = sealed;
	for (size_t i = 0; i < nsrc; i++)
		protect(c, a, src[i].text ? NULL : src[i].name);
	protect_policy(c, a, sealed);
}

/* path's canonical name, or NULL when it has none. */
static const char *canonical(struct arena *a, const char *path)
{
	struct jail_resolved *r = (void *)(a->base + ARENA_SCRATCH);
	int rc = jail_resolve(AT_FDCWD, path, 0, r);
	return rc == 0 && r->kind == JAIL_OBJ_PATH && r->path[0] == '/' ? arena_dup(a, r->path, NULL) : NULL;
}

static const char *shim_path(struct arena *a)
{
	const char *s = env(JAIL_ENV_SHIM);
	Dl_info info;
	if (s && s[0] == '/')
		return arena_dup(a, s, NULL);
	if (dladdr((void *)jail_config, &info) && info.dli_fname && info.dli_fname[0]) {
		struct jail_resolved *r = (void *)(a->base + ARENA_SCRATCH);
		if (info.dli_fname[0] == '/')
			return arena_dup(a, info.dli_fname, NULL);
		if (jail_resolve(AT_FDCWD, info.dli_fname, 0, r) == 0)
			return arena_dup(a, r->path, NULL);
	}
	fatal("cannot find the path of libjail.so (set ", JAIL_ENV_SHIM, ")");
}

/* The dynamic loader that loaded this process (it defines _r_debug): the
 * only program interpreter known to honour LD_PRELOAD. */
static void find_loader(struct jail_config *c)
{
	Dl_info info;
	struct stat st;
	if (dladdr((void *)&_r_debug, &info) && info.dli_fname &&
	    jail_os_fstatat(AT_FDCWD, info.dli_fname, &st, 0) == 0) {
		c->loader_dev = st.st_dev;
		c->loader_ino = st.st_ino;
	}
}

static struct jail_config *load(void)
{
	/* first, so that under a supervisor even the loading is not supervised
	 * (a taken address only makes the shim's calls slower: supervised) */
	jail_os_syscall_page();
	void *m = jail_os_mmap(NULL, ARENA_SIZE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (m == MAP_FAILED)
		fatal("cannot map memory for the jail's configuration", NULL, NULL);
	struct arena a = {m, sizeof(struct jail_config)};
	struct jail_config *c = m;
	char cwdbuf[PATH_MAX];
	const char *cwd = env(JAIL_ENV_CWD);

	if (!cwd || cwd[0] != '/') {
		long n = jail_os_getcwd(cwdbuf, sizeof(cwdbuf));
		if (n <= 0 || cwdbuf[0] != '/')
			fatal("cannot determine the current directory for {cwd}", NULL, NULL);
		cwd = cwdbuf;
	}
	c->env_cwd = arena_dup(&a, JAIL_ENV_CWD "=", cwd);
	c->shim_path = shim_path(&a);
	if (strpbrk(c->shim_path, " \t:"))
		fatal(c->shim_path, ": the jail cannot preload its library from a path with a space, tab or colon", NULL);
	c->env_shim = arena_dup(&a, JAIL_ENV_SHIM "=", c->shim_path);
	protect(c, &a, c->shim_path);
	c->shim_real = canonical(&a, c->shim_path);
	find_loader(c);

	/* Set by jailrun's launcher after it restricted itself with Landlock;
	 * children cannot change it (the exec hooks force it, setenv keeps it),
	 * and a Landlock domain, once entered, is never left. */
	const char *kernel = env(JAIL_ENV_KERNEL);
	if (kernel && atoi(kernel) > 0) {
		c->kernel_abi = atoi(kernel);
		c->env_kernel = arena_dup(&a, JAIL_ENV_KERNEL "=", kernel);
	}
	const char *supervised = env(JAIL_ENV_SUPERVISED);
	if (supervised && strcmp(supervised, "1") == 0)
		c->env_supervised = JAIL_ENV_SUPERVISED "=1";
	const char *quiet = env(JAIL_ENV_QUIET), *tally = env(JAIL_ENV_TALLY);
	if (quiet && strcmp(quiet, "1") == 0) {
		c->quiet = 1;
		c->env_quiet = arena_dup(&a, JAIL_ENV_QUIET "=1", NULL);
	}
	if (tally && tally[0] == '/') {
		c->tally = arena_dup(&a, tally, NULL);
		c->env_tally = arena_dup(&a, JAIL_ENV_TALLY "=", tally);
	}

	const char *blobs = env(JAIL_ENV_BLOB);
	if (blobs && *blobs) {
		load_blobs(c, &a, blobs);
		c->blob_list = arena_dup(&a, blobs, NULL);
		c->env_blob = arena_dup(&a, JAIL_ENV_BLOB "=", blobs);
	} else {
		load_text(c, &a, env(JAIL_ENV_POLICY), cwd);
	}
	const char *ask = env(JAIL_ENV_ASK), *ask_wait = env(JAIL_ENV_ASK_WAIT);
	if (ask && ask[0] == '/') {
		c->ask_path = arena_dup(&a, ask, NULL);
		c->env_ask = arena_dup(&a, JAIL_ENV_ASK "=", ask);
		if (ask_wait && atoi(ask_wait) > 0) {
			c->ask_wait = atoi(ask_wait);
			c->env_ask_wait = arena_dup(&a, JAIL_ENV_ASK_WAIT "=", ask_wait);
		}
	}
	/* the jail's own proxy: "IPV4:PORT" */
	const char *proxy = env(JAIL_ENV_PROXY);
	const char *colon = proxy ? strrchr(proxy, ':') : NULL;
	if (colon && colon - proxy < 40 && atoi(colon + 1) > 0 && atoi(colon + 1) < 65536) {
		char host[40];
		memcpy(host, proxy, (size_t)(colon - proxy));
		host[colon - proxy] = '\0';
		if (jail_addr_parse(host, c->proxy_addr) == 0) {
			c->proxy_port = (unsigned)atoi(colon + 1);
			c->env_proxy = arena_dup(&a, JAIL_ENV_PROXY "=", proxy);
		}
	}
	const char *self = env(JAIL_ENV_AGENT_SELF);
	if (self && strcmp(self, "1") == 0)
		c->agent_pid = jail_os_getpid(); /* a forked child has another pid: it is not the command */
	const char *agent = env(JAIL_ENV_AGENT);
	if (agent && agent[0] == '/') {
		c->agent = arena_dup(&a, agent, NULL);
		c->env_agent = arena_dup(&a, JAIL_ENV_AGENT "=", agent);
	}
	for (int i = 0; i < c->nlayers; i++) {
		c->scrubs |= jail_policy_scrubs(c->layer[i]);
		c->net_rules |= jail_policy_has_net_rules(c->layer[i]);
	}
	mprotect(m, ARENA_SIZE, PROT_READ);
	/* A process that holds what the jail scrubs (the jailed command) keeps
	 * it from its own children's reach: they run as the same user. Not
	 * under a supervisor, which reads callers' memory as that user. */
	if (c->scrubs && !c->env_supervised)
		for (char **e = environ; e && *e; e++)
			if (jail_env_scrubbed_by(c, *e)) {
				jail_os_set_private();
				break;
			}
	return c;
}

const struct jail_config *jail_config(void)
{
	struct jail_config *c = atomic_load_explicit(&published, memory_order_acquire);
	if (c)
		return c;
	struct jail_config *mine = load(), *expected = NULL;
	if (atomic_compare_exchange_strong_explicit(&published, &expected, mine, memory_order_acq_rel,
	                                            memory_order_acquire))
		return mine;
	jail_os_munmap(mine, ARENA_SIZE); /* another thread (or handler) won the race */
	return expected;
}
