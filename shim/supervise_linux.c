/*
 * supervise_linux.c — jail-supervise: the policy, exact, for programs that
 * bypass libc.
 *
 *   jail-supervise -- COMMAND [ARG...]
 *
 * Forks and runs COMMAND, jailrun's launcher (jailctl landlock-exec), which
 * applies the kernel layer, installs the seccomp filter (seccomp_linux.c),
 * hands the listener back over a socket named in $LIBJAIL_SUPERVISOR_SOCKET, and runs
 * the preloaded command; the filter covers it and every descendant. The parent stays outside the jail, and answers each
 * supervised call (supervised.def) by deciding it with the jail's own check
 * (check.c, the same configuration the shim loads) and, when allowed,
 * making it itself on the checked object:
 *
 *  1. A caller's memory can change after it is read, so an allowed call is
 *     never let through (SECCOMP_USER_NOTIF_FLAG_CONTINUE is not used): the
 *     supervisor opens the checked, symlink-free path with
 *     openat2(RESOLVE_NO_SYMLINKS) and places the descriptor in the caller
 *     (SECCOMP_IOCTL_NOTIF_ADDFD), or makes the *at call on parent
 *     directories opened the same way. A symlink swapped in after the check
 *     makes that fail (ELOOP) rather than reach elsewhere; the check then
 *     runs again.
 *  2. Objects named through /proc magic links (fds, including
 *     pipes and deleted files) are pinned with an O_PATH open first, the
 *     pinned object is what is checked, and it is reopened through the
 *     supervisor's own /proc/self/fd entry.
 *  3. Paths are read from the caller's memory (process_vm_readv) and only trusted once
 *     SECCOMP_IOCTL_NOTIF_ID_VALID says the caller is still waiting (so the
 *     cwd and fds opened for it belong to it, not to a reused pid).
 *  4. A caller's root and mount namespace are the supervisor's: the filter
 *     refuses the calls that would change them (seccomp_linux.c, 4).
 *  5. Creations use the caller's umask; the serving thread's own is set to
 *     it around the call (each worker has its own umask: unshare(CLONE_FS)).
 *  6. Refusals go to the log and the tally, not to stderr: the caller's
 *     terminal is not the supervisor's to write on.
 *  7. Each notification is served, start to answer, by one worker thread;
 *     one worker receives at a time, and hands that role on before a step
 *     that waits (placing a descriptor, a connect, a send), or loses it to
 *     the watchdog when a call takes longer than STUCK_NS (a question at the
 *     terminal): a call that waits holds its worker only (see the workers).
 *  8. The supervisor exits with the command's status when the command
 *     exits. Calls still made afterwards by leftover descendants fail with
 *     ENOSYS: without its supervisor the jail fails closed.
 */
#define _GNU_SOURCE
#include "os.h"
#include "shim.h"
#include "supervise.h"
#include "landlock.h"

#include <arpa/inet.h>
#include <netinet/in.h>

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/capability.h>
#include <linux/futex.h>
#include <linux/openat2.h>
#include <linux/seccomp.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <sys/un.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <linux/limits.h>
#include <sys/xattr.h>
#include <sys/statfs.h>
#include <sys/wait.h>
#include <time.h>
#include <utime.h>
#include <unistd.h>

#define RETRIES 8

/* What a handler returns besides a result (>= 0) or -errno: values no
 * system call returns, so that a readlink of one byte is never taken for
 * one of them. */
#define ANSWERED (LONG_MIN + 1)    /* the descriptor was placed: the reply is sent */
#define NOBODY (LONG_MIN + 2)      /* the caller no longer waits: no reply */
#define LET_THROUGH (LONG_MIN + 3) /* the kernel makes the call (do_socket, no path) */

#ifndef SYS_fchmodat2
#define SYS_fchmodat2 452
#endif
#ifndef SYS_faccessat2
#define SYS_faccessat2 439
#endif

/* Linux 6.6's synchronous wake-up, when the headers predate it. */
#ifndef SECCOMP_IOCTL_NOTIF_SET_FLAGS
#define JAIL_IOCTL_NOTIF_SET_FLAGS SECCOMP_IOW(4, __u64)
#else
#define JAIL_IOCTL_NOTIF_SET_FLAGS SECCOMP_IOCTL_NOTIF_SET_FLAGS
#endif
#define JAIL_USER_NOTIF_FD_SYNC_WAKE_UP 1ULL

static const char *me = "jail-supervise";

/* ---- the caller ---- */

struct caller {
	const struct seccomp_notif *req;
	int listener;
	pid_t tid;
	int unseen; /* its memory could not be read (EPERM): the call is refused */
	int fds[2]; /* base directories opened for it (-1: none) */
};

static void hand_off(void); /* (the workers, below) */

static long arg(const struct caller *c, struct jail_sup_arg a)
{
	return a.arg >= 0 ? (long)c->req->data.args[(int)a.arg] : a.k;
}

/* An argument the kernel takes as a 32-bit int (flags, modes, lengths, ids):
 * its upper half is whatever the caller's register held, and is ignored. */
static long arg32(const struct caller *c, struct jail_sup_arg a)
{
	return (long)(int)arg(c, a);
}

static int still_waiting(const struct caller *c)
{
	__u64 id = c->req->id;
	return ioctl(c->listener, SECCOMP_IOCTL_NOTIF_ID_VALID, &id) == 0;
}

/* A NUL-terminated string from the caller's memory, read a page at most at
 * a time so that a string ending near the end of a mapping still reads. */
static ssize_t read_mem(struct caller *c, void *buf, size_t n, unsigned long addr);

static int read_string(struct caller *c, unsigned long addr, char *out, size_t cap)
{
	size_t n = 0;
	if (addr == 0)
		return -EFAULT;
	while (n < cap) {
		size_t chunk = 4096 - ((addr + n) & 4095);
		if (chunk > cap - n)
			chunk = cap - n;
		ssize_t got = read_mem(c, out + n, chunk, addr + n);
		if (got <= 0)
			return -EFAULT;
		char *nul = memchr(out + n, '\0', (size_t)got);
		if (nul)
			return 0;
		n += (size_t)got;
	}
	return -ENAMETOOLONG;
}

/* The caller's memory, read and written with process_vm_readv/writev on
 * its TID: always the memory the task has now. (A /proc/TID/mem descriptor
 * kept between calls would still name a vfork child's parent after the
 * child's exec, or a dead thread's process after its TID went to another.)
 * Memory the supervisor may not read (a caller that is not dumpable, for a
 * supervisor without CAP_SYS_PTRACE) makes the call refused (unseen). */
static ssize_t across(struct caller *c, void *buf, size_t n, unsigned long addr, int write)
{
	struct iovec mine = {buf, n}, theirs = {(void *)addr, n};
	ssize_t got = write ? process_vm_writev(c->tid, &mine, 1, &theirs, 1, 0)
	                    : process_vm_readv(c->tid, &mine, 1, &theirs, 1, 0);
	if (got < 0 && errno == EPERM)
		c->unseen = 1;
	return got;
}

static ssize_t read_mem(struct caller *c, void *buf, size_t n, unsigned long addr)
{
	return n == 0 ? 0 : across(c, buf, n, addr, 0);
}

static int write_mem(struct caller *c, const void *buf, size_t n, unsigned long addr)
{
	if (addr == 0)
		return -EFAULT;
	return across(c, (void *)buf, n, addr, 1) == (ssize_t)n ? 0 : -EFAULT;
}

/* /proc/TID/FILE, NUL-terminated in buf (4096 bytes). */
static int read_proc_file(pid_t tid, const char *file, char buf[4096])
{
	char path[64];
	snprintf(path, sizeof(path), "/proc/%d/%s", (int)tid, file);
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	ssize_t n = read(fd, buf, 4095);
	close(fd);
	if (n <= 0)
		return -1;
	buf[n] = '\0';
	return 0;
}

static int read_proc_line(pid_t tid, const char *file, const char *key, char *out, size_t cap)
{
	char buf[4096];
	if (read_proc_file(tid, file, buf) != 0)
		return -1;
	char *p = key ? strstr(buf, key) : buf;
	if (!p)
		return -1;
	p += key ? strlen(key) : 0;
	size_t len = strcspn(p, "\n");
	if (len >= cap)
		len = cap - 1;
	memcpy(out, p, len);
	out[len] = '\0';
	return 0;
}

static mode_t caller_umask(const struct caller *c)
{
	char v[16];
	if (read_proc_line(c->tid, "status", "Umask:\t", v, sizeof(v)) != 0)
		return 077; /* unknown: the safe direction */
	return (mode_t)strtoul(v, NULL, 8) & 0777;
}

/* Who a process is, as far as the supervisor making calls for it cares:
 * its user and group ids (real, effective, saved, file system), its
 * effective capabilities and the user namespace they belong to. */
struct who {
	__u32 ids[8];
	__u32 caps[2];
	__u64 userns[2]; /* its user namespace (st_dev, st_ino): capabilities are a namespace's */
};

/* PIDFD_GET_INFO (Linux 6.13) on a thread's pidfd (PIDFD_THREAD, 6.9):
 * the ids, read without rendering /proc/TID/status. Older headers lack
 * both; the layout is the kernel's first version of the struct. */
struct pidfd_creds {
	__u64 mask, cgroupid;
	__u32 pid, tgid, ppid, ruid, rgid, euid, egid, suid, sgid, fsuid, fsgid;
	__s32 exit_code;
};
#define JAIL_PIDFD_GET_INFO _IOWR(0xFF, 11, struct pidfd_creds)
#define JAIL_PIDFD_GET_USER_NAMESPACE _IO(0xFF, 9) /* Linux 6.11 */
#define JAIL_PIDFD_INFO_CREDS 2ULL
#define JAIL_PIDFD_THREAD O_EXCL

/* What the supervisor is, looked up once before the workers start (and
 * read-only after): its identity lines, who it is, whether it is
 * privileged, whether groups can matter to its file access (without the
 * DAC-overriding capabilities they can: then the identity lines are
 * compared), the kernel's Landlock ABI. */
static struct {
	char identity[1024];
	struct who who;
	int has_who, groups_matter;
	struct stat userns;
	int privileged;
	int landlock_abi;
} self_view;

static int identity(pid_t pid, char *out, size_t cap);
static int who_is(pid_t tid, struct who *w);

static void look_at_self(void)
{
	if (identity(getpid(), self_view.identity, sizeof(self_view.identity)) != 0)
		self_view.identity[0] = '\0'; /* every caller is then refused */
	self_view.privileged = geteuid() == 0 || !strstr(self_view.identity, "\nCapEff:\t0000000000000000");
	self_view.has_who = who_is((pid_t)syscall(SYS_gettid), &self_view.who) == 0;
	/* CAP_CHOWN (0), CAP_DAC_OVERRIDE (1), CAP_DAC_READ_SEARCH (2),
	 * CAP_FOWNER (3), CAP_FSETID (4): with all five (and the caller must
	 * have the same), groups change no local file access */
	self_view.groups_matter = (self_view.who.caps[0] & 0x1f) != 0x1f;
	if (stat("/proc/self/ns/user", &self_view.userns) != 0)
		self_view.userns.st_ino = 0; /* every privileged check then fails */
	self_view.landlock_abi = jail_landlock_abi();
}

/* The lines of /proc/PID/status that say who a process is. */
static int identity(pid_t pid, char *out, size_t cap)
{
	static const char *const keys[] = {"\nUid:", "\nGid:", "\nGroups:", "\nCapEff:"};
	char buf[4096];
	if (read_proc_file(pid, "status", buf) != 0)
		return -1;
	size_t used = 0;
	for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++) {
		const char *k = strstr(buf, keys[i]);
		if (!k)
			return -1;
		size_t len = strcspn(k + 1, "\n") + 1;
		if (used + len + 1 > cap)
			return -1;
		memcpy(out + used, k, len);
		used += len;
	}
	out[used] = '\0';
	return 0;
}

/* A pidfd for each thread a worker served lately, kept open: a pidfd
 * names one task, so while the task lives its TID is its own; once the
 * task is gone, PIDFD_GET_INFO fails (ESRCH) and the slot is opened again
 * for whoever has the TID now. */
#define WHO_SLOTS 8
static __thread struct { /* per worker: no locks */
	pid_t tid;
	int fd1; /* the pidfd + 1 (0: none) */
} who_cache[WHO_SLOTS];

static int who_pidfd(pid_t tid, int fresh)
{
	unsigned slot = (unsigned)tid % WHO_SLOTS;
	if (who_cache[slot].fd1 > 0 && (who_cache[slot].tid != tid || fresh)) {
		close(who_cache[slot].fd1 - 1);
		who_cache[slot].fd1 = 0;
	}
	if (who_cache[slot].fd1 <= 0) {
		int fd = (int)syscall(SYS_pidfd_open, tid, JAIL_PIDFD_THREAD);
		if (fd < 0)
			return -1;
		who_cache[slot] = (typeof(who_cache[slot])){tid, fd + 1};
	}
	return who_cache[slot].fd1 - 1;
}

