/*
 * check.c — the one gate every hook passes: resolve, decide, report.
 *
 * Invariants:
 *  1. Async-signal-safe: the resolution lives on the caller's stack, the
 *     messages are built in stack buffers and written with raw write(2).
 *  2. Every layer must allow; the first enforcing layer that denies ends the
 *     check with EACCES. A layer in audit mode reports "would deny" and lets
 *     the call go on (so an inner audit layer cannot loosen an outer one).
 *  3. The jail's own files (its policies, compiled blobs, log, the shim) are
 *     never writable, whatever the policy says; the shim is always readable.
 *  4. Reopening an own descriptor for access it already has is allowed.
 *  5. A missing object is ENOENT for any access but write, as the kernel
 *     would say, and is not reported.
 *  6. When resolution fails, the call is decided on the best path the
 *     resolver could give, and the kernel's error is returned without making
 *     the call: the real call could only race with the missing directory.
 */
#define _GNU_SOURCE
#include "shim.h"
#include "os.h"

#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/un.h>

/* ---- allocation-free string building ---- */

void jail_putn(struct jail_buf *b, const char *s, size_t n)
{
	for (size_t i = 0; i < n && b->n + 1 < b->cap; i++)
		b->b[b->n++] = s[i];
	if (b->cap)
		b->b[b->n] = '\0';
}

void jail_put(struct jail_buf *b, const char *s)
{
	jail_putn(b, s, strlen(s));
}

void jail_put_uint(struct jail_buf *b, unsigned long v)
{
	char d[24];
	int i = (int)sizeof(d);
	do {
		d[--i] = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	jail_putn(b, d + i, sizeof(d) - (size_t)i);
}

/* A JSON string; bytes that are not printable ASCII are escaped as \u00XX so
 * that every line stays valid JSON whatever a file name contains. */
void jail_put_json(struct jail_buf *b, const char *s)
{
	static const char hex[] = "0123456789abcdef";
	jail_put(b, "\"");
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;
		if (c == '"' || c == '\\') {
			char e[2] = {'\\', (char)c};
			jail_putn(b, e, 2);
		} else if (c < 0x20 || c >= 0x7f) {
			char e[6] = {'\\', 'u', '0', '0', hex[c >> 4], hex[c & 15]};
			jail_putn(b, e, 6);
		} else {
			jail_putn(b, (const char *)&c, 1);
		}
	}
	jail_put(b, "\"");
}

/* ---- reporting ---- */

/* Whom reports speak for: by default this process; the supervisor
 * (supervise_linux.c) sets the process it decides for, and asks for no
 * stderr line (the caller's terminal is not the supervisor's to write on;
 * its denials go to the log and the tally). Set only by the supervisor,
 * per worker thread (JAIL_PER_THREAD_SPEAKER); the shim never changes it. */
