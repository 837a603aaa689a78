/*
 * policy.h — the policy language and the decision engine.
 *
 * This layer is pure: it parses policy text, compiles it into one immutable,
 * position-independent blob, and answers "may ACCESS happen to this absolute
 * path, and which rule says so?". It makes no OS calls except reading policy
 * files (open/read/fstat/close in parse.c). Anything that needs the kernel —
 * canonicalizing a pattern's existing leading directories, say — is handed in
 * by the caller as a function pointer.
 *
 * Invariants callers rely on:
 *  1. jail_decide() and everything it calls never allocate, lock, or touch
 *     errno; they read the blob only, so any number of threads, signal handlers
 *     and vfork children may call them at once.
 *  2. A compiled blob contains no pointers: it may be written to a file,
 *     mapped read-only and used as is (see jail_policy_blob()).
 *  3. A policy that fails to load yields no policy at all: the error names
 *     FILE:LINE:COLUMN, and nothing of a half-read file is kept.
 */
#ifndef JAIL_POLICY_H
#define JAIL_POLICY_H

#include <stddef.h>
#include <stdint.h>

/* One access asked of the engine. A query asks exactly one of these. */
enum jail_access {
	JAIL_READ = 1,  /* read a file, list a directory */
	JAIL_WRITE = 2, /* create, modify, remove, rename, change metadata */
	JAIL_EXEC = 4,  /* execute a file (binary, or a #! interpreter) */
	JAIL_META = 8,  /* stat/access/readlink: allowed unless a read deny covers the path */
};

/* In a rule, the set of accesses it names (read|write|exec bits). */
#define JAIL_ACCESS_ALL (JAIL_READ | JAIL_WRITE | JAIL_EXEC)

enum jail_effect {
	JAIL_EFFECT_NONE = 0,
	JAIL_ALLOW = 1,
	JAIL_DENY = 2,
};

/* Why a decision came out as it did. */
enum jail_reason {
	JAIL_BY_RULE,        /* the most specific matching rule decided */
	JAIL_NO_RULE,        /* no rule matched: deny */
	JAIL_META_NO_DENY,   /* a metadata query with no read deny covering the path */
	JAIL_TOO_COMPLEX,    /* the match exceeded its step budget: deny (fail closed) */
	JAIL_BAD_PATH,       /* not an absolute path, or too long: deny */
	JAIL_NET_LOOPBACK,   /* no rule: loopback is reachable (not under `net none`, nor its DNS port under an allowlist) */
	JAIL_NET_LOCAL,      /* no rule: a private, link-local or local-network address: deny */
	JAIL_NET_OPEN,       /* no net allow in the policy: the network is open */
	JAIL_NET_BAD_NAME,   /* not a host name (what a resolver would decode, say): deny */
};

enum jail_mode {
	JAIL_MODE_ENFORCE = 0,
	JAIL_MODE_AUDIT = 1,
	JAIL_MODE_ASK = 2, /* a denial is put to the user (jailrun --ask); without an answer, denied */
};

/* `kernel auto | require | strict | off`: whether the kernel layer
 * (Landlock) is used; strict is require, with write carve-outs held in the
 * kernel too (landlock_linux.c). */
enum jail_kernel {
	JAIL_KERNEL_AUTO = 0,
	JAIL_KERNEL_REQUIRE = 1,
	JAIL_KERNEL_OFF = 2,
	JAIL_KERNEL_STRICT = 3,
};

/* The network: open (no `net allow`: everything but the local network),
 * an allowlist (any `net allow`), or closed (`net none`). */
enum jail_net_mode {
	JAIL_NET_MODE_OPEN = 0,
	JAIL_NET_MODE_ALLOWLIST = 1,
	JAIL_NET_MODE_NONE = 2,
};

struct jail_decision {
	enum jail_effect verdict;  /* JAIL_ALLOW or JAIL_DENY, never NONE */
	enum jail_reason reason;
	int32_t rule;              /* index of the deciding rule, or -1 */
	uint32_t specificity;      /* path components the deciding rule matched */
};

/* What a pattern variable expands to. Every member may be NULL (unset); a
 * pattern that uses an unset variable is a load error. */
struct jail_vars {
	const char *home; /* ~ and {home} */
	const char *cwd;  /* {cwd}: the directory the jail was started in */
	const char *tmp;  /* {tmp}: $TMPDIR or /tmp */
};

/*
 * Canonicalizes the existing leading part of an absolute, lexically clean
 * path: writes to out the path the kernel would reach (symlinks resolved) for
 * the longest prefix that exists, followed by the rest unchanged. Returns 0,
 * or -1 to leave the pattern as written. Supplied by the OS layer; NULL means
 * "no canonicalization" (pure tests).
 */