/* 0 and *w filled, or -1 where the kernel cannot say this way. */
static int who_is(pid_t tid, struct who *w)
{
	struct pidfd_creds info;
	int ok = -1, fd = -1;
	for (int fresh = 0; fresh < 2 && ok != 0; fresh++) {
		if ((fd = who_pidfd(tid, fresh)) < 0)
			return -1;
		info = (struct pidfd_creds){.mask = JAIL_PIDFD_INFO_CREDS};
		ok = ioctl(fd, JAIL_PIDFD_GET_INFO, &info) == 0 && (info.mask & JAIL_PIDFD_INFO_CREDS) ? 0 : -1;
		if (ok != 0 && errno != ESRCH)
			return -1; /* not this kernel's: the caller reads the status file */
	}
	if (ok != 0)
		return -1;
	struct __user_cap_header_struct h = {_LINUX_CAPABILITY_VERSION_3, tid};
	struct __user_cap_data_struct d[2];
	struct stat ns;
	if (syscall(SYS_capget, &h, d) != 0)
		return -1;
	int nsfd = ioctl(fd, JAIL_PIDFD_GET_USER_NAMESPACE, 0);
	if (nsfd < 0)
		return -1;
	int seen = fstat(nsfd, &ns);
	close(nsfd);
	if (seen != 0)
		return -1;
	*w = (struct who){{info.ruid, info.euid, info.suid, info.fsuid, info.rgid, info.egid, info.sgid, info.fsgid},
	                  {d[0].effective, d[1].effective},
	                  {(__u64)ns.st_dev, (__u64)ns.st_ino}};
	return 0;
}

/* The caller is who the supervisor is (user, groups, effective
 * capabilities, user namespace), or the calls made for it would carry other rights than its own: a jail run as root whose
 * programs drop privileges is refused here, never served as root. */
static int same_identity(const struct caller *c)
{
	char theirs[1024];
	struct who w;
	if (!self_view.identity[0])
		return 0;
	/* A supervisor with no privilege gives a caller nothing it could not
	 * do itself, whoever the caller became (without privilege it can only
	 * gain capabilities in a user namespace of its own): the check is for
	 * a privileged one. */
	if (!self_view.privileged)
		return 1;
	/* ids, capabilities and user namespace from the kernel directly (a few
	 * system calls on a kept pidfd, against ~17 us for a read of the status
	 * file and ~8 us for a stat of /proc/TID/ns/user here); groups count
	 * only where the capabilities do not override them */
	if (self_view.has_who && !self_view.groups_matter && who_is(c->tid, &w) == 0)
		return memcmp(&w, &self_view.who, sizeof(w)) == 0;
	/* capabilities are a namespace's: a caller that made a user namespace
	 * of its own has them all there, whatever it dropped here */
	char ns[64];
	struct stat theirs_ns;
	snprintf(ns, sizeof(ns), "/proc/%d/ns/user", (int)c->tid);
	if (stat(ns, &theirs_ns) != 0 || self_view.userns.st_ino == 0 || theirs_ns.st_ino != self_view.userns.st_ino ||
	    theirs_ns.st_dev != self_view.userns.st_dev)
		return 0;
	return identity(c->tid, theirs, sizeof(theirs)) == 0 && strcmp(self_view.identity, theirs) == 0;
}

/* Names that mean "this process" mean the caller here: /proc/self,
 * /proc/thread-self, and the /dev aliases that lead to them. */
static int translate(const struct caller *c, const char *in, char *out, size_t cap)
{
	static const struct {
		const char *from, *to;
	} alias[] = {{"/proc/self", ""},     {"/proc/thread-self", ""}, {"/dev/fd", "/fd"},
	             {"/dev/stdin", "/fd/0"}, {"/dev/stdout", "/fd/1"}, {"/dev/stderr", "/fd/2"}};
	char norm[PATH_MAX];
	const char *given = in;
	if (in[0] == '/') { /* "//proc/self", "/proc/./self": the same names */
		if (jail_path_normalize(in, norm, sizeof(norm)) < 0)
			return -ENAMETOOLONG;
		in = norm;
	}
	for (size_t i = 0; i < sizeof(alias) / sizeof(alias[0]); i++) {
		size_t n = strlen(alias[i].from);
		if (strncmp(in, alias[i].from, n) == 0 && (in[n] == '\0' || in[n] == '/')) {
			int w = snprintf(out, cap, "/proc/%d%s%s", (int)c->tid, alias[i].to, in + n);
			return w < 0 || (size_t)w >= cap ? -ENAMETOOLONG : 0;
		}
	}
	/* any other name as given: its lexical form would take ".." after a
	 * symlink from the link's parent, where the kernel climbs from the
	 * link's target (the resolver does as the kernel does) */
	if (strlen(given) >= cap)
		return -ENAMETOOLONG;
	strcpy(out, given);
	return 0;
}

/* Where the caller's relative path starts, opened here: its cwd or dirfd.
 * An absolute path needs none (AT_FDCWD: the root is the same). */
static int base_dir(struct caller *c, int slot, long dirfd, const char *path, int *out)
{
	char proc[64];
	*out = AT_FDCWD;
	if (path[0] == '/')
		return 0;
	if ((int)dirfd == AT_FDCWD)
		snprintf(proc, sizeof(proc), "/proc/%d/cwd", (int)c->tid);
	else if ((int)dirfd < 0)
		return -EBADF;
	else
		snprintf(proc, sizeof(proc), "/proc/%d/fd/%d", (int)c->tid, (int)dirfd);
	int fd = open(proc, O_PATH | O_CLOEXEC);
	if (fd < 0)
		return errno == ENOENT ? -EBADF : -errno;
	c->fds[slot] = fd;
	*out = fd;
	return 0;
}

/* ---- /proc: the caller's own entries, not the supervisor's or others' ----
 *
 * The supervisor opens what it decides with its own rights and outside the
 * jail's Landlock domain, which keeps the jail from other processes' /proc
 * entries (their descriptors, memory, environment). So a path through
 * /proc/PID must name a process of the jail (a descendant of the command;
 * the supervisor is their subreaper), or one of the few entries anyone may
 * read; and an object with no path (a pipe, a socket) must have been
 * reached through the caller's own descriptors. */

static pid_t child; /* the command: the root of the jail's processes */
static int tgid_of(pid_t tid);

static int in_jail(pid_t pid)
{
	char v[32];
	for (int hops = 0; pid > 1 && hops < 256; hops++) {
		if (pid == getpid())
			return 0;
		if (pid == child)
			return 1;
		if (read_proc_line(pid, "status", "PPid:\t", v, sizeof(v)) != 0)
			return 0;
		pid_t parent = (pid_t)atoi(v);
		if (parent == getpid())
			return 1; /* an orphan of the jail, reparented to its subreaper */
		pid = parent;
	}
	return 0;
}

/* 0, or -EACCES (reported) for a /proc path the caller may not reach here. */
static int proc_allowed(const struct caller *c, const char *path, const char *op)
{
	static const char *const anyone[] = {"", "/stat", "/statm", "/status", "/cmdline", "/comm"};
	if (strncmp(path, "/proc/", 6) != 0)
		return 0;
	const char *p = path + 6, *rest = p + strcspn(p, "/");
	if (rest == p || strspn(p, "0123456789") != (size_t)(rest - p))
		return 0; /* /proc/meminfo and the like: no process */
	pid_t pid = (pid_t)atoi(p);
	if (pid == c->tid || in_jail(pid))
		return 0;
	for (size_t i = 0; i < sizeof(anyone) / sizeof(anyone[0]); i++)
		if (strcmp(rest, anyone[i]) == 0)
			return 0;
	return jail_refuse(op, path, "a process outside the jail");
}

/* The jail's check, then the /proc rules above, on what it resolved. */
static int proc_guard(const struct caller *c, const struct jail_resolved *r, const char *op)
{
	int rc = proc_allowed(c, r->given, op);
	if (rc == 0)
		rc = proc_allowed(c, r->path, op);
	if (rc == 0 && r->kind == JAIL_OBJ_ANON) {
		char own[64], group[64];
		int n = snprintf(own, sizeof(own), "/proc/%d/", (int)c->tid);
		int g = snprintf(group, sizeof(group), "/proc/%d/", tgid_of(c->tid));
		if (strncmp(r->given, own, (size_t)n) != 0 && strncmp(r->given, group, (size_t)g) != 0)
			rc = jail_refuse(op, r->given, "an object without a path, not reached through the caller's own descriptors");
	}
	return rc;
}

static int check_here(const struct caller *c, int dirfd, const char *path, enum jail_access a, unsigned rflags,
                      const char *op, struct jail_resolved *r)
{
	int rc = jail_check_path(dirfd, path, a, rflags, op, r);
	return rc ? rc : proc_guard(c, r, op);
}

/* ---- making calls on checked objects ---- */

/* A checked, symlink-free absolute path, opened as the shim opens it
 * (openat2 RESOLVE_NO_SYMLINKS): a symlink swapped in since is ELOOP. The
 * supervisor's own descriptors are close-on-exec. */
static long open_nosymlinks(const char *path, long flags, long mode)
{
	return jail_os_open_checked(AT_FDCWD, path, (int)flags | O_CLOEXEC, (unsigned)mode);
}

/* The parent directory of a checked absolute path, opened without following
 * any symlink, and the last component. "/" has no parent: AT_FDCWD and "/". */
static int open_parent(const char *path, char *base, size_t cap, int *dirfd)
{
	const char *slash = strrchr(path, '/');
	*dirfd = AT_FDCWD;
	if (!slash || slash[1] == '\0' || strlen(slash + 1) >= cap) {
		snprintf(base, cap, "/");
		return 0;
	}
	strcpy(base, slash + 1);
	char dir[PATH_MAX];
	size_t n = (size_t)(slash - path);
	if (n == 0)
		n = 1;
	memcpy(dir, path, n);
	dir[n] = '\0';
	long fd = open_nosymlinks(dir, O_PATH | O_DIRECTORY, 0);
	if (fd < 0)
		return (int)fd;
	*dirfd = (int)fd;
	return 0;
}

static int via_proc(const char *path)
{
	return strncmp(path, "/proc/", 6) == 0;
}

/* Runs fn(arg) in a thread nobody joins: 0, or an errno. */
static int detached(void *(*fn)(void *), void *arg)
{
	pthread_t t;
	pthread_attr_t attr;
	pthread_attr_init(&attr);
	pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
	int rc = pthread_create(&t, &attr, fn, arg);
	pthread_attr_destroy(&attr);
	return rc;
}

/* Opening a FIFO waits for its other end, which another process of the
 * jail may be about to open through this same supervisor: such an open is
 * made, and its descriptor placed, by a thread of its own, so that the
 * supervisor goes on answering. The object is already decided and pinned. */
struct fifo_open {
	int listener, pin;
	__u64 id;
	long flags;
};

static void *open_fifo(void *arg)
{
	struct fifo_open *f = arg;
	char self[64];
	snprintf(self, sizeof(self), "/proc/self/fd/%d", f->pin);
	/* through the pin: O_NOFOLLOW would refuse the magic link itself */
	int fd = open(self, (int)((f->flags & ~(long)(O_CREAT | O_EXCL | O_TRUNC | O_NOFOLLOW)) | O_CLOEXEC));
	int err = errno;
	if (fd >= 0) {
		struct seccomp_notif_addfd add = {.id = f->id,
		                                  .flags = SECCOMP_ADDFD_FLAG_SEND,
		                                  .srcfd = (unsigned)fd,
		                                  .newfd_flags = (unsigned)(f->flags & O_CLOEXEC)};
		err = ioctl(f->listener, SECCOMP_IOCTL_NOTIF_ADDFD, &add) >= 0 ? 0 : errno;
		close(fd);
	}
	if (err && err != ENOENT) {
		struct seccomp_notif_resp resp = {.id = f->id, .val = -1, .error = -err};
		ioctl(f->listener, SECCOMP_IOCTL_NOTIF_SEND, &resp);
	}
	close(f->pin);
	free(f);
	return NULL;
}

/* ANSWERED when `fd` (opened O_PATH on the decided object) is a FIFO the
 * caller opens blocking: a thread finishes the open. Otherwise 0. */
static long fifo_handoff(struct caller *c, long pin, long flags)
{
	struct stat st;
	if ((flags & (O_NONBLOCK | O_PATH)) || fstat((int)pin, &st) != 0 || !S_ISFIFO(st.st_mode))
		return 0;
	struct fifo_open *f = malloc(sizeof(*f));
	if (!f)
		return -ENOMEM;
	*f = (struct fifo_open){.listener = c->listener, .pin = (int)pin, .id = c->req->id, .flags = flags};
	int rc = detached(open_fifo, f);
	if (rc != 0) {
		free(f);
		return -rc;
	}
	return ANSWERED;
}

/* An object named through a /proc magic link: pinned, checked as pinned,
 * reopened through the pin. */
static long open_pinned(struct caller *c, const char *translated, long flags, long mode, enum jail_access a,
                        const char *op)
{
	int pin = open(translated, O_PATH | O_CLOEXEC);
	if (pin < 0)
		return -errno;
	int rc = jail_check_fd(pin, a, op);
	long fd = rc;
	if (rc == 0 && (fd = fifo_handoff(c, pin, flags)) == ANSWERED)
		return ANSWERED; /* the thread owns the pin now */
	if (rc == 0 && fd == 0) {
		char self[64];
		snprintf(self, sizeof(self), "/proc/self/fd/%d", pin);
		fd = open(self, (int)(flags | O_CLOEXEC), (mode_t)mode);
		if (fd < 0)
			fd = -errno;
	}
	close(pin);
	return fd;
}

