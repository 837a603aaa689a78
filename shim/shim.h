/*
 * shim.h — what the shim's modules share (private to libjail.so).
 *
 *   state.c       the jail's configuration: policy layers, protected files,
 *                 the variables children inherit; loaded once, then frozen
 *   check.c       resolve → decide → report: the one gate every hook uses
 *   hooks.c       the generated wrappers of hooks.def and real-symbol lookup
 *   hooks_open.c  open, stdio and temp-file hooks (act on the checked object)
 *   hooks_exec.c  exec and spawn hooks (the jail follows every child)
 *   exec.c        what exec needs: program inspection, child environments
 *   detour_linux.c  routes glibc's own internal opens to the shim (detours.def)
 *
 * Invariants for everything reachable from a hook:
 *  1. No malloc, no stdio, no locks; async-signal-safe system calls only,
 *     made through os.h, so errno is the caller's until the hook's edge.
 *  2. Internal functions return 0 or -errno; a hook converts once, at its edge.
 *  3. Fail closed: a jail that cannot be configured ends the process (125)
 *     before any hooked call proceeds.
 */
#ifndef JAIL_SHIM_H
#define JAIL_SHIM_H

#include "policy.h"
#include "resolve.h"

#include <stddef.h>
#include <stdint.h>

#define JAIL_EXPORT __attribute__((visibility("default")))

#define JAIL_MAX_LAYERS 8
#define JAIL_MAX_PROTECTED 512

/* Environment variables that carry the jail from a process to its children. */
#define JAIL_ENV_BLOB "JAIL_BLOB"     /* ':'-separated compiled policies (layers, outermost first) */
#define JAIL_ENV_POLICY "JAIL_POLICY" /* ':'-separated policy files, when there is no blob */
#define JAIL_ENV_CWD "JAIL_CWD"       /* {cwd}: where the jail started */
#define JAIL_ENV_SHIM "JAIL_SHIM"     /* this library's path, kept first in LD_PRELOAD */
#define JAIL_ENV_HOME "JAIL_HOME"     /* ~ and {home}, fixed when a parsed policy's jail started */
#define JAIL_ENV_TMP "JAIL_TMP"       /* {tmp}, likewise */
#define JAIL_ENV_KERNEL "JAIL_KERNEL"   /* the Landlock ABI the jail is restricted with, when it is */
#define JAIL_ENV_QUIET "JAIL_QUIET"   /* "1": no "jail: denied" lines on stderr */
#define JAIL_ENV_TALLY "JAIL_TALLY"   /* a file jailrun counts denials in (one byte each) */
#define JAIL_ENV_SUPERVISED "JAIL_SUPERVISED" /* "1": a supervisor serves this jail (a jail inside starts its own) */
#define JAIL_ENV_ASK "JAIL_ASK"       /* ask mode: the socket of jailrun's broker, who asks the user */
#define JAIL_ENV_ASK_WAIT "JAIL_ASK_WAIT" /* seconds a question may wait (queue and answer) before it is no */
#define JAIL_ENV_PROXY "JAIL_PROXY"   /* ADDRESS:PORT of the jail's own proxy, always reachable */
#define JAIL_ENV_AGENT "JAIL_AGENT"   /* the jailed command's canonical path: it and its re-execs keep their secrets */
#define JAIL_ENV_AGENT_SELF "JAIL_AGENT_SELF" /* "1": this process was started as the jailed command */

struct jail_config {
	int nlayers;
	const struct jail_policy *layer[JAIL_MAX_LAYERS];
	int nprotected;
	const char *protected_path[JAIL_MAX_PROTECTED]; /* never writable from inside */
	/* "NAME=value" strings every child gets, whatever its caller passed */
	const char *env_blob, *env_policy, *env_cwd, *env_shim, *env_quiet, *env_tally, *env_home, *env_tmp;
	int quiet;
	const char *tally;
	unsigned long long loader_dev, loader_ino; /* the dynamic loader that loaded this process */
	int kernel_abi; /* > 0: a Landlock domain confines every process of the jail */
	const char *env_kernel;
	const char *env_supervised;
	const char *blob_list; /* the value of JAIL_BLOB, for the nesting check */
	const char *shim_path;
	const char *shim_real; /* its canonical name (NULL: none), readable to every process of the jail */
	int scrubs;           /* some layer has an `env scrub` rule */
	int net_rules;        /* some layer has a `net` rule: the resolver's variables are the jail's */
	const char *ask_path; /* JAIL_ASK: the broker's socket (ask mode), or NULL */
	long ask_wait;        /* JAIL_ASK_WAIT: seconds a question may wait for its answer (0: no limit) */
	const char *env_ask, *env_ask_wait;
	unsigned proxy_port;  /* JAIL_PROXY: the jail's own proxy (0: none) */
	uint8_t proxy_addr[16];
	const char *env_proxy;
	const char *agent;    /* JAIL_AGENT's value, or NULL */
	long agent_pid;       /* this process's pid when it was started as the jailed command (JAIL_AGENT_SELF), else 0 */
	const char *env_agent;
};

