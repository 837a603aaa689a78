/*
 * exec.c — what the exec hooks need: may this file run in the jail, and the
 * environment that keeps its process in the jail.
 *
 * Invariants:
 *  1. A child always gets the shim first in LD_PRELOAD and this process's
 *     jail variables, whatever environment its caller passed; the only
 *     change a caller may make is to append policy layers to JAIL_BLOB
 *     (a nested jail), which can only narrow.
 *  2. The caller's environment is never modified: the child's is built in
 *     memory mapped for it (vfork children share the parent's memory).
 *     Variables a layer scrubs (`env scrub`) are left out of it, unless the
 *     child is the jailed command itself: its own file (JAIL_AGENT, compared
 *     on the path the exec resolved to, which is then the path executed),
 *     or the command's process replacing itself (JAIL_AGENT_SELF).
 *  3. What the preload cannot follow is refused with a message, not run:
 *     statically linked programs, setuid/setgid programs, and ELF files of
 *     another class or machine (the loader would silently skip the shim).
 */
#define _GNU_SOURCE
#include "shim.h"
#include "os.h"

#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/mman.h>

extern char **environ;

#define MAX_INTERP_DEPTH 4

#if defined(__x86_64__)
#define JAIL_ELF_MACHINE EM_X86_64
#elif defined(__aarch64__)
#define JAIL_ELF_MACHINE EM_AARCH64
#endif

/* ---- environments ---- */

static int has_name(const char *entry, const char *name)
{
	size_t n = strlen(name);
	return strncmp(entry, name, n) == 0 && entry[n] == '=';
}

/* The jail's variables replace the caller's; LD_PRELOAD is rebuilt. Under
 * net rules, the resolver's search and alias variables are dropped: they
 * would make a lookup of an allowed name return another name's addresses,
 * remembered as the allowed one's. */
static int replaced(const char *e)
{
	return has_name(e, "LD_PRELOAD") || has_name(e, "UV_USE_IO_URING") || strncmp(e, "JAIL_", 5) == 0 ||
	       (jail_config()->net_rules && jail_resolver_var(e, strcspn(e, "=")));
}

int jail_resolver_var(const char *name, size_t n)
{
	return (n == 11 && strncmp(name, "LOCALDOMAIN", 11) == 0) || (n == 11 && strncmp(name, "RES_OPTIONS", 11) == 0) ||
	       (n == 11 && strncmp(name, "HOSTALIASES", 11) == 0);
}

/* The caller may append layers: "OWN:more" keeps; anything else is ours. */
static const char *blob_value(const struct jail_config *c, char *const src[])
{
	size_t n = strlen(c->blob_list);
	for (char *const *e = src; e && *e; e++)
		if (has_name(*e, JAIL_ENV_BLOB)) {
			const char *v = *e + strlen(JAIL_ENV_BLOB) + 1;
			if (strncmp(v, c->blob_list, n) == 0 && v[n] == ':' && v[n + 1] != '\0')
				return *e;
		}
	return c->env_blob;
}

/* Appends the caller's LD_PRELOAD entries other than the shim, after it. */
static char *build_preload(char *dst, const struct jail_config *c, char *const src[])
{
	char *p = dst;
	const char *pre = "LD_PRELOAD=";
	memcpy(p, pre, strlen(pre));
	p += strlen(pre);
	memcpy(p, c->shim_path, strlen(c->shim_path));
	p += strlen(c->shim_path);
	for (char *const *e = src; e && *e; e++) {
		if (!has_name(*e, "LD_PRELOAD"))
			continue;
		const char *s = *e + 11;
		while (*s) {
			size_t n = strcspn(s, ": ");
			if (n && !(n == strlen(c->shim_path) && strncmp(s, c->shim_path, n) == 0)) {
				*p++ = ':';
				memcpy(p, s, n);
				p += n;
			}
			s += n;
			if (*s)
				s++;
		}
		break;
	}
	*p++ = '\0';
	return p;
}