typedef int (*jail_canon_fn)(const char *path, char *out, size_t outsz, void *ctx);

/*
 * Reads a whole policy file: on success returns 0, sets *text to a malloc'ed,
 * NUL-terminated copy, *len to its length and id[] to an identity of the file
 * (device, inode) used to detect include cycles. Returns -errno otherwise
 * (-EINVAL: not a regular file; -EFBIG: over 64 MiB). NULL means the default
 * reader (open/fstat/read); the shim passes one that uses raw system calls, so
 * that loading a policy never re-enters its own hooks.
 */
typedef int (*jail_read_fn)(const char *path, char **text, size_t *len, unsigned long long id[2]);

struct jail_load_opts {
	struct jail_vars vars;
	jail_canon_fn canon;
	void *canon_ctx;
	jail_read_fn read;
};

/* The default reader, for other readers to fall back on or to compare with. */
int jail_read_file(const char *path, char **text, size_t *len, unsigned long long id[2]);

/* A load error: where, and what was expected. */
struct jail_error {
	char file[512];
	unsigned line;
	unsigned col;
	char msg[512];
};

/* A policy source: a file to read, or text with a name (tests, -e). */
struct jail_source {
	const char *name; /* file path, or the name used in messages */
	const char *text; /* NULL: read the file `name` */
};

struct jail_policy; /* an immutable compiled blob */

/* Parses and compiles the sources, in order, as one policy. Returns 0 and sets
 * *out, or -1 and fills *err (and *out stays NULL). Allocates; not for hooks. */
int jail_policy_load(const struct jail_load_opts *opts, const struct jail_source *src, size_t nsrc,
                     struct jail_policy **out, struct jail_error *err);

/* Formats an error as "FILE:LINE:COLUMN: message" into buf. */
void jail_error_format(const struct jail_error *err, char *buf, size_t bufsz);

void jail_policy_free(struct jail_policy *p);

/* The blob behind a policy, for writing to a file or a sealed memfd. */
const void *jail_policy_blob(const struct jail_policy *p, size_t *size);

/* Adopts a blob (for example one mapped from a file). Checks its header, size
 * and checksum; returns NULL when it is not a valid blob. Does not copy:
 * the memory must outlive the returned policy, which must not be freed. */
const struct jail_policy *jail_policy_from_blob(const void *blob, size_t size);

/* Reads a compiled blob from a file (jailrun writes them) into memory of
 * its own; NULL when unreadable or not a valid blob. Kept for the life of
 * the process. Allocates; not for hooks. */
const struct jail_policy *jail_policy_read_blob(const char *path);

/* The built-in default policy's text (also reachable as `include default`). */
extern const char jail_default_policy_text[];

/* ---- deciding (hot path: no allocation, no locks, no errno) ---- */

/* Decides one access on one absolute, lexically normalized path. */
struct jail_decision jail_decide(const struct jail_policy *p, enum jail_access a, const char *path);

/*
 * Decides a call's access given both forms of its path: `given` is the path
 * as the caller wrote it, made absolute and lexically normalized; `resolved`
 * is the object the kernel will touch. The resolved path must be allowed, and
 * a deny rule that matches the given path also denies. Either may be NULL
 * (then only the other is decided). *which is set to 'r' or 'g': the path
 * whose decision is returned.
 */
struct jail_decision jail_decide2(const struct jail_policy *p, enum jail_access a, const char *given,
                                  const char *resolved, char *which);

enum jail_mode jail_policy_mode(const struct jail_policy *p);
enum jail_kernel jail_policy_kernel(const struct jail_policy *p);
const char *jail_policy_log(const struct jail_policy *p); /* NULL when unset */

/* ---- the network (net.c; hot path rules as above) ----
 * Addresses are 16 bytes, IPv6 order; an IPv4 address is ::ffff:a.b.c.d,
 * so an IPv4-mapped IPv6 address is the IPv4 address it maps. */

/*
 * May a socket connect (or send) to addr:port? `name` is the host name the
 * address came from when the caller resolved an allowed name (NULL when
 * not). The order: an address rule naming the address (most specific
 * prefix, then a port over none, deny on ties); else the name's rules; else
 * a catch-all (`net allow|deny *`, `net none`); else loopback is reachable
 * (not under `net none`, nor port 53 under an allowlist), the local network
 * (private, link-local, multicast) is not (but at port 53 without `net
 * allow`: name servers), and the rest is reachable only when the policy
 * has no `net allow`.
 */