/* state.c: the configuration, loading it first if needed (exits 125 when it
 * cannot be loaded). Never NULL. */
const struct jail_config *jail_config(void);

/* check.c: decides `a` on the object (dirfd, path) names, reporting a
 * refusal; 0 to go ahead, -EACCES, or the resolver's -errno (the error the
 * kernel would give). When r is not NULL it receives the resolution. */
int jail_check_path(int dirfd, const char *path, enum jail_access a, unsigned rflags, const char *op,
                    struct jail_resolved *r);

/* check.c: a path socket address (AF_UNIX, not abstract) needs write on
 * its path, so a container engine's socket outside the grants cannot be
 * reached. 0 for other addresses. */
int jail_check_unix(const void *addr, unsigned len, unsigned rflags, const char *op);

/* net.c: a socket address: a path socket as jail_check_unix; an IPv4 or
 * IPv6 address by every layer's net rules (and the names it was resolved
 * from); anything else 0. */
int jail_check_sockaddr(const void *addr, unsigned len, unsigned rflags, int sending, const char *op);
int jail_check_inet(const void *addr, unsigned len, int sending, const char *op);
/* The same for a call the library decided already, in a process whose
 * names the caller does not know (the supervisor, for a connect from the
 * shim's syscall page): only an address rule refuses it. */
int jail_check_inet_rules(const void *addr, unsigned len, int sending, const char *op);

/* net.c: a socket address copied into *copy (zero-filled), so that what is
 * decided is what the real call gets (another thread may change the
 * caller's memory in between). 0, or -EINVAL when longer than any address. */
struct sockaddr_storage;
int jail_sockaddr_copy(const void *addr, unsigned len, struct sockaddr_storage *copy);

/* net.c: a TCP connect the kernel layer will refuse (its port bound, see
 * landlock_linux.c), refused here first with a message; 0 otherwise. */
int jail_check_kernel_port(int fd, const void *addr, unsigned len, const char *op);

/* net.c: may `name` be resolved? 0, or -EACCES after a report. A numeric
 * address is 0 (decided when connected to). */
int jail_check_resolve(const char *name, const char *op);

/* net.c: remembers that name resolved to sa's address (IPv4 or IPv6). */
struct sockaddr;
void jail_net_remember(const char *name, const struct sockaddr *sa);

/* check.c: reports a network refusal: "jail: VERB ACCESS SUBJECT (WHY)"
 * on stderr, the tally and the log line. */
void jail_report_net(const struct jail_policy *p, const char *verb, const char *access, const char *op,
                     const char *subject, const char *why);

/* check.c: a rename: both names need write, and when a directory moves,
 * everything beneath it must be writable where it is and where it will be
 * (subtree.c), both ways for RENAME_EXCHANGE. */
int jail_check_rename(int da, const char *a, int db, const char *b, unsigned flags, const char *op);

/* check.c: jail_check_rename that also gives the resolved source (src) and
 * destination (r->path), for a caller that then makes the call itself on
 * them (the supervisor). Both are filled only when it returns 0 and both
 * names resolved to paths (r->kind). */
int jail_check_rename_to(int da, const char *a, int db, const char *b, unsigned flags, const char *op,
                         char src[PATH_MAX], struct jail_resolved *r);

/* check.c: whom reports speak for (the supervisor sets the caller, and a
 * function that names it when a log line is written; 0/NULL: this
 * process), and whether to leave stderr alone. */
void jail_report_for(long pid, const char *(*program)(long pid), int silent);

/* subtree.c: every entry beneath directory `src` must be writable there and
 * at the same place beneath `dst`. 0 when src is not a directory. */
int jail_check_move(const char *src, const char *dst, const char *op);

/* check.c: decides `a` on the object an open fd refers to. */
int jail_check_fd(int fd, enum jail_access a, const char *op);

/* check.c: 1 when every layer allows `a` on this absolute, normalized path
 * and it is not one of the jail's own files (for writes); no report. For
 * fast routes that prove afterwards that the path was the object. */
int jail_allowed_quietly(const char *path, enum jail_access a);

/* check.c: decides `a` on an already resolved object. */
int jail_check_resolved(const struct jail_resolved *r, enum jail_access a, const char *op);

/* check.c: reports a refusal that is not a policy decision (a static binary,
 * an anonymous executable): "jail: refused OP PATH (why)". */
int jail_refuse(const char *op, const char *path, const char *why);

/* check.c: the access an open(2) with these flags needs. */
enum jail_access jail_open_access(int flags);

/* hooks.c: the real function behind a hooked name. */
void *jail_real(int id);

/* glibc's headers mark some parameters nonnull that callers may pass as
 * NULL; a hook hides the pointer from the optimizer before testing it. */