size_t jail_forced_env(const struct jail_config *c, const char *out[JAIL_MAX_FORCED])
{
	const char *all[] = {c->env_shim,  c->env_cwd,   c->env_blob,   c->env_policy,       c->env_home,
	                     c->env_tmp,   c->env_quiet, c->env_kernel, c->env_tally, c->env_supervised,
	                     c->env_agent, c->env_proxy, c->env_ask, c->env_ask_wait, "UV_USE_IO_URING=0"};
	size_t n = 0;
	for (size_t i = 0; i < sizeof(all) / sizeof(all[0]); i++)
		if (all[i])
			out[n++] = all[i];
	return n;
}

int jail_is_agent(const char *prog)
{
	const char *a = jail_config()->agent;
	return a && prog && prog[0] == '/' && strcmp(a, prog) == 0;
}

int jail_is_agent_process(void)
{
	long pid = jail_config()->agent_pid;
	return pid && pid == jail_os_getpid();
}

int jail_env_build(char *const envp[], int keep_secrets, struct jail_env *out)
{
	const struct jail_config *c = jail_config();
	char *const *src = envp ? envp : environ;
	size_t n = 0, preload_len = strlen(c->shim_path) + 16;
	for (char *const *e = src; e && *e; e++, n++)
		if (has_name(*e, "LD_PRELOAD"))
			preload_len += strlen(*e);
	size_t len = (n + JAIL_MAX_FORCED + 3) * sizeof(char *) + preload_len;
	void *m = NULL;
	char **v = (char **)(void *)out->inline_buf;
	if (len > sizeof(out->inline_buf)) { /* a large environment: mapped (and leaked by a vfork child's exec) */
		len = (len + 4095) & ~(size_t)4095;
		m = jail_os_mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (m == MAP_FAILED)
			return -ENOMEM;
		v = m;
	}
	char *strings = (char *)(v + n + JAIL_MAX_FORCED + 3);
	size_t k = 0;
	int scrub = c->scrubs && !keep_secrets;
	for (char *const *e = src; e && *e; e++)
		if (!replaced(*e) && !(scrub && jail_env_scrubbed_by(c, *e)))
			v[k++] = *e;
	v[k++] = strings;
	build_preload(strings, c, src);
	const char *forced[JAIL_MAX_FORCED];
	size_t nf = jail_forced_env(c, forced);
	for (size_t i = 0; i < nf; i++)
		v[k++] = (char *)(strncmp(forced[i], JAIL_ENV_BLOB "=", sizeof(JAIL_ENV_BLOB)) == 0
		                      ? blob_value(c, src)
		                      : forced[i]);
	if (keep_secrets) /* the child is the command: it keeps them across its own execs too */
		v[k++] = (char *)JAIL_ENV_AGENT_SELF "=1";
	v[k] = NULL;
	out->envp = v;
	out->map = m;
	out->maplen = len;
	return 0;
}

void jail_env_free(struct jail_env *e)
{
	if (e->map)
		jail_os_munmap(e->map, e->maplen);
	e->map = NULL;
}

/* ---- programs ---- */

/* The interpreter of a "#!" line, into out; 0, or -ENOEXEC for none. */
static int shebang(const char *buf, long n, char *out, size_t outsz)
{
	long i = 2, s;
	while (i < n && (buf[i] == ' ' || buf[i] == '\t'))
		i++;
	s = i;
	while (i < n && buf[i] != ' ' && buf[i] != '\t' && buf[i] != '\n' && buf[i] != '\0')
		i++;
	if (i == s || (size_t)(i - s) >= outsz)
		return -ENOEXEC;
	memcpy(out, buf + s, (size_t)(i - s));
	out[i - s] = '\0';
	return 0;
}

/* Whether the preload can follow this ELF file: 0, or a refusal. It must be
 * of this machine and class, and be loaded by the system's dynamic loader
 * (the one that loaded this process, which honours LD_PRELOAD): a static
 * program, or one whose PT_INTERP names another loader, would run without
 * the shim. The loader itself may run (ldd does): it preloads the shim into
 * the program it loads. */