/* SECCOMP_IOCTL_NOTIF_ADDFD cannot carry an O_PATH descriptor (the kernel
 * does not hand those out), so an O_PATH open is answered with a descriptor
 * that can do more: a directory or regular file opened for reading, when
 * the policy allows reading it. Other O_PATH opens (of a
 * symlink itself, a device, a FIFO, a file only `meta` is allowed on) are
 * refused: the supervisor cannot give what was asked for, and will not give
 * more than the policy allows. */
static long deliverable(long fd, long flags, const char *op, const char *shown)
{
	struct stat st;
	if (!(flags & O_PATH) || fd < 0)
		return fd;
	int rc = fstat((int)fd, &st) != 0 ? -errno : 0;
	int reopen = O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY;
	if (rc == 0 && (S_ISDIR(st.st_mode) || S_ISREG(st.st_mode)))
		rc = jail_check_fd((int)fd, JAIL_READ, op); /* a directory read lists it */
	if (rc == 0 && S_ISDIR(st.st_mode))
		reopen |= O_DIRECTORY;
	else if (rc == 0 && !S_ISREG(st.st_mode))
		rc = jail_refuse(op, shown, "an O_PATH descriptor for this kind of file cannot be passed by the supervisor");
	long out = rc;
	if (rc == 0) {
		char self[64];
		snprintf(self, sizeof(self), "/proc/self/fd/%d", (int)fd);
		out = open(self, reopen);
		if (out < 0)
			out = -errno;
	}
	close((int)fd);
	return out;
}

/* RESOLVE_BENEATH, as far as the supervisor can tell: a relative name
 * whose lexical form and whose object both stay beneath the directory it
 * starts from (an absolute name never does). */
static int beneath_base(int base, const char *name, const struct jail_resolved *r)
{
	char self[64], dir[PATH_MAX];
	if (name[0] == '/' || base == AT_FDCWD)
		return 0;
	int depth = 0; /* ".." above the start is outside, even if the name comes back */
	for (const char *p = name; *p;) {
		size_t n = strcspn(p, "/");
		if (n == 2 && p[0] == '.' && p[1] == '.') {
			if (--depth < 0)
				return 0;
		} else if (n > 0 && !(n == 1 && p[0] == '.')) {
			depth++;
		}
		p += n + (p[n] == '/');
	}
	snprintf(self, sizeof(self), "/proc/self/fd/%d", base);
	ssize_t n = readlink(self, dir, sizeof(dir) - 1);
	if (n <= 0)
		return 0;
	dir[n] = '\0';
	size_t len = strcmp(dir, "/") == 0 ? 0 : (size_t)n;
	for (int i = 0; i < 2; i++) {
		const char *p = i ? r->path : r->given;
		if (strncmp(p, dir, len) != 0 || (p[len] != '/' && p[len] != '\0'))
			return 0;
	}
	return 1;
}

/* RESOLVE_NO_XDEV's end points: the object is on the starting directory's mount. */
static int same_mount(int base, int fd)
{
	struct statx a, b;
	int from = base == AT_FDCWD ? AT_FDCWD : base;
	if (statx(from, from == AT_FDCWD ? "/" : "", from == AT_FDCWD ? 0 : AT_EMPTY_PATH, STATX_MNT_ID, &a) != 0 ||
	    statx(fd, "", AT_EMPTY_PATH, STATX_MNT_ID, &b) != 0)
		return 0;
	return a.stx_mnt_id == b.stx_mnt_id;
}

/* The shim's common route (hooks_open.c), for an absolute name: decided on
 * its lexical form, opened with openat2(RESOLVE_NO_SYMLINKS), whose success
 * proves that form is the object. An fd, the kernel's own error for a
 * symlink-free walk, or -ELOOP for the exact route (a symlink on the way, a
 * refusal to explain, /proc, flags openat2 is stricter about). Relative
 * names always take the exact route: their lexical form starts from the
 * name /proc gives the base directory, which need not lead back to it (a
 * directory of a detached mount reads as "/"); the exact route acts on the
 * path it checked. */
static long common_route(const char *name, enum jail_access a, struct jail_resolved *r, long flags, long mode)
{
	if (name[0] != '/' || jail_resolve_lexical(AT_FDCWD, name, r) != 0 || via_proc(r->given) ||
	    !jail_allowed_quietly(r->given, a))
		return -ELOOP;
	long fd = jail_os_open_checked(AT_FDCWD, name, (int)flags, (unsigned)mode);
	return fd == -ENOSYS || fd == -EINVAL ? -ELOOP : fd;
}