static inline const void *jail_launder(const void *p)
{
	__asm__("" : "+r"(p));
	return p;
}

/* The hook ids, from hooks.def. */
enum jail_hook_id {
#define JAIL_HOOK(ret, name, params, args, fail, check) JAIL_ID_##name,
#define JAIL_DIRECT(ret, name, params, fail, check, call) JAIL_ID_##name,
#define JAIL_CUSTOM(ret, name, params) JAIL_ID_##name,
#include "hooks.def"
#undef JAIL_HOOK
#undef JAIL_DIRECT
#undef JAIL_CUSTOM
	JAIL_NHOOKS
};

/* Calls the real `name` with its own prototype. */
#define JAIL_REAL(ret, name, params) ((ret(*) params)jail_real(JAIL_ID_##name))

/* exec.c: an environment for a child: the caller's envp (or environ when
 * NULL) with the jail's variables forced and the shim first in LD_PRELOAD.
 * Built in the struct itself (on the caller's stack: a vfork child's exec
 * then leaves nothing behind in the parent), or mapped when larger;
 * jail_env_free() unmaps it. */
struct jail_env {
	char **envp;
	void *map;
	size_t maplen;
	_Alignas(void *) char inline_buf[8192];
};
int jail_env_build(char *const envp[], int keep_secrets, struct jail_env *out);

/* exec.c: 1 when the program at `prog` (a canonical path, as resolved) is
 * the jailed command's own file: its re-executions keep the variables the
 * policy scrubs from everything else the jail starts. */
int jail_is_agent(const char *prog);

/* exec.c: 1 when this process is the jailed command (started as it, and
 * not a child forked since): an exec that replaces it (a #! script's
 * `/usr/bin/env node`, say) is still the command. */
int jail_is_agent_process(void);

/* check.c: 1 when some layer of c scrubs the variable of this "NAME=value"
 * entry from the environments of the programs the jail starts. */
int jail_env_scrubbed_by(const struct jail_config *c, const char *entry);

/* check.c: reading or writing another process's memory (process_vm_readv
 * and writev) is refused in a jail that scrubs the environment: the
 * jailed command's secrets are there. 0 or -EACCES. */
int jail_check_peer(long pid, const char *op);

/* exec.c: LOCALDOMAIN, RES_OPTIONS or HOSTALIASES (n: the name's length):
 * the resolver's variables, which a jail with net rules does not pass on
 * nor let be set. */
int jail_resolver_var(const char *name, size_t n);

/* exec.c: the "NAME=value" strings every child gets (LD_PRELOAD aside),
 * in one list for the exec hooks and clearenv alike. */
#define JAIL_MAX_FORCED 16
size_t jail_forced_env(const struct jail_config *c, const char *out[JAIL_MAX_FORCED]);
void jail_env_free(struct jail_env *e);

/* exec.c: checks that `path` may be executed: exec access to it (and to its
 * #! interpreter, to four levels), and that the shim can follow it (not
 * static, not setuid/setgid, an ELF of this machine). 0 or -errno. When
 * prog is not NULL it receives the program's resolved path ("" when it
 * has none: an anonymous or deleted file). */
int jail_check_exec(int dirfd, const char *path, int flags, const char *op, char prog[PATH_MAX]);

/* exec.c: finds `file` along PATH as execvp does; 0 and the path in out, or
 * -errno. Decides nothing. */
int jail_path_search(const char *file, char *out, size_t outsz, int (*try_fn)(const char *path, void *ctx),
                     void *ctx);

/* detour_linux.c: routes the C library's own calls of detours.def's
 * functions to the shim's (constructor only: see its invariants). The
 * number of rows applied. */
int jail_detour_install(void);
/* detour_linux.c: nonzero once glibc's own opens (__open_nocancel) reach
 * jail_libc_open, so a hook whose libc function opens through it need not
 * decide the path first (it would be decided twice). */
int jail_detoured(void);
/* hooks_open.c: the replacement for glibc's __open_nocancel. */
int jail_libc_open(const char *path, int flags, ...);
/* hooks_open.c: nonzero when glibc's internal open, in this thread, is
 * decided by jail_libc_open (see there). */
int jail_libc_checks(void);
/* hooks_exec.c: while this thread is in the C library's posix_spawn, its
 * thread id (else 0). glibc's child shares the thread's memory and TLS and
 * opens the file actions' paths on a small stack of its own. */
extern __thread long jail_spawner;

/* small, allocation-free string helpers (check.c) */
struct jail_buf {
	char *b;
	size_t n, cap;
};
void jail_put(struct jail_buf *b, const char *s);
void jail_putn(struct jail_buf *b, const char *s, size_t n);
void jail_put_uint(struct jail_buf *b, unsigned long v);
void jail_put_json(struct jail_buf *b, const char *s);

#endif