static int elf_followable(int fd, const unsigned char *buf, long n, const struct stat *st, const char *path,
                          const char *op)
{
	const struct jail_config *c = jail_config();
	if (c->kernel_abi > 0)
		return 0; /* the kernel layer confines what the preload cannot follow */
	if (n < (long)sizeof(Elf64_Ehdr) || buf[EI_CLASS] != (sizeof(void *) == 8 ? ELFCLASS64 : ELFCLASS32))
		return jail_refuse(op, path, "an ELF file of another class: the jail's library cannot load into it");
	const Elf64_Ehdr *eh = (const void *)buf;
	if (eh->e_machine != JAIL_ELF_MACHINE)
		return jail_refuse(op, path, "an ELF file for another machine: the jail cannot follow it");
	if (eh->e_phentsize != sizeof(Elf64_Phdr) || eh->e_phnum == 0 || eh->e_phnum > 256)
		return jail_refuse(op, path, "an ELF file the jail cannot inspect");
	Elf64_Phdr ph[16];
	for (int i = 0; i < eh->e_phnum; i += 16) {
		int k = eh->e_phnum - i < 16 ? eh->e_phnum - i : 16;
		size_t want = (size_t)k * sizeof(Elf64_Phdr);
		if (jail_os_pread(fd, ph, want, (long)(eh->e_phoff + (Elf64_Off)i * sizeof(Elf64_Phdr))) != (long)want)
			return jail_refuse(op, path, "an ELF file the jail cannot inspect");
		for (int j = 0; j < k; j++) {
			if (ph[j].p_type != PT_INTERP)
				continue;
			char interp[256];
			struct stat ist;
			size_t len = ph[j].p_filesz < sizeof(interp) ? ph[j].p_filesz : sizeof(interp) - 1;
			if (jail_os_pread(fd, interp, len, (long)ph[j].p_offset) != (long)len)
				return jail_refuse(op, path, "an ELF file the jail cannot inspect");
			interp[len] = '\0';
			if (jail_os_fstatat(AT_FDCWD, interp, &ist, 0) != 0 || ist.st_dev != c->loader_dev ||
			    ist.st_ino != c->loader_ino)
				return jail_refuse(op, path,
				                   "its program interpreter is not the system's dynamic loader: the jail cannot "
				                   "follow it");
			return 0;
		}
	}
	if (st->st_dev == c->loader_dev && st->st_ino == c->loader_ino)
		return 0; /* the dynamic loader run directly */
	return jail_refuse(op, path, "statically linked: the jail cannot follow it");
}

/* Inspects the program at r->path. Returns 0 when it may run, 1 when it is a
 * #! script whose interpreter has been resolved (and allowed) into *r, or a
 * refusal. */
static int inspect_one(struct jail_resolved *r, const char *op)
{
	unsigned char buf[256];
	char interp[PATH_MAX];
	struct stat st;
	if (r->kind != JAIL_OBJ_PATH)
		return jail_refuse(op, r->path, "an anonymous file cannot be executed in the jail");
	if (r->deleted)
		return jail_refuse(op, r->path, "a deleted file cannot be executed in the jail");
	long fd = jail_os_open_checked(AT_FDCWD, r->path, O_RDONLY | O_CLOEXEC | O_NOCTTY, 0);
	if (fd == -ENOSYS)
		fd = jail_os_openat(AT_FDCWD, r->path, O_RDONLY | O_CLOEXEC | O_NOCTTY, 0);
	if (fd < 0)
		return fd == -ENOENT || fd == -ENOTDIR ? (int)fd
		                                       : jail_refuse(op, r->path, "the jail cannot read it to inspect it");
	int rc = 0;
	long n = jail_os_fstat((int)fd, &st) == 0 ? jail_os_pread((int)fd, buf, sizeof(buf), 0) : -1;
	if (n < 0)
		rc = jail_refuse(op, r->path, "the jail cannot read it to inspect it");
	else if (S_ISREG(st.st_mode) && (st.st_mode & (S_ISUID | S_ISGID)) && (st.st_mode & 0111))
		rc = jail_refuse(op, r->path, "setuid/setgid: the jail cannot follow it");
	else if (jail_config()->kernel_abi == 0 && jail_os_fgetxattr((int)fd, "security.capability", NULL, 0) >= 0)
		rc = jail_refuse(op, r->path, "it has file capabilities: the loader would ignore the jail's library");
	else if (n >= 4 && memcmp(buf, ELFMAG, SELFMAG) == 0)
		rc = elf_followable((int)fd, buf, n, &st, r->path, op);
	else if (n >= 2 && buf[0] == '#' && buf[1] == '!' && shebang((const char *)buf, n, interp, sizeof(interp)) == 0)
		rc = 1;
	jail_os_close((int)fd);
	if (rc == 1) {
		rc = jail_check_path(AT_FDCWD, interp, JAIL_EXEC, 0, op, r);
		return rc ? rc : 1;
	}
	return rc;
}