struct jail_decision jail_decide_connect(const struct jail_policy *p, const uint8_t addr[16], unsigned port,
                                         const char *name);

/* The address rules alone (no names, catch-alls or defaults): what they
 * decide binds a connection to addr:port whatever name it came from, since
 * they come first. rule < 0 when none names it. */
struct jail_decision jail_decide_address_rules(const struct jail_policy *p, const uint8_t addr[16], unsigned port);

/*
 * May NAME be resolved? Allowed when a rule allows the name (at any port)
 * and no portless deny is more specific; when no name rule matches, by the
 * catch-all, else: open mode resolves every name (reason JAIL_NET_OPEN, the
 * addresses are decided when used), an allowlist only "localhost" and
 * "*.localhost". The name is compared without case and a trailing dot.
 */
struct jail_decision jail_decide_resolve(const struct jail_policy *p, const char *name);

/* NAME:PORT as far as the name decides it (for explain): the resolution,
 * then the name's rules at PORT, then the catch-alls; an address rule on
 * the address it resolves to would still come first when connecting. */
struct jail_decision jail_decide_name(const struct jail_policy *p, const char *name, unsigned port);

enum jail_net_mode jail_policy_net(const struct jail_policy *p);

/* 1 when the policy has a `net` rule. */
int jail_policy_has_net_rules(const struct jail_policy *p);

/* The TCP ports a kernel layer can bound connections to for this policy:
 * the ports its `net allow` rules name (into ports, at most max). -1 when
 * it cannot be bounded by port: open mode, or an allow rule that names no
 * port (or more than max). */
int jail_net_ports(const struct jail_policy *p, uint16_t *ports, size_t max);
#define JAIL_NET_MAX_PORTS 256

/* Parses a numeric address (a.b.c.d or IPv6, without brackets) into out;
 * 0, or -1 when it is not one. No allocation. */
int jail_addr_parse(const char *s, uint8_t out[16]);

/* Writes addr (IPv4 dotted when mapped, else IPv6) to buf; no allocation. */
size_t jail_addr_format(const uint8_t addr[16], char *buf, size_t bufsz);

/* ---- the environment (env.c; hot path rules as above) ---- */

/*
 * Whether the variable NAME (len bytes, no '=') is removed from the
 * environment of the programs the jail starts: JAIL_DENY with the `env
 * scrub` rule that matches, or JAIL_ALLOW (an `env keep` rule, or no rule:
 * reason JAIL_NO_RULE). Names are compared without regard to case.
 */
struct jail_decision jail_decide_env(const struct jail_policy *p, const char *name, size_t len);

/* 1 when the policy has an `env scrub` rule. */
int jail_policy_scrubs(const struct jail_policy *p);

/* ---- describing rules (for messages, logs and explain) ---- */

uint32_t jail_rule_count(const struct jail_policy *p);  /* path rules: 0 .. count-1 */
uint32_t jail_xrule_count(const struct jail_policy *p); /* net and env rules: count .. count+xcount-1 */
uint32_t jail_policy_file_count(const struct jail_policy *p);          /* files the rules came from */
const char *jail_policy_file(const struct jail_policy *p, uint32_t i); /* as named; "<default>" too */
const char *jail_rule_file(const struct jail_policy *p, int32_t rule);
uint32_t jail_rule_line(const struct jail_policy *p, int32_t rule);
uint32_t jail_rule_col(const struct jail_policy *p, int32_t rule);
const char *jail_rule_text(const struct jail_policy *p, int32_t rule);    /* the directive as written */
const char *jail_rule_pattern(const struct jail_policy *p, int32_t rule); /* the compiled pattern */
enum jail_effect jail_rule_effect(const struct jail_policy *p, int32_t rule);
unsigned jail_rule_access(const struct jail_policy *p, int32_t rule); /* bits as written */

const char *jail_access_name(enum jail_access a);
const char *jail_effect_name(enum jail_effect e);
const char *jail_reason_name(enum jail_reason r);

/* Parses "read", "write", "exec", "meta". Returns 0 when unknown. */
enum jail_access jail_access_parse(const char *word);

/* Lexically normalizes an absolute path: collapses "//", removes "." and
 * applies ".." textually. out may equal in. Returns the length, or -1 when it
 * does not fit in outsz. No allocation. */
long jail_path_normalize(const char *in, char *out, size_t outsz);

/* Writes "FILE:LINE: TEXT" for a rule, or "no rule" for -1. No allocation. */
size_t jail_rule_describe(const struct jail_policy *p, int32_t rule, char *buf, size_t bufsz);

#endif