#ifdef JAIL_PER_THREAD_SPEAKER
static __thread struct {
#else
static struct {
#endif
	long pid;
	const char *(*program)(long pid); /* asked only when a line is written */
	int silent;
} speaker;

void jail_report_for(long pid, const char *(*program)(long pid), int silent)
{
	speaker.pid = pid;
	speaker.program = program;
	speaker.silent = silent;
}

/* The line is built in memory mapped for it: a denial may happen on a small
 * signal stack, and an escaped path can take six bytes per byte. */
#define LOG_LINE_MAX (8 * PATH_MAX)

static void log_line(const char *log, const char *op, const char *access, const char *given, const char *resolved,
                     const char *decision, const char *rule)
{
	char *line = jail_os_mmap(NULL, LOG_LINE_MAX, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (line == MAP_FAILED)
		return;
	struct jail_buf b = {line, 0, LOG_LINE_MAX};
	long sec = 0, nsec = 0;
	jail_os_clock_realtime(&sec, &nsec);
	jail_put(&b, "{\"time\":");
	jail_put_uint(&b, (unsigned long)sec);
	jail_put(&b, ".");
	char ms[3] = {(char)('0' + nsec / 100000000 % 10), (char)('0' + nsec / 10000000 % 10),
	              (char)('0' + nsec / 1000000 % 10)};
	jail_putn(&b, ms, 3);
	jail_put(&b, ",\"pid\":");
	jail_put_uint(&b, (unsigned long)(speaker.pid ? speaker.pid : jail_os_getpid()));
	jail_put(&b, ",\"program\":");
	const char *program = speaker.program ? speaker.program(speaker.pid) : program_invocation_short_name;
	jail_put_json(&b, program ? program : "");
	jail_put(&b, ",\"operation\":");
	jail_put_json(&b, op);
	jail_put(&b, ",\"access\":");
	jail_put_json(&b, access);
	jail_put(&b, ",\"path\":");
	jail_put_json(&b, given);
	jail_put(&b, ",\"resolved\":");
	jail_put_json(&b, resolved);
	jail_put(&b, ",\"decision\":");
	jail_put_json(&b, decision);
	jail_put(&b, ",\"rule\":");
	jail_put_json(&b, rule);
	jail_put(&b, "}\n");
	if (b.n + 1 >= b.cap) { /* never write a cut line: it would not parse */
		b.n = 0;
		jail_put(&b, "{\"error\":\"log line too long\"}\n");
	}
	long fd = jail_os_openat(AT_FDCWD, log, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC | O_NOCTTY, 0600);
	if (fd >= 0) {
		jail_os_write((int)fd, b.b, b.n);
		jail_os_close((int)fd);
	}
	jail_os_munmap(line, LOG_LINE_MAX);
}

/* "jail: denied write /path (FILE:LINE: RULE)" on stderr, and the log line. */
/* One byte per denial in jailrun's tally file: O_APPEND writes of one byte
 * from many processes add up exactly. */
static void tally(const struct jail_config *c)
{
	if (!c->tally)
		return;
	long fd = jail_os_openat(AT_FDCWD, c->tally, O_WRONLY | O_APPEND | O_CLOEXEC | O_NOCTTY, 0);
	if (fd >= 0) {
		jail_os_write((int)fd, "x", 1);
		jail_os_close((int)fd);
	}
}

/* "jail: VERB ACCESS SUBJECT (WHY)" on stderr, a byte in the tally, and
 * the log line (given and resolved: the subject as asked for and as found). */
static void emit(const struct jail_policy *p, const char *verb, const char *access, const char *op,
                 const char *subject, const char *given, const char *resolved, const char *why)
{
	const struct jail_config *c = jail_config();
	char msg[PATH_MAX + 2048];
	struct jail_buf m = {msg, 0, sizeof(msg)};
	jail_put(&m, "jail: ");
	jail_put(&m, verb);
	jail_put(&m, " ");
	jail_put(&m, access);
	jail_put(&m, " ");
	jail_put(&m, subject);
	jail_put(&m, " (");
	jail_put(&m, why);
	jail_put(&m, ")\n");
	if (!c->quiet && !speaker.silent)
		jail_os_write(2, m.b, m.n);
	tally(c);
	const char *log = p ? jail_policy_log(p) : NULL;
	if (log)
		log_line(log, op, access, given, resolved, verb, why);
}

static void report(const struct jail_policy *p, const char *verb, enum jail_access a, const char *op,
                   const char *shown, const struct jail_resolved *r, const char *why)
{
	emit(p, verb, jail_access_name(a), op, shown, r->given[0] ? r->given : r->path, r->path, why);
}

void jail_report_net(const struct jail_policy *p, const char *verb, const char *access, const char *op,
                     const char *subject, const char *why)
{
	emit(p, verb, access, op, subject, subject, subject, why);
}

static int is_protected(const struct jail_config *c, const char *path)
{
	for (int i = 0; i < c->nprotected; i++) {
		size_t n = strlen(c->protected_path[i]);
		if (strncmp(path, c->protected_path[i], n) == 0 && (path[n] == '\0' || path[n] == '/'))
			return 1;
	}
	return 0;
}

int jail_allowed_quietly(const char *path, enum jail_access a)
{
	const struct jail_config *c = jail_config();
	if (a == JAIL_WRITE && is_protected(c, path))
		return 0;
	for (int i = 0; i < c->nlayers; i++)
		if (jail_decide(c->layer[i], a, path).verdict != JAIL_ALLOW)
			return 0;
	return 1;
}

int jail_refuse(const char *op, const char *path, const char *why)
{
	char msg[PATH_MAX + 512];
	struct jail_buf m = {msg, 0, sizeof(msg)};
	jail_put(&m, "jail: refused ");
	jail_put(&m, op);
	jail_put(&m, " ");
	jail_put(&m, path);
	jail_put(&m, " (");
	jail_put(&m, why);
	jail_put(&m, ")\n");
	const struct jail_config *c = jail_config();
	if (!c->quiet && !speaker.silent)
		jail_os_write(2, m.b, m.n);
	tally(c);
	const char *log = jail_policy_log(c->layer[0]);
	if (log)
		log_line(log, op, "-", path, path, "refused", why);
	return -EACCES;
}

/* /proc/PID/{environ,mem} (or .../task/TID/...) of a process other than
 * this one: where the jailed command's secrets could be read from. */
static int others_private(const char *path)
{
	if (strncmp(path, "/proc/", 6) != 0)
		return 0;
	const char *s = path + 6;
	long pid = 0;
	if (*s < '0' || *s > '9')
		return 0;
	while (*s >= '0' && *s <= '9')
		pid = pid * 10 + (*s++ - '0');
	if (*s++ != '/')
		return 0;
	if (strncmp(s, "task/", 5) == 0) {
		s += 5;
		while (*s >= '0' && *s <= '9')
			s++;
		if (*s++ != '/')
			return 0;
	}
	if (strcmp(s, "environ") != 0 && strcmp(s, "mem") != 0)
		return 0;
	return pid != jail_os_getpid();
}

int jail_env_scrubbed_by(const struct jail_config *c, const char *entry)
{
	const char *eq = strchr(entry, '=');
	size_t n = eq ? (size_t)(eq - entry) : strlen(entry);
	for (int i = 0; c->scrubs && i < c->nlayers; i++)
		if (jail_decide_env(c->layer[i], entry, n).verdict == JAIL_DENY)
			return 1;
	return 0;
}

/* Ask mode: puts a refusal to the user through jailrun's broker (one
 * connection per question; only this thread waits). 1 when granted; 0 for
 * no, no answer, no broker. */
static int ask_user(const struct jail_config *c, enum jail_access a, const char *op, const char *path,
                    const char *rule)
{
	char msg[PATH_MAX + 2048], reply[8];
	struct jail_buf m = {msg, 0, sizeof(msg)};
	jail_put(&m, "ASK 1\n");
	jail_put(&m, jail_access_name(a));
	jail_put(&m, "\n");
	jail_put(&m, op);
	jail_put(&m, "\n");
	jail_put(&m, path);
	jail_put(&m, "\n");
	jail_put(&m, rule);
	jail_put(&m, "\n");
	if (speaker.pid) { /* the supervisor, asking for the process it decides for */
		jail_put(&m, "FOR ");
		jail_put_uint(&m, (unsigned long)speaker.pid);
		jail_put(&m, "\n");
	}
	if (m.n + 1 >= m.cap || strchr(path, '\n'))
		return 0; /* a path the question cannot carry whole: no */
	long n = jail_os_exchange(c->ask_path, m.b, m.n, reply, sizeof(reply), c->ask_wait);
	return n >= 1 && reply[0] == 'y';
}

int jail_check_peer(long pid, const char *op)
{
	if (!jail_config()->scrubs || pid == jail_os_getpid())
		return 0;
	return jail_refuse(op, "(another process)", "another process's memory: the jail scrubs secrets from the environment");
}

int jail_check_resolved(const struct jail_resolved *r, enum jail_access a, const char *op)
{
	const struct jail_config *c = jail_config();
	const char *given = r->given[0] == '/' ? r->given : NULL;
	const char *resolved = r->path[0] == '/' ? r->path : NULL;

	if (r->kind == JAIL_OBJ_ANON)
		return a == JAIL_EXEC ? jail_refuse(op, r->path, "an anonymous file cannot be executed in the jail") : 0;
	/* Reopening one of this process's own descriptors (/dev/stdout, say) for
	 * access it already has grants nothing new: a file the caller was handed
	 * (stdout redirected by the user) stays usable however it is named. */
	if (r->own_fd >= 0 && (a == JAIL_READ || a == JAIL_WRITE || a == JAIL_META)) {
		long fl = jail_os_getfl(r->own_fd);
		if (fl >= 0 && !(fl & O_PATH)) { /* an O_PATH descriptor grants no access to reopen with */
			long acc = fl & O_ACCMODE;
			if (a == JAIL_META || (a == JAIL_READ && acc != O_WRONLY) || (a == JAIL_WRITE && acc != O_RDONLY))
				return 0;
		}
	}
	/* Nothing to read, stat or run: the kernel's ENOENT, without a report
	 * (PATH searches and probes for optional files would otherwise flood
	 * stderr). Only creation needs a decision on a missing object. */
	if (!r->exists && a != JAIL_WRITE)
		return -ENOENT;
	if (c->scrubs && a != JAIL_META && resolved && others_private(resolved)) {
		report(c->layer[0], "denied", a, op, resolved, r,
		       "another process's environment and memory: the jail scrubs secrets from the environment");
		return -EACCES;
	}
	/* The library itself: the loader maps it into every process of the jail
	 * before any hook runs (under a supervisor, with an open it decides),
	 * and reading it reveals nothing. The kernel layer grants it too. */
	if ((a == JAIL_READ || a == JAIL_EXEC) && resolved && c->shim_real && strcmp(resolved, c->shim_real) == 0)
		return 0;
	if (a == JAIL_WRITE && ((resolved && is_protected(c, resolved)) || (given && is_protected(c, given)))) {
		report(c->layer[0], "denied", a, op, resolved ? resolved : given, r, "the jail's own file");
		return -EACCES;
	}
	for (int i = 0; i < c->nlayers; i++) {
		char which = 'r', rule[PATH_MAX];
		struct jail_decision d = jail_decide2(c->layer[i], a, given, resolved, &which);
		if (d.verdict == JAIL_ALLOW)
			continue;
		int audit = jail_policy_mode(c->layer[i]) == JAIL_MODE_AUDIT;
		if (d.rule >= 0)
			jail_rule_describe(c->layer[i], d.rule, rule, sizeof(rule));
		else
			strcpy(rule, d.reason == JAIL_NO_RULE ? "no rule allows it" : jail_reason_name(d.reason));
		const char *shown = which == 'g' ? given : resolved;
		if (!audit && c->ask_path && ask_user(c, a, op, shown, rule))
			return 0; /* the user granted it, over every layer */
		report(c->layer[i], audit ? "would deny" : "denied", a, op, shown, r, rule);
		if (!audit)
			return -EACCES;
	}
	return 0;
}

static int check_into(int dirfd, const char *path, enum jail_access a, unsigned rflags, const char *op,
                      struct jail_resolved *r)
{
	if (path == NULL && !(rflags & JAIL_RES_EMPTY_PATH)) {
		r->path[0] = r->given[0] = '\0'; /* nothing resolved: callers see an empty name */
		return 0; /* the kernel answers EFAULT */
	}
	if (path == NULL)
		path = ""; /* with AT_EMPTY_PATH a kernel may act on dirfd: decided as "" is */
	int rc = jail_resolve(dirfd, path, rflags, r);
	if (r->path[0] == '\0' && r->given[0] == '\0')
		return rc; /* nothing to decide on (a bad dirfd, say): the kernel's error */
	int d = jail_check_resolved(r, a, op);
	return d ? d : rc;
}

/* Kept apart so the 8 KiB resolution is on the stack only when the caller
 * did not bring one. */
__attribute__((noinline)) static int check_local(int dirfd, const char *path, enum jail_access a, unsigned rflags,
                                                 const char *op)
{
	struct jail_resolved local;
	return check_into(dirfd, path, a, rflags, op, &local);
}

int jail_check_path(int dirfd, const char *path, enum jail_access a, unsigned rflags, const char *op,
                    struct jail_resolved *out)
{
	return out ? check_into(dirfd, path, a, rflags, op, out) : check_local(dirfd, path, a, rflags, op);
}

int jail_check_unix(const void *addr, unsigned len, unsigned rflags, const char *op)
{
	const struct sockaddr_un *un = addr;
	char path[sizeof(un->sun_path) + 1];
	size_t n;
	if (addr == NULL || len <= offsetof(struct sockaddr_un, sun_path) || un->sun_family != AF_UNIX)
		return 0; /* not a path socket: no file to decide on */
	n = len - offsetof(struct sockaddr_un, sun_path);
	if (n > sizeof(un->sun_path))
		n = sizeof(un->sun_path);
	if (un->sun_path[0] == '\0')
		return 0; /* the abstract namespace has no file (network policy, later) */
	memcpy(path, un->sun_path, n);
	path[n] = '\0';
	return jail_check_path(AT_FDCWD, path, JAIL_WRITE, rflags, op, NULL);
}

int jail_check_rename(int da, const char *a, int db, const char *b, unsigned flags, const char *op)
{
	struct jail_resolved r;
	char src[PATH_MAX];
	return jail_check_rename_to(da, a, db, b, flags, op, src, &r);
}

int jail_check_rename_to(int da, const char *a, int db, const char *b, unsigned flags, const char *op,
                         char src[PATH_MAX], struct jail_resolved *r)
{
	int rc = jail_check_path(da, a, JAIL_WRITE, JAIL_RES_NOFOLLOW, op, r);
	if (rc || a == NULL || r->kind != JAIL_OBJ_PATH)
		return rc;
	memcpy(src, r->path, strlen(r->path) + 1);
	rc = jail_check_path(db, b, JAIL_WRITE, JAIL_RES_NOFOLLOW, op, r);
	if (rc || b == NULL || r->kind != JAIL_OBJ_PATH)
		return rc;
	rc = jail_check_move(src, r->path, op);
	if (rc == 0 && (flags & RENAME_EXCHANGE))
		rc = jail_check_move(r->path, src, op);
	return rc;
}

int jail_check_fd(int fd, enum jail_access a, const char *op)
{
	struct jail_resolved r;
	int rc = jail_resolve(fd, "", JAIL_RES_EMPTY_PATH, &r);
	if (rc)
		return rc == -EBADF ? 0 : rc; /* a bad fd: let the kernel say EBADF */
	return jail_check_resolved(&r, a, op);
}

enum jail_access jail_open_access(int flags)
{
	if (flags & O_PATH)
		return JAIL_META;
	if ((flags & O_ACCMODE) != O_RDONLY || (flags & (O_CREAT | O_TRUNC | O_APPEND)) || (flags & O_TMPFILE) == O_TMPFILE)
		return JAIL_WRITE;
	return JAIL_READ;
}