int jail_check_exec(int dirfd, const char *path, int flags, const char *op, char prog[PATH_MAX])
{
	struct jail_resolved r;
	struct stat st;
	unsigned rf = ((flags & AT_SYMLINK_NOFOLLOW) ? JAIL_RES_NOFOLLOW : 0) |
	              ((flags & AT_EMPTY_PATH) ? JAIL_RES_EMPTY_PATH : 0);
	if (path == NULL && !(rf & JAIL_RES_EMPTY_PATH))
		return -EFAULT; /* the kernel's answer; nothing was resolved into r */
	int rc = jail_check_path(dirfd, path, JAIL_EXEC, rf, op, &r);
	if (prog) {
		size_t n = strlen(r.path);
		int usable = rc == 0 && r.kind == JAIL_OBJ_PATH && !r.deleted && r.path[0] == '/' && n < PATH_MAX;
		memcpy(prog, usable ? r.path : "", usable ? n + 1 : 1);
	}
	/* the child must find the shim where LD_PRELOAD says, or it runs unjailed */
	if (rc == 0 && jail_os_fstatat(AT_FDCWD, jail_config()->shim_path, &st, 0) != 0)
		return jail_refuse(op, path, "the jail's library is gone from where children would load it");
	/* a #! chain, interpreter by interpreter, to four levels as the kernel */
	for (int depth = 0; rc == 0; depth++) {
		rc = inspect_one(&r, op);
		if (rc != 1)
			return rc;
		rc = depth < MAX_INTERP_DEPTH ? 0 : -ELOOP;
	}
	return rc;
}

/* ---- PATH search, as execvp(3) does it ---- */

static const char *env_path(void)
{
	for (char **e = environ; e && *e; e++)
		if (has_name(*e, "PATH"))
			return *e + 5;
	return "/bin:/usr/bin";
}

int jail_path_search(const char *file, char *out, size_t outsz, int (*try_fn)(const char *path, void *ctx),
                     void *ctx)
{
	const char *p = env_path();
	size_t flen = strlen(file);
	int seen_eacces = 0;
	if (flen == 0)
		return -ENOENT;
	for (;;) {
		const char *e = strchr(p, ':');
		size_t dlen = e ? (size_t)(e - p) : strlen(p);
		if (dlen + flen + 2 <= outsz) {
			size_t k = 0;
			if (dlen) {
				memcpy(out, p, dlen);
				k = dlen;
				out[k++] = '/';
			}
			memcpy(out + k, file, flen + 1);
			int rc = try_fn(out, ctx);
			if (rc == 0)
				return 0;
			if (rc == -EACCES)
				seen_eacces = 1;
			else if (rc != -ENOENT && rc != -ENOTDIR && rc != -ESTALE && rc != -ENODEV && rc != -ETIMEDOUT)
				return rc;
		}
		if (!e)
			break;
		p = e + 1;
	}
	return seen_eacces ? -EACCES : -ENOENT;
}