static long do_open(struct caller *c, const struct jail_sup_row *row, long dirfd, const char *path, long flags,
                    long mode, unsigned long long resolve)
{
	enum jail_access a = jail_open_access((int)flags);
	unsigned rf = ((flags & O_NOFOLLOW) || (flags & (O_CREAT | O_EXCL)) == (O_CREAT | O_EXCL)) ? JAIL_RES_NOFOLLOW : 0;
	char name[PATH_MAX];
	struct jail_resolved r;
	int base, rc;
	if ((rc = translate(c, path, name, sizeof(name))) || (rc = base_dir(c, 0, dirfd, name, &base)))
		return rc;
	if (!still_waiting(c))
		return NOBODY;
	if (resolve & RESOLVE_IN_ROOT) /* a root of the caller's choosing: not what the check sees */
		return jail_refuse(row->name, name, "RESOLVE_IN_ROOT is not supported under the supervisor");
	int creates = (flags & O_CREAT) || (flags & __O_TMPFILE);
	mode_t old = creates ? umask(caller_umask(c)) : 0;
	long fd = -ELOOP;
	/* the common route (absolute names), unless the caller asked for
	 * RESOLVE flags or opens a FIFO (handed to a thread of its own on the
	 * exact route) */
	struct stat st;
	if (!resolve && name[0] == '/' &&
	    ((flags & (O_NONBLOCK | O_PATH)) || fstatat(AT_FDCWD, name, &st, AT_SYMLINK_NOFOLLOW) != 0 ||
	     !S_ISFIFO(st.st_mode)))
		fd = common_route(name, a, &r, flags | O_CLOEXEC, mode);
	for (int attempt = 0; attempt < RETRIES && fd == -ELOOP; attempt++) {
		rc = check_here(c, base, name, a, rf, row->name, &r);
		if (rc) {
			fd = rc;
			break;
		}
		if ((resolve & RESOLVE_NO_SYMLINKS) && r.links > 0) {
			fd = -ELOOP;
			break;
		}
		if ((resolve & RESOLVE_BENEATH) && !beneath_base(base, name, &r)) {
			fd = -EXDEV; /* the caller's own bound: nothing outside its dirfd */
			break;
		}
		if (r.kind != JAIL_OBJ_PATH || r.deleted || via_proc(r.given) || via_proc(r.path)) {
			if ((resolve & RESOLVE_NO_MAGICLINKS) && via_proc(r.given)) {
				fd = -ELOOP;
				break;
			}
			char proc[PATH_MAX + 64];
			if (base != AT_FDCWD && name[0] != '/')
				snprintf(proc, sizeof(proc), "/proc/self/fd/%d/%s", base, name);
			else
				snprintf(proc, sizeof(proc), "%s", name);
			fd = open_pinned(c, proc, flags, mode, a, row->name);
			break;
		}
		/* keep a trailing slash: "file/" must still fail with ENOTDIR */
		size_t n = strlen(r.path), plen = strlen(name);
		if (plen > 0 && name[plen - 1] == '/' && n > 1 && n + 1 < sizeof(r.path)) {
			r.path[n] = '/';
			r.path[n + 1] = '\0';
		}
		if (r.exists && (flags & (O_CREAT | O_EXCL)) == (O_CREAT | O_EXCL)) {
			fd = -EEXIST; /* as the kernel says, before any FIFO would wait */
			break;
		}
		/* a FIFO is handed to a thread of its own (one stat tells; one
		 * swapped in after it only holds this worker until its other end
		 * opens: the pool goes on serving) */
		if (r.exists && !(flags & (O_NONBLOCK | O_PATH)) && fstatat(AT_FDCWD, r.path, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
		    S_ISFIFO(st.st_mode)) {
			long pin = open_nosymlinks(r.path, O_PATH, 0);
			long handed = pin >= 0 ? fifo_handoff(c, pin, flags) : 0;
			if (handed == ANSWERED) {
				fd = ANSWERED;
				break;
			}
			if (pin >= 0)
				close((int)pin);
		}
		fd = open_nosymlinks(r.path, flags, mode);
		if (fd == -ELOOP && (flags & O_NOFOLLOW))
			break; /* the final symlink itself: the kernel's own answer */
		if (fd >= 0 && (resolve & RESOLVE_NO_XDEV) && !same_mount(base, (int)fd)) {
			close((int)fd);
			fd = -EXDEV; /* ends on another mount (crossings on the way are not seen) */
			break;
		}
	}
	if (creates)
		umask(old);
	if (fd == ANSWERED)
		return fd; /* a FIFO: its thread answers */
	fd = deliverable(fd, flags, row->name, name);
	if (fd < 0)
		return fd;
	struct seccomp_notif_addfd add = {.id = c->req->id,
	                                  .flags = SECCOMP_ADDFD_FLAG_SEND,
	                                  .srcfd = (unsigned)fd,
	                                  .newfd = 0,
	                                  .newfd_flags = (unsigned)(flags & O_CLOEXEC)};
	hand_off(); /* the caller must be scheduled to take it: another worker receives meanwhile */
	int sent = ioctl(c->listener, SECCOMP_IOCTL_NOTIF_ADDFD, &add);
	int err = errno;
	close((int)fd);
	/* ENOENT: the caller is gone; another failure (EMFILE: its table is
	 * full) leaves it waiting, and it gets that error */
	return sent >= 0 ? ANSWERED : err == ENOENT ? NOBODY : -err;
}

/* How a name ends, where the kernel gives it meaning the checked object
 * does not carry: "x/." and "x/.." (every name-changing call fails on
 * them: it is made as given, for the kernel's own error), and "x/" (the
 * object must be a directory: the slash is kept on the final call). */
static int ends_in_dot(const char *name)
{
	const char *last = strrchr(name, '/');
	last = last ? last + 1 : name;
	return strcmp(last, ".") == 0 || strcmp(last, "..") == 0;
}

static int ends_in_slash(const char *name)
{
	size_t n = strlen(name);
	return n > 1 && name[n - 1] == '/';
}

/* base + "/" for a name given with a trailing slash (0, or -ENAMETOOLONG) */
static int keep_slash(const char *name, char *base, size_t cap)
{
	size_t n = strlen(base);
	if (!ends_in_slash(name) || strcmp(base, "/") == 0)
		return 0;
	if (n + 2 > cap)
		return -ENAMETOOLONG;
	base[n] = '/';
	base[n + 1] = '\0';
	return 0;
}

/* "link/" where link is a symlink: the resolver follows it (as lookups
 * do), but the calls that make or remove a name act on the link and fail
 * (EEXIST to make, ENOTDIR to remove or rename). 1 when so. */
static int slash_on_symlink(int dirfd, const char *name)
{
	char bare[PATH_MAX];
	struct jail_resolved r;
	struct stat st;
	size_t n = strlen(name);
	if (!ends_in_slash(name) || n >= sizeof(bare))
		return 0;
	memcpy(bare, name, n + 1);
	while (n > 1 && bare[n - 1] == '/')
		bare[--n] = '\0';
	return jail_resolve(dirfd, bare, JAIL_RES_NOFOLLOW, &r) == 0 && r.exists && r.kind == JAIL_OBJ_PATH &&
	       fstatat(AT_FDCWD, r.path, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISLNK(st.st_mode);
}

static long do_name(struct caller *c, const struct jail_sup_row *row)
{
	char name[PATH_MAX], target[PATH_MAX], base[NAME_MAX + 2];
	struct jail_resolved r;
	int dir, pdir = AT_FDCWD, rc;
	long flags = arg32(c, row->flags), mode = (long)(unsigned)arg32(c, row->mode);
	/* the name acted on: path, or for a symlink path2 (path is its text) */
	int link_text = row->op == JAIL_SUP_SYMLINK;
	long dirfd = link_text ? arg(c, row->dirfd2) : arg(c, row->dirfd);
	unsigned long at = (unsigned long)(link_text ? arg(c, row->path2) : arg(c, row->path));
	if ((rc = read_string(c, at, target, sizeof(target))) || (rc = translate(c, target, name, sizeof(name))))
		return rc;
	if (link_text && (rc = read_string(c, (unsigned long)arg(c, row->path), target, sizeof(target))))
		return rc;
	if ((rc = base_dir(c, 0, dirfd, name, &dir)))
		return rc;
	if (!still_waiting(c))
		return NOBODY;
	long ret = -ELOOP;
	for (int attempt = 0; attempt < RETRIES && ret == -ELOOP; attempt++) {
		rc = check_here(c, dir, name, JAIL_WRITE, JAIL_RES_NOFOLLOW, row->name, &r);
		if (rc)
			return rc;
		if (r.kind != JAIL_OBJ_PATH || via_proc(r.path))
			return jail_refuse(row->name, name, "a name that is not a path cannot be changed here");
		if (r.deleted)
			return -ENOENT; /* in a directory that was removed */
		if (slash_on_symlink(dir, name))
			return row->op == JAIL_SUP_UNLINK ? -ENOTDIR : -EEXIST;
		if (ends_in_dot(name)) { /* fails in the kernel whatever it names */
			pdir = AT_FDCWD;
			snprintf(base, sizeof(base), "%s", "");
		} else if ((rc = open_parent(r.path, base, sizeof(base), &pdir)) || (rc = keep_slash(name, base, sizeof(base)))) {
			if (pdir != AT_FDCWD)
				close(pdir);
			return rc;
		}
		int where = ends_in_dot(name) ? dir : pdir;
		const char *nm = ends_in_dot(name) ? name : base;
		int creates = row->op == JAIL_SUP_MKDIR || row->op == JAIL_SUP_MKNOD; /* (a symlink's mode is fixed) */
		mode_t old = creates ? umask(caller_umask(c)) : 0;
		/* handle() sends only these four ops here */
		if (row->op == JAIL_SUP_MKDIR)
			ret = mkdirat(where, nm, (mode_t)mode);
		else if (row->op == JAIL_SUP_MKNOD)
			ret = mknodat(where, nm, (mode_t)mode, (dev_t)(unsigned)flags);
		else if (row->op == JAIL_SUP_UNLINK)
			ret = unlinkat(where, nm, (int)flags);
		else
			ret = symlinkat(target, where, nm);
		int err = errno;
		if (creates)
			umask(old);
		ret = ret < 0 ? -err : 0;
		if (pdir != AT_FDCWD)
			close(pdir);
		pdir = AT_FDCWD;
	}
	return ret;
}

/* The two names of a rename or link, each with where it starts; NOBODY
 * when the caller no longer waits. */
static int two_names(struct caller *c, const struct jail_sup_row *row, char a[PATH_MAX], int *da, char b[PATH_MAX],
                     int *db)
{
	char raw[PATH_MAX];
	int rc;
	if ((rc = read_string(c, (unsigned long)arg(c, row->path), raw, sizeof(raw))) ||
	    (rc = translate(c, raw, a, PATH_MAX)) ||
	    (rc = read_string(c, (unsigned long)arg(c, row->path2), raw, sizeof(raw))) ||
	    (rc = translate(c, raw, b, PATH_MAX)) || (rc = base_dir(c, 0, arg(c, row->dirfd), a, da)) ||
	    (rc = base_dir(c, 1, arg(c, row->dirfd2), b, db)))
		return rc;
	return still_waiting(c) ? 0 : (int)-ESRCH;
}

static long do_rename(struct caller *c, const struct jail_sup_row *row)
{
	char a[PATH_MAX], b[PATH_MAX], src[PATH_MAX], basea[NAME_MAX + 2], baseb[NAME_MAX + 2];
	struct jail_resolved r;
	int da, db, rc;
	long flags = arg32(c, row->flags);
	if ((rc = two_names(c, row, a, &da, b, &db)))
		return rc == -ESRCH ? NOBODY : rc;
	long ret = -ELOOP;
	for (int attempt = 0; attempt < RETRIES && ret == -ELOOP; attempt++) {
		rc = jail_check_rename_to(da, a, db, b, (unsigned)flags, row->name, src, &r);
		if (rc == 0)
			rc = proc_allowed(c, src, row->name) ?: proc_guard(c, &r, row->name);
		if (rc)
			return rc;
		if (r.kind != JAIL_OBJ_PATH || via_proc(src) || via_proc(r.path))
			return jail_refuse(row->name, a, "a name that is not a path cannot be renamed here");
		if (r.deleted)
			return -ENOENT;
		if (slash_on_symlink(da, a) || slash_on_symlink(db, b))
			return -ENOTDIR;
		if (ends_in_dot(a) || ends_in_dot(b)) /* fails in the kernel whatever it names */
			return syscall(SYS_renameat2, da, a, db, b, (unsigned)flags) < 0 ? -errno : 0;
		int pa = AT_FDCWD, pb = AT_FDCWD;
		if ((rc = open_parent(src, basea, sizeof(basea), &pa)) ||
		    (rc = open_parent(r.path, baseb, sizeof(baseb), &pb)) || (rc = keep_slash(a, basea, sizeof(basea))) ||
		    (rc = keep_slash(b, baseb, sizeof(baseb)))) {
			ret = rc;
		} else {
			ret = syscall(SYS_renameat2, pa, basea, pb, baseb, (unsigned)flags) < 0 ? -errno : 0;
		}
		if (pa != AT_FDCWD)
			close(pa);
		if (pb != AT_FDCWD)
			close(pb);
	}
	return ret;
}

static long do_link(struct caller *c, const struct jail_sup_row *row)
{
	char a[PATH_MAX], b[PATH_MAX], baseb[NAME_MAX + 2];
	struct jail_resolved ra, rb;
	int da, db, rc;
	long flags = arg32(c, row->flags);
	if (flags & AT_EMPTY_PATH)
		return -ENOENT; /* needs CAP_DAC_READ_SEARCH, which the jail's processes do not get */
	unsigned rf = (flags & AT_SYMLINK_FOLLOW) ? 0 : JAIL_RES_NOFOLLOW;
	if ((rc = two_names(c, row, a, &da, b, &db)))
		return rc == -ESRCH ? NOBODY : rc;
	long ret = -ELOOP;
	for (int attempt = 0; attempt < RETRIES && ret == -ELOOP; attempt++) {
		/* the existing file needs write too: a protected file cannot be
		 * imported into a writable directory by a hard link */
		if ((rc = check_here(c, da, a, JAIL_WRITE, rf, row->name, &ra)) ||
		    (rc = check_here(c, db, b, JAIL_WRITE, JAIL_RES_NOFOLLOW, row->name, &rb)))
			return rc;
		if (rb.kind != JAIL_OBJ_PATH || via_proc(rb.path))
			return jail_refuse(row->name, b, "a name that is not a path cannot be linked here");
		if (rb.deleted)
			return -ENOENT;
		if (slash_on_symlink(db, b))
			return -EEXIST;
		if (ends_in_dot(a) || ends_in_dot(b)) /* fails in the kernel whatever it names */
			return linkat(da, a, db, b, (int)flags) < 0 ? -errno : 0;
		/* the source pinned: by its symlink-free path, or through the magic
		 * link it was named by (a deleted or O_TMPFILE file), and checked
		 * again as pinned */
		char pinpath[PATH_MAX + 64];
		if (ra.kind == JAIL_OBJ_PATH && !ra.deleted && !via_proc(ra.path))
			snprintf(pinpath, sizeof(pinpath), "%s", ra.path);
		else if (da != AT_FDCWD && a[0] != '/')
			snprintf(pinpath, sizeof(pinpath), "/proc/self/fd/%d/%s", da, a);
		else
			snprintf(pinpath, sizeof(pinpath), "%s", a);
		int plain = pinpath[0] == '/' && !via_proc(pinpath);
		long pin = plain ? open_nosymlinks(pinpath, O_PATH | O_NOFOLLOW, 0) : open(pinpath, O_PATH | O_CLOEXEC);
		if (!plain && pin < 0)
			pin = -errno;
		if (pin < 0) {
			ret = pin;
			continue;
		}
		rc = jail_check_fd((int)pin, JAIL_WRITE, row->name);
		int pb = AT_FDCWD;
		if (rc == 0)
			rc = open_parent(rb.path, baseb, sizeof(baseb), &pb);
		if (rc == 0)
			rc = keep_slash(b, baseb, sizeof(baseb));
		if (rc == 0) {
			char self[64];
			snprintf(self, sizeof(self), "/proc/self/fd/%d", (int)pin);
			ret = linkat(AT_FDCWD, self, pb, baseb, AT_SYMLINK_FOLLOW) < 0 ? -errno : 0;
		} else {
			ret = rc;
		}
		close((int)pin);
		if (pb != AT_FDCWD)
			close(pb);
	}
	return ret;
}

/* ---- metadata writes: on the object pinned by its checked path ---- */

/* The times a utimensat-family call carries, as utimensat takes them; NULL
 * (now) when the call passed none. */
static int read_times(struct caller *c, const struct jail_sup_row *row, struct timespec ts[2], int *given)
{
	unsigned long at = (unsigned long)arg(c, row->extra);
	*given = at != 0;
	if (!at)
		return 0;
	if (row->op == JAIL_SUP_UTIMENS)
		return read_mem(c, ts, 2 * sizeof(ts[0]), at) == (ssize_t)(2 * sizeof(ts[0])) ? 0 : -EFAULT;
	if (row->op == JAIL_SUP_UTIMES) {
		struct timeval tv[2];
		if (read_mem(c, tv, sizeof(tv), at) != (ssize_t)sizeof(tv))
			return -EFAULT;
		for (int i = 0; i < 2; i++) {
			if (tv[i].tv_usec < 0 || tv[i].tv_usec >= 1000000)
				return -EINVAL;
			ts[i] = (struct timespec){tv[i].tv_sec, tv[i].tv_usec * 1000};
		}
		return 0;
	}
	struct utimbuf ub;
	if (read_mem(c, &ub, sizeof(ub), at) != (ssize_t)sizeof(ub))
		return -EFAULT;
	ts[0] = (struct timespec){ub.actime, 0};
	ts[1] = (struct timespec){ub.modtime, 0};
	return 0;
}

static int tgid_of(pid_t tid);

/* Extended attributes of the pinned object, through the pin's
 * /proc/self/fd name, which the path forms resolve to the object itself
 * (the *xattrat forms refuse an O_PATH descriptor). A symlink's own
 * attributes (the l* forms on a link) are reached through its checked
 * parent directory, its last name not followed: whatever is there now lies
 * at the path that was decided. buf and size: the value, or the list. */
static long xattr_on(int pin, const char *checked, int nofollow, enum jail_sup_op op, const char *name, void *buf,
                     size_t size, int xflags)
{
	char where[PATH_MAX + 64], base[NAME_MAX + 1];
	struct stat st;
	int parent = AT_FDCWD, link = 0;
	long r;
	if (fstat(pin, &st) != 0)
		return -errno;
	if (nofollow && S_ISLNK(st.st_mode)) {
		if (!checked || checked[0] != '/' || via_proc(checked) || open_parent(checked, base, sizeof(base), &parent) != 0 ||
		    parent == AT_FDCWD)
			return -EOPNOTSUPP;
		snprintf(where, sizeof(where), "/proc/self/fd/%d/%s", parent, base);
		link = 1;
	} else {
		snprintf(where, sizeof(where), "/proc/self/fd/%d", pin);
	}
	if (op == JAIL_SUP_GETXATTR)
		r = link ? lgetxattr(where, name, buf, size) : getxattr(where, name, buf, size);
	else if (op == JAIL_SUP_SETXATTR)
		r = link ? lsetxattr(where, name, buf, size, xflags) : setxattr(where, name, buf, size, xflags);
	else if (op == JAIL_SUP_LISTXATTR)
		r = link ? llistxattr(where, buf, size) : listxattr(where, buf, size);
	else
		r = link ? lremovexattr(where, name) : removexattr(where, name);
	r = r < 0 ? -errno : r;
	if (parent != AT_FDCWD)
		close(parent);
	return r;
}

/* What a metadata call carries besides its path, read before deciding. */
struct meta_args {
	long flags, mode, extra; /* extra: a pointer, or truncate's length (64 bits) */
	unsigned rf;             /* how the path resolves (jail_resolve's flags) */
	struct timespec ts[2];
	int times_given;
	char xname[XATTR_NAME_MAX + 1]; /* an extended attribute's name */
	char *xbuf;                     /* its value, or the list (at most XATTR_SIZE_MAX) */
	size_t xsize;
};

static long meta_on(struct caller *c, const struct jail_sup_row *row, int base, const char *name,
                    struct meta_args *m);

/* Reads an xattr call's name and (setxattr) value: 0 or -errno. */
static int read_xattr_args(struct caller *c, const struct jail_sup_row *row, struct meta_args *m)
{
	int named = row->op == JAIL_SUP_GETXATTR || row->op == JAIL_SUP_SETXATTR || row->op == JAIL_SUP_REMOVEXATTR;
	int rc;
	m->xsize = (size_t)arg(c, row->mode);
	if (named && (rc = read_string(c, (unsigned long)arg(c, row->path2), m->xname, sizeof(m->xname))))
		return rc == -ENAMETOOLONG ? -ERANGE : rc; /* the kernel's answer for a name over 255 bytes */
	if (named && m->xname[0] == '\0')
		return -ERANGE;
	if (row->op == JAIL_SUP_SETXATTR && m->xsize > XATTR_SIZE_MAX)
		return -E2BIG;
	if (row->op == JAIL_SUP_REMOVEXATTR || row->op == JAIL_SUP_STATFS || m->xsize == 0)
		return 0;
	if (m->xsize > XATTR_SIZE_MAX)
		m->xsize = XATTR_SIZE_MAX; /* no value or list is longer */
	if (!(m->xbuf = malloc(m->xsize)))
		return -ENOMEM;
	if (row->op == JAIL_SUP_SETXATTR && read_mem(c, m->xbuf, m->xsize, (unsigned long)m->extra) != (ssize_t)m->xsize)
		return -EFAULT;
	return 0;
}

/* Metadata writes and reads, on the object pinned by its checked path. */
static long do_meta(struct caller *c, const struct jail_sup_row *row)
{
	char raw[PATH_MAX], name[PATH_MAX];
	int base, rc;
	struct meta_args m = {.flags = arg32(c, row->flags), .mode = arg32(c, row->mode), .extra = arg(c, row->extra)};
	unsigned long at = (unsigned long)arg(c, row->path);
	m.rf = (m.flags & AT_SYMLINK_NOFOLLOW ? JAIL_RES_NOFOLLOW : 0) | (m.flags & AT_EMPTY_PATH ? JAIL_RES_EMPTY_PATH : 0);
	if (row->op == JAIL_SUP_UTIMENS && at == 0) {
		raw[0] = '\0'; /* utimensat(fd, NULL, ...) acts on fd itself */
		m.rf |= JAIL_RES_EMPTY_PATH;
	} else if ((rc = read_string(c, at, raw, sizeof(raw)))) {
		return rc;
	}
	if (raw[0] == '\0' && !(m.rf & JAIL_RES_EMPTY_PATH))
		return -ENOENT;
	if (row->op == JAIL_SUP_READLINK && (strcmp(raw, "/proc/self") == 0 || strcmp(raw, "/proc/thread-self") == 0)) {
		char text[64]; /* these name the caller: what the kernel would answer it */
		int tgid = tgid_of(c->tid);
		int len = raw[6] == 's' ? snprintf(text, sizeof(text), "%d", tgid)
		                        : snprintf(text, sizeof(text), "%d/task/%d", tgid, (int)c->tid);
		if ((long)m.mode <= 0)
			return -EINVAL;
		len = len < (int)m.mode ? len : (int)m.mode;
		return (rc = write_mem(c, text, (size_t)len, (unsigned long)m.extra)) ? rc : len;
	}
	long ret = read_xattr_args(c, row, &m);
	if (ret == 0 && !(ret = translate(c, raw, name, sizeof(name))) &&
	    !(ret = base_dir(c, 0, arg(c, row->dirfd), name, &base)) &&
	    (row->op == JAIL_SUP_UTIMENS || row->op == JAIL_SUP_UTIMES || row->op == JAIL_SUP_UTIME))
		ret = read_times(c, row, m.ts, &m.times_given);
	if (ret == 0)
		ret = still_waiting(c) ? meta_on(c, row, base, name, &m) : NOBODY;
	free(m.xbuf);
	return ret;
}

/* do_meta, once what the call carries is read: decides, pins, and acts. */
static long meta_on(struct caller *c, const struct jail_sup_row *row, int base, const char *name,
                    struct meta_args *m)
{
	char pinpath[PATH_MAX + 64];
	struct jail_resolved r;
	int rc;
	long flags = m->flags, mode = m->mode, extra = m->extra;
	unsigned rf = m->rf;
	int nofollow = (flags & AT_SYMLINK_NOFOLLOW) != 0;
	int reads = row->op == JAIL_SUP_STAT || row->op == JAIL_SUP_STATX || row->op == JAIL_SUP_ACCESS ||
	            row->op == JAIL_SUP_READLINK || row->op == JAIL_SUP_STATFS || row->op == JAIL_SUP_GETXATTR ||
	            row->op == JAIL_SUP_LISTXATTR;
	enum jail_access a = reads ? JAIL_META : JAIL_WRITE;
	if (row->op == JAIL_SUP_READLINK)
		nofollow = 1, rf |= JAIL_RES_NOFOLLOW;
	/* the common route pins the object (O_PATH|O_NOFOLLOW pins a final
	 * symlink itself); extended attributes are made by the name: the exact
	 * route */
	int xattr = row->op == JAIL_SUP_GETXATTR || row->op == JAIL_SUP_SETXATTR || row->op == JAIL_SUP_LISTXATTR ||
	            row->op == JAIL_SUP_REMOVEXATTR;
	long pin = xattr ? -ELOOP : common_route(name, a, &r, O_PATH | O_CLOEXEC | (nofollow ? O_NOFOLLOW : 0), 0);
	if (pin != -ELOOP) {
		/* pinned, or the kernel's own answer for a symlink-free walk */
	} else if ((rc = check_here(c, base, name, a, rf, row->name, &r))) {
		return rc;
	} else if (r.kind == JAIL_OBJ_PATH && !r.deleted && !via_proc(r.path) && name[0] != '\0') {
		pin = open_nosymlinks(r.path, O_PATH | (nofollow ? O_NOFOLLOW : 0), 0);
	} else {
		if (name[0] == '\0' && base != AT_FDCWD) {
			pin = fcntl(base, F_DUPFD_CLOEXEC, 0); /* AT_EMPTY_PATH: the descriptor's own object */
		} else {
			if (base != AT_FDCWD && name[0] != '/')
				snprintf(pinpath, sizeof(pinpath), "/proc/self/fd/%d/%s", base, name);
			else
				snprintf(pinpath, sizeof(pinpath), "%s", name);
			pin = open(pinpath, O_PATH | O_CLOEXEC | (nofollow ? O_NOFOLLOW : 0));
		}
		if (pin < 0)
			pin = -errno;
		else if ((rc = jail_check_fd((int)pin, a, row->name))) {
			close((int)pin);
			return rc;
		}
	}
	if (pin < 0)
		return pin; /* ELOOP: a symlink appeared after the check; the caller may retry */
	struct stat pst;
	if (ends_in_slash(name) && (fstat((int)pin, &pst) != 0 || !S_ISDIR(pst.st_mode))) {
		close((int)pin);
		return -ENOTDIR; /* "file/" names no directory */
	}
	long ret = 0;
	char self[64];
	snprintf(self, sizeof(self), "/proc/self/fd/%d", (int)pin);
	switch (row->op) {
	case JAIL_SUP_TRUNCATE: {
		struct stat st;
		int w = -1;
		if (fstat((int)pin, &st) != 0)
			ret = -errno;
		else if (S_ISDIR(st.st_mode))
			ret = -EISDIR;
		else if (!S_ISREG(st.st_mode))
			ret = -EINVAL;
		else if ((w = open(self, O_WRONLY | O_CLOEXEC | O_NONBLOCK)) < 0 || ftruncate(w, (off_t)extra) != 0)
			ret = -errno;
		if (w >= 0)
			close(w);
		break;
	}
	case JAIL_SUP_CHMOD:
		/* fchmodat2 (Linux 6.6) acts on the pinned object itself, a symlink
		 * included (EOPNOTSUPP, as the kernel says for the caller) */
		ret = syscall(SYS_fchmodat2, (int)pin, "", (mode_t)mode, AT_EMPTY_PATH) == 0 ? 0 : -errno;
		if (ret == -ENOSYS)
			ret = chmod(self, (mode_t)mode) == 0 ? 0 : -errno;
		break;
	case JAIL_SUP_CHOWN:
		ret = fchownat((int)pin, "", (uid_t)mode, (gid_t)extra, AT_EMPTY_PATH) == 0 ? 0 : -errno;
		break;
	case JAIL_SUP_UTIMENS:
	case JAIL_SUP_UTIMES:
	case JAIL_SUP_UTIME:
		ret = utimensat((int)pin, "", m->times_given ? m->ts : NULL, AT_EMPTY_PATH) == 0 ? 0 : -errno;
		break;
	case JAIL_SUP_STAT: {
		struct stat st;
		ret = fstatat((int)pin, "", &st, AT_EMPTY_PATH) == 0 ? write_mem(c, &st, sizeof(st), (unsigned long)extra)
		                                                    : -errno;
		break;
	}
	case JAIL_SUP_STATX: {
		struct statx stx;
		unsigned sync = (unsigned)flags & AT_STATX_SYNC_TYPE;
		ret = statx((int)pin, "", AT_EMPTY_PATH | (int)sync, (unsigned)mode, &stx) == 0
		          ? write_mem(c, &stx, sizeof(stx), (unsigned long)extra)
		          : -errno;
		break;
	}
	case JAIL_SUP_ACCESS:
		/* with the supervisor's credentials: the jail's, since it runs as
		 * the same user and nothing in the jail can change identity */
		ret = syscall(SYS_faccessat2, (int)pin, "", (int)mode, AT_EMPTY_PATH | ((int)flags & AT_EACCESS)) == 0
		          ? 0
		          : -errno;
		break;
	case JAIL_SUP_READLINK: {
		char text[PATH_MAX];
		struct stat st;
		size_t want = (size_t)mode < sizeof(text) ? (size_t)mode : sizeof(text);
		ssize_t got;
		if ((long)mode <= 0 || (fstat((int)pin, &st) == 0 && !S_ISLNK(st.st_mode)))
			got = (errno = EINVAL, -1); /* not a symlink: the kernel's answer */
		else
			got = readlinkat((int)pin, "", text, want);
		ret = got < 0 ? -errno : write_mem(c, text, (size_t)got, (unsigned long)extra);
		if (ret == 0)
			ret = got;
		break;
	}
	case JAIL_SUP_STATFS: {
		struct statfs sfs;
		ret = fstatfs((int)pin, &sfs) == 0 ? write_mem(c, &sfs, sizeof(sfs), (unsigned long)extra) : -errno;
		break;
	}
	case JAIL_SUP_GETXATTR:
	case JAIL_SUP_LISTXATTR:
		ret = xattr_on((int)pin, r.path, nofollow, row->op, m->xname, m->xbuf, m->xsize, 0);
		if (ret > 0 && m->xsize) {
			int w = write_mem(c, m->xbuf, (size_t)ret, (unsigned long)extra);
			if (w)
				ret = w;
		}
		break;
	case JAIL_SUP_SETXATTR:
		ret = xattr_on((int)pin, r.path, nofollow, row->op, m->xname, m->xbuf, m->xsize, (int)arg(c, row->dirfd2));
		break;
	case JAIL_SUP_REMOVEXATTR:
		ret = xattr_on((int)pin, r.path, nofollow, row->op, m->xname, NULL, 0, 0);
		break;
	case JAIL_SUP_OPEN:
	case JAIL_SUP_OPENAT2:
	case JAIL_SUP_MKDIR:
	case JAIL_SUP_MKNOD:
	case JAIL_SUP_UNLINK:
	case JAIL_SUP_RENAME:
	case JAIL_SUP_LINK:
	case JAIL_SUP_SYMLINK:
	case JAIL_SUP_CONNECT:
	case JAIL_SUP_BIND:
	case JAIL_SUP_SENDTO:
	case JAIL_SUP_SENDMSG:
	case JAIL_SUP_SENDMMSG:
		ret = -ENOSYS;
		break;
	}
	close((int)pin);
	return ret;
}

/* ---- path sockets ---- */

static int tgid_of(pid_t tid)
{
	char v[16];
	return read_proc_line(tid, "status", "Tgid:\t", v, sizeof(v)) == 0 ? atoi(v) : -1;
}

/* LET_THROUGH: the kernel makes the call (not a path: nothing here to decide; the
 * kernel layer's rules for the caller then apply, which they would not to a
 * call the supervisor made). What this trusts: the address is read twice,
 * here and by the kernel, so a program written to race a path in between
 * could reach a path socket unchecked. */

/* The caller's socket, as a descriptor of the supervisor's (the same open
 * socket: what is done on it is done on the caller's). */
static int caller_socket(struct caller *c, long fd)
{
	int pidfd = (int)syscall(SYS_pidfd_open, tgid_of(c->tid), 0);
	int sock = pidfd < 0 ? -1 : (int)syscall(SYS_pidfd_getfd, pidfd, (int)fd, 0);
	int err = errno;
	if (pidfd >= 0)
		close(pidfd);
	return sock >= 0 ? sock : (err == EBADF ? -EBADF : -err);
}

/* A connection may wait (a TCP handshake, a timeout): it is made by a
 * thread of its own, on the caller's socket, to the address as decided,
 * and the thread answers the caller; the supervisor goes on. */
struct inet_connect {
	int listener, sock, pin; /* pin: a path socket's, held until connected (-1: none) */
	__u64 id;
	socklen_t len;
	struct sockaddr_storage a;
};

static void *connect_inet(void *arg)
{
	struct inet_connect *f = arg;
	int rc = connect(f->sock, (struct sockaddr *)&f->a, f->len) == 0 ? 0 : errno;
	struct seccomp_notif_resp resp = {.id = f->id, .val = rc ? -1 : 0, .error = -rc};
	ioctl(f->listener, SECCOMP_IOCTL_NOTIF_SEND, &resp);
	close(f->sock);
	if (f->pin >= 0)
		close(f->pin);
	free(f);
	return NULL;
}

/* ANSWERED: a thread connects sock (and owns it and pin from now on) to
 * the address as decided, and answers the caller; or -errno. */
static long connect_later(struct caller *c, int sock, int pin, const void *addr, socklen_t len)
{
	struct inet_connect *f = calloc(1, sizeof(*f));
	if (!f)
		return -ENOMEM;
	*f = (struct inet_connect){.listener = c->listener, .sock = sock, .pin = pin, .id = c->req->id, .len = len};
	memcpy(&f->a, addr, len);
	int prc = detached(connect_inet, f);
	if (prc != 0) {
		free(f);
		return -prc;
	}
	return ANSWERED;
}

/* The kernel layer's TCP port bound (landlock_linux.c), which a connection
 * made from outside the jail's Landlock domain must hold itself. */
static int outside_port_bound(int sock, unsigned port)
{
	const struct jail_config *cfg = jail_config();
	uint16_t ports[JAIL_NET_MAX_PORTS];
	int type = 0;
	socklen_t tl = sizeof(type);
	if (self_view.landlock_abi < 4 || getsockopt(sock, SOL_SOCKET, SO_TYPE, &type, &tl) != 0 || type != SOCK_STREAM)
		return 0;
	if (cfg->proxy_port && port == cfg->proxy_port)
		return 0; /* the proxy's port is granted in the kernel too */
	for (int i = 0; i < cfg->nlayers; i++) {
		if (jail_policy_mode(cfg->layer[i]) == JAIL_MODE_AUDIT || jail_policy_kernel(cfg->layer[i]) == JAIL_KERNEL_OFF)
			continue;
		int n = jail_net_ports(cfg->layer[i], ports, JAIL_NET_MAX_PORTS), k = 0;
		while (k < n && ports[k] != port)
			k++;
		if (n >= 0 && k == n)
			return 1;
	}
	return 0;
}

/* The call comes from the shim's syscall page: the library decided it
 * (only connect is sent here from the page, in ask mode: jail_sup_always). */
static int from_page(const struct caller *c)
{
	return ((unsigned long)c->req->data.instruction_pointer & ~4095UL) == JAIL_SYSCALL_PAGE;
}

/* connect to an internet address: decided by the net rules on the address
 * alone (the supervisor does not see the caller's name lookups: a program
 * past the C library reaches allowed names through the jail's proxy). */
static long connect_internet(struct caller *c, const struct jail_sup_row *row, long len, unsigned long at)
{
	struct sockaddr_storage a = {0};
	if ((size_t)len > sizeof(a))
		return -EINVAL;
	if (read_mem(c, &a, (size_t)len, at) != (ssize_t)len)
		return -EFAULT;
	/* from the page, decided by the library with names it resolved (which
	 * only an address rule outranks); from anywhere else, by the address */
	long rc = from_page(c) ? jail_check_inet_rules(&a, (unsigned)len, 0, row->name)
	                       : jail_check_inet(&a, (unsigned)len, 0, row->name);
	if (rc != 0 || (a.ss_family != AF_INET && a.ss_family != AF_INET6))
		return rc ? rc : LET_THROUGH; /* refused; or no address (AF_UNSPEC: a disconnect) */
	int sock = caller_socket(c, arg(c, row->dirfd));
	if (sock < 0)
		return sock;
	unsigned port = ntohs(a.ss_family == AF_INET ? ((struct sockaddr_in *)&a)->sin_port
	                                             : ((struct sockaddr_in6 *)&a)->sin6_port);
	long ret = outside_port_bound(sock, port) ? jail_refuse(row->name, "(an internet address)",
	                                                        "the kernel layer lets TCP reach only the ports the "
	                                                        "net allow rules name")
	           : !still_waiting(c)            ? NOBODY
	                                          : connect_later(c, sock, -1, &a, (socklen_t)len);
	if (ret != ANSWERED)
		close(sock);
	return ret;
}

static long do_socket(struct caller *c, const struct jail_sup_row *row)
{
	hand_off(); /* a connect may wait on its peer */
	struct sockaddr_un un;
	long len = arg32(c, row->mode); /* an int to the kernel, whatever the register's upper half */
	unsigned long at = (unsigned long)arg(c, row->path);
	size_t head = offsetof(struct sockaddr_un, sun_path);
	if (len <= (long)head || at == 0)
		return LET_THROUGH; /* unnamed, or the kernel's own EINVAL/EFAULT */
	size_t n = (size_t)len < sizeof(un) ? (size_t)len : sizeof(un);
	memset(&un, 0, sizeof(un));
	if (read_mem(c, &un, n, at) != (ssize_t)n)
		return -EFAULT;
	if (un.sun_family != AF_UNIX && row->op == JAIL_SUP_CONNECT)
		return connect_internet(c, row, len, at);
	if (un.sun_family != AF_UNIX || un.sun_path[0] == '\0')
		return LET_THROUGH; /* another family (binding), or the abstract namespace */
	char raw[sizeof(un.sun_path) + 1], name[PATH_MAX], base[NAME_MAX + 2];
	memcpy(raw, un.sun_path, n - head);
	raw[n - head] = '\0';
	struct jail_resolved r;
	int dir, rc;
	int binding = row->op == JAIL_SUP_BIND;
	if ((rc = translate(c, raw, name, sizeof(name))) || (rc = base_dir(c, 1, AT_FDCWD, name, &dir)))
		return rc;
	int sock = caller_socket(c, arg(c, row->dirfd));
	if (sock < 0)
		return sock;
	/* the library asking the broker (ask mode): its own socket, which the
	 * policy refuses to everything else; the broker decides what it hears */
	const char *ask = jail_config()->ask_path;
	int asking = !binding && from_page(c) && ask && strcmp(name, ask) == 0;
	long ret;
	if (!still_waiting(c)) {
		ret = NOBODY;
	} else if (asking) {
		r.kind = JAIL_OBJ_PATH;
		snprintf(r.path, sizeof(r.path), "%s", ask);
		ret = 0;
	} else {
		ret = check_here(c, dir, name, JAIL_WRITE, binding ? JAIL_RES_NOFOLLOW : 0, row->name, &r);
	}
	if (ret == 0) {
		/* the checked object (connect) or directory (bind), reached through
		 * the supervisor's own descriptor for it */
		int pin = -1;
		struct sockaddr_un via = {.sun_family = AF_UNIX};
		if (binding) {
			ret = open_parent(r.path, base, sizeof(base), &pin);
			if (ret == 0 && pin == AT_FDCWD)
				ret = -EADDRINUSE; /* "/" */
			if (ret == 0 &&
			    (size_t)snprintf(via.sun_path, sizeof(via.sun_path), "/proc/self/fd/%d/%s", pin, base) >=
			        sizeof(via.sun_path))
				ret = -ENAMETOOLONG;
		} else {
			pin = (int)open_nosymlinks(r.path, O_PATH, 0);
			ret = pin < 0 ? pin : 0;
			if (ret == 0)
				snprintf(via.sun_path, sizeof(via.sun_path), "/proc/self/fd/%d", pin);
		}
		if (ret == 0 && binding) {
			mode_t old = umask(caller_umask(c));
			ret = bind(sock, (struct sockaddr *)&via, sizeof(via)) == 0 ? 0 : -errno;
			umask(old);
		} else if (ret == 0) {
			/* a connect may wait (a listener whose backlog is full): a
			 * thread of its own makes it, as for internet addresses */
			ret = connect_later(c, sock, pin, &via, sizeof(via));
			if (ret == ANSWERED)
				return ret; /* the thread owns sock and pin */
		}
		if (pin >= 0)
			close(pin);
	}
	close(sock);
	return ret;
}

/* ---- sends with an address ----
 * A send past the C library may carry an address (sendto's argument, a
 * msghdr's msg_name) that a thread of the caller could change after it is
 * read, so none is let through: each destination is decided as connect's
 * is, and the supervisor sends from copies, on the caller's own socket (the
 * same open socket, so the receiver sees the caller's socket and name). */
#define SEND_MAX (1L << 20)     /* bytes of one message copied from the caller */
#define SENDMMSG_MAX (4L << 20) /* ... of all the messages of one sendmmsg */
#define CONTROL_MAX 65536       /* bytes of one message's control data */
#define JAIL_UIO_MAXIOV 1024    /* the kernel's most iovecs per message, and messages per sendmmsg */

struct out_msg {
	struct msghdr h;
	struct iovec iov;
	struct sockaddr_storage addr; /* the destination as decided; a path: through the pin */
	int pin;                       /* the supervisor's O_PATH descriptor of that path socket, or -1 */
	char *data, *control;
	int *fds; /* descriptors passed (SCM_RIGHTS), taken from the caller */
	size_t nfds;
	int abstract;    /* the destination is an abstract socket address (see decide_dest) */
	int short_write; /* a stream message cut to what was copied */
};

static void out_msg_free(struct out_msg *o)
{
	if (o->pin >= 0)
		close(o->pin);
	for (size_t i = 0; i < o->nfds; i++)
		close(o->fds[i]);
	free(o->fds);
	free(o->data);
	free(o->control);
	o->pin = -1, o->fds = NULL, o->nfds = 0, o->data = o->control = NULL;
}

/* The destination of a send, decided as connect decides it: an internet
 * address (AF_UNSPEC too, which a datagram socket takes for IPv4) by the
 * net rules, and for a TCP fast open by the kernel layer's port bound; a
 * path socket by write on its path, rewritten to reach the checked object
 * through the supervisor's pin; an abstract one is marked for the kernel
 * (its Landlock scope); an unnamed one, or another family, as given (the
 * copy is what is sent). */
static long decide_dest(struct caller *c, const char *op, int sock, struct out_msg *o)
{
	size_t head = offsetof(struct sockaddr_un, sun_path);
	socklen_t alen = o->h.msg_namelen;
	if (alen == 0)
		return 0;
	if (o->addr.ss_family != AF_UNIX) {
		long rc = jail_check_inet(&o->addr, alen, 1, op);
		if (rc || (o->addr.ss_family != AF_INET && o->addr.ss_family != AF_INET6))
			return rc;
		unsigned port = ntohs(o->addr.ss_family == AF_INET ? ((struct sockaddr_in *)&o->addr)->sin_port
		                                                   : ((struct sockaddr_in6 *)&o->addr)->sin6_port);
		return outside_port_bound(sock, port) ? jail_refuse(op, "(an internet address)",
		                                                    "the kernel layer lets TCP reach only the ports the "
		                                                    "net allow rules name")
		                                      : 0;
	}
	struct sockaddr_un *un = (struct sockaddr_un *)&o->addr;
	if (alen <= head)
		return 0;
	if (un->sun_path[0] == '\0') {
		/* an abstract address: the kernel layer's scope decides it (sockets
		 * outside the jail's Landlock domain are out of reach), which it
		 * would not for a send the supervisor made */
		o->abstract = 1;
		return 0;
	}
	char raw[sizeof(un->sun_path) + 1], name[PATH_MAX];
	size_t plen = alen - head < sizeof(un->sun_path) ? alen - head : sizeof(un->sun_path);
	memcpy(raw, un->sun_path, plen);
	raw[plen] = '\0';
	int dir = AT_FDCWD;
	long rc = translate(c, raw, name, sizeof(name));
	if (rc == 0 && name[0] != '/') {
		if (c->fds[1] >= 0)
			dir = c->fds[1]; /* the caller's working directory, opened for an earlier message */
		else
			rc = base_dir(c, 1, AT_FDCWD, name, &dir);
	}
	struct jail_resolved r;
	if (rc || (rc = check_here(c, dir, name, JAIL_WRITE, 0, op, &r)))
		return rc;
	int pin = (int)open_nosymlinks(r.path, O_PATH, 0);
	if (pin < 0)
		return pin;
	o->pin = pin;
	memset(un, 0, sizeof(*un));
	un->sun_family = AF_UNIX;
	snprintf(un->sun_path, sizeof(un->sun_path), "/proc/self/fd/%d", pin);
	o->h.msg_namelen = sizeof(*un);
	return 0;
}

/* A datagram longer than what is copied is refused as the kernel refuses
 * one too long; a stream takes what is copied (a short send). */
static long send_size(int sock, size_t want, size_t room)
{
	int type = 0;
	socklen_t tl = sizeof(type);
	if (want <= room)
		return (long)want;
	if (getsockopt(sock, SOL_SOCKET, SO_TYPE, &type, &tl) == 0 && type == SOCK_STREAM)
		return (long)room;
	return -EMSGSIZE;
}

/* Descriptors passed in the control data (SCM_RIGHTS) are the caller's:
 * each is replaced by the supervisor's copy of the same open file. */
static long take_passed_fds(struct caller *c, struct out_msg *o)
{
	for (struct cmsghdr *cm = CMSG_FIRSTHDR(&o->h); cm; cm = CMSG_NXTHDR(&o->h, cm)) {
		/* each header within the control data, as the kernel requires */
		size_t room = (size_t)((char *)o->control + o->h.msg_controllen - (char *)cm);
		if (cm->cmsg_len < sizeof(struct cmsghdr) || cm->cmsg_len > room)
			return -EINVAL;
		if (cm->cmsg_level != SOL_SOCKET || cm->cmsg_type != SCM_RIGHTS)
			continue;
		size_t k = (cm->cmsg_len - CMSG_LEN(0)) / sizeof(int);
		if (k > 253) /* SCM_MAX_FD */
			return -EINVAL;
		int *slot = (int *)(void *)CMSG_DATA(cm);
		int *more = realloc(o->fds, (o->nfds + k) * sizeof(int));
		if (!more)
			return -ENOMEM;
		o->fds = more;
		for (size_t i = 0; i < k; i++) {
			int theirs;
			memcpy(&theirs, slot + i, sizeof(int));
			int mine = caller_socket(c, theirs);
			if (mine < 0)
				return mine == -ENOENT ? -EBADF : mine;
			o->fds[o->nfds++] = mine;
			memcpy(slot + i, &mine, sizeof(int));
		}
	}
	return 0;
}

/* One message of the caller's (its msghdr, already read), copied and its
 * destination decided; room: the bytes of data it may take. The msghdr's
 * iovec array is the caller's, or (sendto's one buffer) local. */
static long prepare_msg(struct caller *c, const char *op, int sock, const struct msghdr *theirs,
                        const struct iovec *local, size_t room, struct out_msg *o)
{
	memset(o, 0, sizeof(*o));
	o->pin = -1;
	if (theirs->msg_name && theirs->msg_namelen) {
		/* as the kernel takes a msghdr's: a longer name is cut (sendto's is
		 * refused before this) */
		socklen_t alen = theirs->msg_namelen < sizeof(o->addr) ? theirs->msg_namelen : sizeof(o->addr);
		if (read_mem(c, &o->addr, alen, (unsigned long)theirs->msg_name) != (ssize_t)alen)
			return -EFAULT;
		o->h.msg_name = &o->addr;
		o->h.msg_namelen = alen;
	}
	if (theirs->msg_iovlen > JAIL_UIO_MAXIOV)
		return -EMSGSIZE;
	size_t niov = theirs->msg_iovlen, total = 0;
	struct iovec *iov = niov ? calloc(niov, sizeof(*iov)) : NULL;
	if (niov && !iov)
		return -ENOMEM;
	long rc = 0;
	if (local)
		memcpy(iov, local, niov * sizeof(*iov));
	else if (niov && read_mem(c, iov, niov * sizeof(*iov), (unsigned long)theirs->msg_iov) !=
	                     (ssize_t)(niov * sizeof(*iov)))
		rc = -EFAULT;
	for (size_t i = 0; rc == 0 && i < niov; i++)
		total += iov[i].iov_len < (size_t)SEND_MAX ? iov[i].iov_len : (size_t)SEND_MAX + 1;
	long n = rc ? rc : send_size(sock, total, room);
	o->short_write = n >= 0 && (size_t)n < total;
	if (n > 0 && !(o->data = malloc((size_t)n)))
		n = -ENOMEM;
	for (size_t i = 0, at = 0; n > 0 && i < niov && at < (size_t)n; i++) {
		size_t take = iov[i].iov_len < (size_t)n - at ? iov[i].iov_len : (size_t)n - at;
		if (take && read_mem(c, o->data + at, take, (unsigned long)iov[i].iov_base) != (ssize_t)take)
			n = -EFAULT;
		at += take;
	}
	free(iov);
	if (n < 0)
		return n;
	o->iov = (struct iovec){o->data, (size_t)n};
	o->h.msg_iov = &o->iov;
	o->h.msg_iovlen = 1;
	if (theirs->msg_control && theirs->msg_controllen) {
		if (theirs->msg_controllen > CONTROL_MAX)
			return -ENOBUFS;
		if (!(o->control = malloc(theirs->msg_controllen)))
			return -ENOMEM;
		if (read_mem(c, o->control, theirs->msg_controllen, (unsigned long)theirs->msg_control) !=
		    (ssize_t)theirs->msg_controllen)
			return -EFAULT;
		o->h.msg_control = o->control;
		o->h.msg_controllen = theirs->msg_controllen;
		if ((rc = take_passed_fds(c, o)))
			return rc;
	}
	return decide_dest(c, op, sock, o);
}

/* A send's result; EPIPE raises SIGPIPE in the caller, as the kernel would
 * have, unless it asked for MSG_NOSIGNAL (the supervisor always does). */
static long sent(struct caller *c, long r, int flags)
{
	if (r < 0 && errno == EPIPE && !(flags & MSG_NOSIGNAL))
		syscall(SYS_tgkill, tgid_of(c->tid), c->tid, SIGPIPE);
	return r < 0 ? -errno : r;
}

/* A socket connected to the ask-mode broker: what the supervisor sent on
 * it would carry the supervisor's credentials, which the broker trusts to
 * name the process a question is asked for. The library sends its own
 * questions from its page, unsupervised, with its own. */
static int talks_to_broker(int sock)
{
	const char *ask = jail_config()->ask_path;
	struct sockaddr_un peer;
	socklen_t len = sizeof(peer);
	if (!ask || getpeername(sock, (struct sockaddr *)&peer, &len) != 0 || peer.sun_family != AF_UNIX ||
	    len <= offsetof(struct sockaddr_un, sun_path))
		return 0;
	char path[sizeof(peer.sun_path) + 1];
	size_t n = len - offsetof(struct sockaddr_un, sun_path);
	memcpy(path, peer.sun_path, n < sizeof(peer.sun_path) ? n : sizeof(peer.sun_path));
	path[n < sizeof(peer.sun_path) ? n : sizeof(peer.sun_path)] = '\0';
	return strcmp(path, ask) == 0;
}

/* sendmmsg: every message decided (one refused refuses the call, as the
 * shim does), as many sent as SENDMMSG_MAX bytes of data hold (at least
 * one), and the kernel's counts written back into the caller's vector. */
static long send_many(struct caller *c, const struct jail_sup_row *row, int sock, unsigned long at, int flags)
{
	unsigned vlen = (unsigned)arg32(c, row->mode);
	if (vlen > JAIL_UIO_MAXIOV)
		vlen = JAIL_UIO_MAXIOV; /* what the kernel sends in one call */
	if (vlen == 0)
		return 0;
	struct mmsghdr *theirs = calloc(vlen, sizeof(*theirs)), *mine = calloc(vlen, sizeof(*mine));
	struct out_msg *o = calloc(vlen, sizeof(*o));
	long ret = theirs && mine && o ? 0 : -ENOMEM;
	unsigned n = 0; /* messages prepared, o[0..n) */
	size_t used = 0;
	if (ret == 0 && read_mem(c, theirs, vlen * sizeof(*theirs), at) != (ssize_t)(vlen * sizeof(*theirs)))
		ret = -EFAULT;
	while (ret == 0 && n < vlen) {
		size_t room = (size_t)SENDMMSG_MAX - used < (size_t)SEND_MAX ? (size_t)SENDMMSG_MAX - used : (size_t)SEND_MAX;
		ret = prepare_msg(c, row->name, sock, &theirs[n].msg_hdr, NULL, room, &o[n]);
		if (ret != 0) {
			out_msg_free(&o[n]); /* prepared in part */
			if (ret == -EMSGSIZE && n > 0)
				ret = 0; /* the rest another time: a short count */
			break;
		}
		mine[n].msg_hdr = o[n].h;
		mine[n].msg_hdr.msg_iov = &o[n].iov;
		used += o[n].iov.iov_len;
		n++;
		if (o[n - 1].short_write)
			break; /* what follows a cut stream message waits for the next call */
	}
	int abstract = 0, named = 0;
	for (unsigned i = 0; ret == 0 && i < n; i++) {
		abstract |= o[i].abstract;
		named |= o[i].h.msg_namelen && !o[i].abstract;
	}
	if (ret == 0 && abstract)
		/* abstract addresses: the kernel's (see decide_dest); mixed with
		 * addresses the supervisor decides, the batch cannot be split */
		ret = named ? jail_refuse(row->name, "(an abstract socket address among others)",
		                          "a batch mixing abstract and other addresses is not sent past the library")
		            : LET_THROUGH;
	if (ret == 0) {
		ret = still_waiting(c) ? sent(c, sendmmsg(sock, mine, n, flags | MSG_NOSIGNAL), flags) : NOBODY;
		for (long i = 0; ret > 0 && i < ret; i++) {
			unsigned long len_at = at + (unsigned long)i * sizeof(*theirs) + offsetof(struct mmsghdr, msg_len);
			if (write_mem(c, &mine[i].msg_len, sizeof(mine[i].msg_len), len_at) != 0)
				break;
		}
	}
	for (unsigned i = 0; o && i < n; i++)
		out_msg_free(&o[i]);
	free(o);
	free(mine);
	free(theirs);
	return ret;
}

static long do_send(struct caller *c, const struct jail_sup_row *row)
{
	hand_off(); /* a send may wait for room */
	int sock = caller_socket(c, arg(c, row->dirfd));
	if (sock < 0)
		return sock;
	int flags = (int)arg32(c, row->flags);
	unsigned long at = (unsigned long)arg(c, row->path);
	long ret = 0;
	struct msghdr theirs = {0};
	struct iovec one = {(void *)at, (size_t)arg(c, row->mode)}; /* sendto: one buffer */
	struct out_msg o = {.pin = -1};
	if (talks_to_broker(sock)) {
		ret = jail_refuse(row->name, "(the ask-mode broker's socket)", "only the library's own questions reach it");
	} else if (row->op == JAIL_SUP_SENDMMSG) {
		ret = send_many(c, row, sock, at, flags);
	} else if (row->op == JAIL_SUP_SENDTO) {
		socklen_t alen = (socklen_t)arg32(c, row->extra);
		theirs = (struct msghdr){.msg_name = (void *)arg(c, row->path2), .msg_namelen = alen, .msg_iovlen = 1};
		ret = (int)alen < 0 || alen > sizeof(struct sockaddr_storage)
		          ? -EINVAL
		          : prepare_msg(c, row->name, sock, &theirs, &one, SEND_MAX, &o);
	} else if (read_mem(c, &theirs, sizeof(theirs), at) != (ssize_t)sizeof(theirs)) {
		ret = -EFAULT;
	} else {
		ret = prepare_msg(c, row->name, sock, &theirs, NULL, SEND_MAX, &o);
	}
	if (ret == 0 && row->op != JAIL_SUP_SENDMMSG) /* (send_many sent its own) */
		ret = o.abstract         ? LET_THROUGH /* the kernel's (see decide_dest) */
		      : still_waiting(c) ? sent(c, sendmsg(sock, &o.h, flags | MSG_NOSIGNAL), flags)
		                         : NOBODY;
	out_msg_free(&o);
	close(sock);
	return ret;
}

/* ---- one notification ---- */

static const struct jail_sup_row *row_of(long nr)
{
	for (int i = 0; i < jail_sup_nrows; i++)
		if (jail_sup_rows[i].nr == nr)
			return &jail_sup_rows[i];
	return NULL;
}

static long handle(struct caller *c)
{
	const struct jail_sup_row *row = row_of(c->req->data.nr);
	if (!row)
		return -ENOSYS;
	/* (the caller's root and mount namespace are the supervisor's: the
	 * filter keeps them so, seccomp_linux.c's invariant 4) */
	if (!same_identity(c))
		return jail_refuse(row->name, "", "the caller runs as another user than the jail started as");
	switch (row->op) {
	case JAIL_SUP_OPEN:
	case JAIL_SUP_OPENAT2: {
		char path[PATH_MAX];
		int how2 = row->op == JAIL_SUP_OPENAT2; /* flags: a pointer, mode: a size */
		long flags = how2 ? arg(c, row->flags) : arg32(c, row->flags);
		long mode = how2 ? arg(c, row->mode) : (long)(unsigned)arg32(c, row->mode);
		unsigned long long resolve = 0;
		int rc = read_string(c, (unsigned long)arg(c, row->path), path, sizeof(path));
		if (rc)
			return rc;
		if (row->op == JAIL_SUP_OPENAT2) {
			struct open_how how = {0};
			size_t size = (size_t)mode;
			if (size < sizeof(how))
				return -EINVAL;
			if (read_mem(c, &how, sizeof(how), (unsigned long)flags) != (ssize_t)sizeof(how))
				return -EFAULT;
			if (size > 4096)
				return -E2BIG; /* the kernel's own limit */
			if (size > sizeof(how)) { /* a newer caller's struct: its extra fields must be zero */
				unsigned char tail[4096];
				size_t extra_len = size - sizeof(how);
				if (read_mem(c, tail, extra_len, (unsigned long)flags + sizeof(how)) != (ssize_t)extra_len)
					return -EFAULT;
				for (size_t i = 0; i < extra_len; i++)
					if (tail[i])
						return -E2BIG;
			}
			flags = (long)how.flags;
			mode = (long)how.mode;
			resolve = how.resolve;
		} else if (!(flags & (O_CREAT | __O_TMPFILE))) {
			mode = 0; /* open(2) ignores it then; openat2 would refuse it */
		}
		return do_open(c, row, arg(c, row->dirfd), path, flags, mode & 07777, resolve);
	}
	case JAIL_SUP_MKDIR:
	case JAIL_SUP_MKNOD:
	case JAIL_SUP_UNLINK:
	case JAIL_SUP_SYMLINK:
		return do_name(c, row);
	case JAIL_SUP_RENAME:
		return do_rename(c, row);
	case JAIL_SUP_LINK:
		return do_link(c, row);
	case JAIL_SUP_TRUNCATE:
	case JAIL_SUP_CHMOD:
	case JAIL_SUP_CHOWN:
	case JAIL_SUP_UTIMENS:
	case JAIL_SUP_UTIMES:
	case JAIL_SUP_UTIME:
	case JAIL_SUP_STAT:
	case JAIL_SUP_STATX:
	case JAIL_SUP_ACCESS:
	case JAIL_SUP_READLINK:
	case JAIL_SUP_STATFS:
	case JAIL_SUP_GETXATTR:
	case JAIL_SUP_SETXATTR:
	case JAIL_SUP_LISTXATTR:
	case JAIL_SUP_REMOVEXATTR:
		return do_meta(c, row);
	case JAIL_SUP_CONNECT:
	case JAIL_SUP_BIND:
		return do_socket(c, row);
	case JAIL_SUP_SENDTO:
	case JAIL_SUP_SENDMSG:
	case JAIL_SUP_SENDMMSG:
		return do_send(c, row);
	}
	return -ENOSYS;
}

/* The caller's name, for a log line. */
static const char *program_of(long tid)
{
	static __thread char comm[32];
	if (read_proc_line((pid_t)tid, "comm", NULL, comm, sizeof(comm)) != 0)
		comm[0] = '\0';
	return comm;
}

static _Atomic unsigned long served; /* calls received: see count_tell */

/* Answers one notification, already received into req. */
static void serve_one(int listener, struct seccomp_notif *req)
{
	atomic_fetch_add_explicit(&served, 1, memory_order_relaxed);
	struct caller c = {.req = req, .listener = listener, .tid = (pid_t)req->pid, .fds = {-1, -1}};
	jail_report_for(c.tid, program_of, 1);
	long rc = handle(&c);
	if (c.unseen && rc == -EFAULT)
		rc = -EACCES; /* it could not be seen what it asks: refused */
	for (int i = 0; i < 2; i++)
		if (c.fds[i] >= 0)
			close(c.fds[i]);
	if (rc == ANSWERED || rc == NOBODY)
		return; /* answered with the descriptor, or nobody is waiting */
	struct seccomp_notif_resp resp = {.id = req->id, .val = rc < 0 ? -1 : rc, .error = rc < 0 ? (int)rc : 0, .flags = 0};
	if (rc == LET_THROUGH) /* only do_socket says so, and only for no path */
		resp = (struct seccomp_notif_resp){.id = req->id, .flags = SECCOMP_USER_NOTIF_FLAG_CONTINUE};
	ioctl(listener, SECCOMP_IOCTL_NOTIF_SEND, &resp);
}

/* ---- the workers ----
 * One worker at a time holds the receiver role: it waits in
 * SECCOMP_IOCTL_NOTIF_RECV and serves what it receives itself, so that a
 * quick call costs the caller one wake-up there and one back (the kernel
 * wakes the waiter on the caller's CPU: SYNC_WAKE_UP). Before a step that
 * waits on something else -- placing a descriptor (the caller must be
 * scheduled to take it), a connect, a send -- the holder hands the role to
 * a parked worker (or starts one, up to WORKERS_MAX) and goes on with its
 * call; afterwards it takes the role back if it is free, or parks. A call
 * stuck elsewhere (a question at the terminal, a hung network file system)
 * loses the role to the main thread's watchdog after STUCK_NS, so a call
 * held for minutes holds its own worker alone, never the jail. Past
 * WORKERS_MAX busy workers, calls wait in the kernel for one.
 * Invariant: while the holder serves a call, pool.busy_since holds the
 * time it took the call (its token; 0 while it waits in RECV, when nothing
 * takes the role from it). Giving the role up -- the holder's hand_off, or
 * the watchdog -- is one compare-and-swap of that token to 0: exactly one of
 * them frees the role, and a holder whose token is gone has lost it. */
#define WORKERS_MAX 256
#define STUCK_NS (50 * 1000000LL)

static struct {
	int listener;
	size_t req_size;
	_Atomic int started, parked;
	_Atomic int held;             /* futex word: 1 while some worker holds the role */
	_Atomic long long busy_since; /* the holder's token: when it took its call (0: in RECV) */
} pool;

static __thread int holding;       /* this worker holds the role ... */
static __thread long long my_since; /* ... with this token (0: in RECV) */

static long long mono_ns(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec * 1000000000LL + t.tv_nsec;
}

static void futex_call(_Atomic int *word, int op, int val)
{
	syscall(SYS_futex, (int *)word, op, val, NULL, NULL, 0);
}

static int start_worker(void);

/* The role, free now, goes to a parked worker, or to a new one. */
static void role_freed(void)
{
	atomic_store(&pool.held, 0);
	if (atomic_load(&pool.parked) > 0)
		futex_call(&pool.held, FUTEX_WAKE_PRIVATE, 1);
	else
		start_worker(); /* (none past WORKERS_MAX: the next worker done takes it) */
}

/* Called by a worker before a step that may wait: if it holds the role,
 * another worker receives meanwhile. */
static void hand_off(void)
{
	long long mine = my_since;
	if (!holding)
		return;
	holding = 0;
	my_since = 0;
	if (mine && atomic_compare_exchange_strong(&pool.busy_since, &mine, 0))
		role_freed(); /* (otherwise the watchdog freed it already) */
}

static int take_role(void)
{
	int free_ = 0;
	if (!atomic_compare_exchange_strong(&pool.held, &free_, 1))
		return 0;
	holding = 1;
	my_since = 0;
	return 1;
}

/* The watchdog (the main thread, between its waits): a holder busy with
 * one call for longer than STUCK_NS loses the role. */
static void watch_role(void)
{
	long long since = atomic_load(&pool.busy_since);
	if (since && mono_ns() - since > STUCK_NS && atomic_compare_exchange_strong(&pool.busy_since, &since, 0))
		role_freed();
}

static void *worker(void *arg);

static int start_worker(void)
{
	/* a slot first: two workers starting at once take one each, not more */
	int n = pool.started;
	do {
		if (n >= WORKERS_MAX)
			return EAGAIN;
	} while (!atomic_compare_exchange_weak(&pool.started, &n, n + 1));
	pthread_t t;
	pthread_attr_t attr;
	sigset_t all, old;
	pthread_attr_init(&attr);
	pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
	/* signals are the main thread's: it forwards them and reaps children */
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	int rc = pthread_create(&t, &attr, worker, NULL);
	if (rc != 0)
		pool.started--;
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	pthread_attr_destroy(&attr);
	return rc;
}

static void *worker(void *arg)
{
	(void)arg;
	struct seccomp_notif *req = calloc(1, pool.req_size);
	/* a umask and working directory of its own: creations made for one
	 * caller take that caller's umask, whatever the other workers do */
	if (!req || unshare(CLONE_FS) != 0) {
		fprintf(stderr, "%s: cannot start a worker: %s\n", me, strerror(errno));
		kill(child, SIGKILL); /* the jail cannot be served as it should: it ends */
		exit(125);
	}
	for (;;) {
		if (!holding && !take_role()) {
			pool.parked++;
			futex_call(&pool.held, FUTEX_WAIT_PRIVATE, 1); /* until the role is free */
			pool.parked--;
			continue;
		}
		memset(req, 0, pool.req_size);
		if (ioctl(pool.listener, SECCOMP_IOCTL_NOTIF_RECV, req) != 0)
			continue; /* the caller went away (ENOENT), or a signal */
		long long none = 0, since = mono_ns();
		if (atomic_compare_exchange_strong(&pool.busy_since, &none, since))
			my_since = since;
		else
			holding = 0; /* (a token it did not set: not its role; cannot happen) */
		serve_one(pool.listener, req);
		if (holding) {
			long long mine = my_since;
			my_since = 0;
			if (!atomic_compare_exchange_strong(&pool.busy_since, &mine, 0))
				holding = 0; /* the watchdog took the role meanwhile */
		}
	}
	return NULL;
}

/* ---- the process ---- */

static void wake(int sig)
{
	(void)sig;
}

static void forward(int sig)
{
	if (child > 0)
		kill(child, sig);
}

static int exit_status(int st)
{
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

/* JAIL_SUPERVISE_STATS=FILE (jailrun's environment): at the end, "calls
 * N" in FILE, the number of calls the supervisor received, for the
 * benchmark and the tests that show which calls cost a round trip. FILE is
 * opened before the jail exists, never through a symlink, and written
 * through that descriptor: the jail may write where FILE is, and must not
 * be able to point the supervisor's write elsewhere. */
static int count_open(void)
{
	const char *file = getenv("JAIL_SUPERVISE_STATS");
	int fd = file ? open(file, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0644) : -1;
	unsetenv("JAIL_SUPERVISE_STATS");
	return fd;
}

static void count_tell(int fd)
{
	if (fd >= 0) {
		dprintf(fd, "calls %lu\n", atomic_load(&served));
		close(fd);
	}
}

int main(int argc, char **argv)
{
	if (argc < 3 || strcmp(argv[1], "--") != 0) {
		fprintf(stderr, "usage: %s -- COMMAND [ARG...]\n", me);
		return 125;
	}
	jail_config(); /* the jail's configuration, as the shim loads it: 125 when it cannot be */
	int count_fd = count_open();
	int sv[2];
	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) != 0) {
		perror(me);
		return 125;
	}
	/* orphans of the jail come back to the supervisor, so that it still
	 * knows them for the jail's (in_jail), and reaps them */
	prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0);
	child = fork();
	if (child < 0) {
		perror(me);
		return 125;
	}
	if (child == 0) {
		/* the launcher installs the filter once the kernel layer is in place
		 * (its Landlock rules need O_PATH opens a supervisor cannot answer),
		 * and hands the listener back through this socket */
		char fdnum[16];
		close(sv[0]);
		if (fcntl(sv[1], F_SETFD, 0) != 0)
			_exit(125);
		snprintf(fdnum, sizeof(fdnum), "%d", sv[1]);
		setenv(JAIL_ENV_SUPERVISOR, fdnum, 1);
		execvp(argv[2], argv + 2);
		fprintf(stderr, "%s: %s: %s\n", me, argv[2], strerror(errno));
		_exit(errno == ENOENT ? 127 : 126);
	}
	close(sv[1]);
	/* its workers' caches and the calls in flight hold descriptors: as many
	 * as the hard limit allows (the command keeps the limit it had) */
	struct rlimit nofile;
	if (getrlimit(RLIMIT_NOFILE, &nofile) == 0 && nofile.rlim_cur < nofile.rlim_max) {
		nofile.rlim_cur = nofile.rlim_max;
		setrlimit(RLIMIT_NOFILE, &nofile);
	}
	/* the terminal's signals reach the whole group: the command decides
	 * what they mean; the supervisor waits for it */
	signal(SIGINT, SIG_IGN);
	signal(SIGQUIT, SIG_IGN);
	struct sigaction sa = {.sa_handler = forward};
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	struct sigaction chld = {.sa_handler = wake}; /* an orphan's exit ends poll, to be reaped */
	sigaction(SIGCHLD, &chld, NULL);
	int listener = jail_seccomp_receive(sv[0]);
	close(sv[0]);
	int st;
	if (listener < 0) { /* the child said why */
		waitpid(child, &st, 0);
		return exit_status(st);
	}
	/* the caller and the supervisor take turns on one CPU (Linux 6.6):
	 * much less latency per call; older kernels refuse, harmlessly */
	unsigned long long sync_wake = JAIL_USER_NOTIF_FD_SYNC_WAKE_UP;
	ioctl(listener, JAIL_IOCTL_NOTIF_SET_FLAGS, sync_wake);
	struct seccomp_notif_sizes sizes;
	if (syscall(SYS_seccomp, SECCOMP_GET_NOTIF_SIZES, 0, &sizes) != 0) {
		perror(me);
		kill(child, SIGKILL);
		return 125;
	}
	pool.listener = listener;
	pool.req_size = sizes.seccomp_notif > sizeof(struct seccomp_notif) ? sizes.seccomp_notif
	                                                                    : sizeof(struct seccomp_notif);
	look_at_self();
	int pidfd = (int)syscall(SYS_pidfd_open, child, 0);
	int status = -1;
	if (pidfd < 0 || start_worker() != 0) {
		perror(me);
		kill(child, SIGKILL);
		status = 125;
	}
	/* the main thread waits for the command and reaps orphans; the
	 * listener is polled for its hang-up alone (no process uses the filter) */
	while (status < 0) {
		struct pollfd p[2] = {{listener, 0, 0}, {pidfd, POLLIN, 0}};
		if (poll(p, 2, (int)(STUCK_NS / 1000000)) < 0 && errno != EINTR) {
			perror(me);
			kill(child, SIGKILL);
			status = 125;
			break;
		}
		watch_role();
		pid_t w;
		while (status < 0 && (w = waitpid(-1, &st, WNOHANG)) > 0) /* the command, or an orphan */
			if (w == child)
				status = exit_status(st);
		if (status < 0 && p[0].revents & (POLLHUP | POLLERR)) {
			/* no process uses the filter any more: wait for the command */
			while (waitpid(child, &st, 0) < 0 && errno == EINTR)
				;
			status = exit_status(st);
		}
	}
	count_tell(count_fd);
	return status;
}
