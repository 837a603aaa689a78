/*
 * seccomp_linux.c — the filter that hands a jailed process's file system
 * calls to the supervisor (supervise.h).
 *
 * Invariants:
 *  1. Only calls listed in supervised.def are sent to the supervisor; the
 *     filter allows every other call unchanged.
 *  2. A listed call is allowed without supervision only when its
 *     instruction pointer lies in the shim's syscall page (os.h), whose
 *     calls the shim has already checked. What this trusts: a native
 *     program that maps that address itself can make unsupervised calls
 *     from it; the kernel layer (Landlock) remains the outer bound for it.
 *  3. Calls through another ABI (i386's int 0x80, x32) and io_uring_setup
 *     fail with ENOSYS: their file calls would not be seen.
 *  4. Every process under the filter keeps the root directory and mount
 *     namespace it started with, which are the supervisor's: chroot,
 *     pivot_root, setns into a mount namespace (or any, nstype 0), and
 *     unshare and clone with CLONE_NEWNS fail with EPERM; clone3, whose
 *     flags live in memory the filter cannot read, fails with ENOSYS (the
 *     C library then uses clone). So does the mount API that makes mounts
 *     outside every namespace's tree (open_tree, fsopen, fsmount, fspick,
 *     move_mount, mount_setattr, open_tree_attr: a directory of a detached
 *     mount reads as "/" in /proc). So a path a caller gives names, for the
 *     supervisor, the object it names for the caller, with no per-call check.
 *     mount and umount2 fail with EPERM too: a jail run as root would
 *     otherwise bind a denied tree under an allowed name.
 */
#define _GNU_SOURCE
#include "supervise.h"
#include "os.h"

#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <stdlib.h>
#include <string.h>
#include <sched.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <unistd.h>

#if defined(__x86_64__)
#ifndef SYS_fchmodat2
#define SYS_fchmodat2 452 /* Linux 6.6; older headers lack it, and the filter must not */
#endif
#define A(i) {(i), 0}
#define K(v) {-1, (long)(v)}
const struct jail_sup_row jail_sup_rows[] = {
#define JAIL_SUP(name, op, d, p, d2, p2, fl, md, x) {#name, SYS_##name, JAIL_SUP_##op, d, p, d2, p2, fl, md, x},
#include "supervised.def"
#undef JAIL_SUP
};
#undef A
#undef K
const int jail_sup_nrows = (int)(sizeof(jail_sup_rows) / sizeof(jail_sup_rows[0]));

#define JAIL_AUDIT_ARCH AUDIT_ARCH_X86_64
#define JAIL_FOREIGN_NR 0x40000000u /* __X32_SYSCALL_BIT */
#define JAIL_NR_SETXATTRAT 463      /* to removexattrat, 466 (Linux 6.13) */
#define JAIL_NR_REMOVEXATTRAT 466
#define JAIL_NR_OPEN_TREE 428 /* then move_mount, fsopen, fsconfig, fsmount, fspick (433): Linux 5.2 */
#define JAIL_NR_FSPICK 433
#define JAIL_NR_MOUNT_SETATTR 442
#define JAIL_NR_OPEN_TREE_ATTR 467

#define STMT(code, k) ((struct sock_filter)BPF_STMT((code), (k)))
#define JUMP(code, k, jt, jf) ((struct sock_filter)BPF_JUMP((code), (k), (jt), (jf)))
#define RET_ERRNO(e) STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | ((e) & SECCOMP_RET_DATA))

int jail_seccomp_install(unsigned flags)
{
	struct sock_filter f[320];
	int n = 0, ja[128], nja = 0, jn[8], njn = 0;
	if (4 * jail_sup_nrows + 56 > (int)(sizeof(f) / sizeof(f[0])) || jail_sup_nrows > 128)
		return -E2BIG;

	f[n++] = STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, arch));
	f[n++] = JUMP(BPF_JMP | BPF_JEQ | BPF_K, JAIL_AUDIT_ARCH, 1, 0);
	f[n++] = RET_ERRNO(ENOSYS);
	f[n++] = STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr));
	f[n++] = JUMP(BPF_JMP | BPF_JGE | BPF_K, JAIL_FOREIGN_NR, 0, 1);
	f[n++] = RET_ERRNO(ENOSYS);
	f[n++] = JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_io_uring_setup, 0, 1);
	f[n++] = RET_ERRNO(ENOSYS);
	/* a file handle names no path: a jail run as root (which keeps
	 * CAP_DAC_READ_SEARCH) could open anything by one */
	f[n++] = JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_open_by_handle_at, 0, 1);
	f[n++] = RET_ERRNO(EPERM);
	/* setxattrat, getxattrat, listxattrat, removexattrat (Linux 6.13): not
	 * supervised; their callers fall back to the supervised path forms */
	f[n++] = JUMP(BPF_JMP | BPF_JGE | BPF_K, JAIL_NR_SETXATTRAT, 0, 2);
	f[n++] = JUMP(BPF_JMP | BPF_JGT | BPF_K, JAIL_NR_REMOVEXATTRAT, 1, 0);
	f[n++] = RET_ERRNO(ENOSYS);
	/* the caller's world stays the supervisor's (invariant 4) */
	f[n++] = JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_clone3, 0, 1);
	f[n++] = RET_ERRNO(ENOSYS);
	f[n++] = JUMP(BPF_JMP | BPF_JGE | BPF_K, JAIL_NR_OPEN_TREE, 0, 2); /* open_tree .. fspick */
	f[n++] = JUMP(BPF_JMP | BPF_JGT | BPF_K, JAIL_NR_FSPICK, 0, 2);
	f[n++] = JUMP(BPF_JMP | BPF_JEQ | BPF_K, JAIL_NR_MOUNT_SETATTR, 1, 0);
	f[n++] = JUMP(BPF_JMP | BPF_JEQ | BPF_K, JAIL_NR_OPEN_TREE_ATTR, 0, 1);
	f[n++] = RET_ERRNO(EPERM);
	f[n++] = JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_chroot, 3, 0);
	f[n++] = JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_pivot_root, 2, 0);
	f[n++] = JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_mount, 1, 0);
	f[n++] = JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_umount2, 0, 1);
	f[n++] = RET_ERRNO(EPERM);
	f[n++] = JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_setns, 0, 4);
	f[n++] = STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, args[1])); /* nstype, an int */
	f[n++] = JUMP(BPF_JMP | BPF_JEQ | BPF_K, 0, 1, 0);                                /* any kind */
	f[n++] = JUMP(BPF_JMP | BPF_JSET | BPF_K, CLONE_NEWNS, 0, 6);
	f[n++] = RET_ERRNO(EPERM);
	f[n++] = JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_unshare, 1, 0);
	f[n++] = JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_clone, 0, 3);
	f[n++] = STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, args[0])); /* flags: low half */
	f[n++] = JUMP(BPF_JMP | BPF_JSET | BPF_K, CLONE_NEWNS, 0, 1);
	f[n++] = RET_ERRNO(EPERM);
	f[n++] = STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr));
	/* one block per supervised call, each ending in a jump to `supervised`
	 * below; a stat-like call with AT_EMPTY_PATH in its flags asks about a
	 * descriptor the caller holds (how glibc's fstat works), and passes */
	for (int i = 0; i < jail_sup_nrows; i++) {
		const struct jail_sup_row *r = &jail_sup_rows[i];
		int fd_form = jail_sup_fd_form(r) ? 3 : 0, addr_form = jail_sup_addr_form(r) ? 5 : 0;
		f[n] = JUMP(BPF_JMP | BPF_JEQ | BPF_K, (unsigned)r->nr, 0, (unsigned char)(fd_form + addr_form + 1));
		n++;
		if (fd_form) {
			f[n++] = STMT(BPF_LD | BPF_W | BPF_ABS,
			              (unsigned)(offsetof(struct seccomp_data, args) + 8 * (size_t)r->flags.arg));
			f[n++] = JUMP(BPF_JMP | BPF_JSET | BPF_K, AT_EMPTY_PATH, 0, 1);
			f[n++] = STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW);
		}
		if (addr_form) { /* the address pointer, both halves zero: no address */
			size_t at = offsetof(struct seccomp_data, args) + 8 * (size_t)r->path2.arg;
			f[n++] = STMT(BPF_LD | BPF_W | BPF_ABS, (unsigned)at);
			f[n++] = JUMP(BPF_JMP | BPF_JEQ | BPF_K, 0, 0, 3);
			f[n++] = STMT(BPF_LD | BPF_W | BPF_ABS, (unsigned)(at + 4));
			f[n++] = JUMP(BPF_JMP | BPF_JEQ | BPF_K, 0, 0, 1);
			f[n++] = STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW);
		}
		if (jail_sup_always(r) && (flags & JAIL_SECCOMP_PAGE_CONNECTS) && njn < 8)
			jn[njn++] = n++; /* to `notify`, past the page's exemption: filled in below */
		else
			ja[nja++] = n++; /* to `supervised`: filled in below */
	}
	f[n++] = STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW);
	for (int i = 0; i < nja; i++)
		f[ja[i]] = STMT(BPF_JMP | BPF_JA, (unsigned)(n - ja[i] - 1));
	/* supervised: from the syscall page, allowed; from anywhere else, notify */
	unsigned long page = JAIL_SYSCALL_PAGE;
	size_t ip = offsetof(struct seccomp_data, instruction_pointer);
	f[n++] = STMT(BPF_LD | BPF_W | BPF_ABS, (unsigned)(ip + 4)); /* high half (little-endian) */
	f[n++] = JUMP(BPF_JMP | BPF_JEQ | BPF_K, (unsigned)(page >> 32), 0, 4);
	f[n++] = STMT(BPF_LD | BPF_W | BPF_ABS, (unsigned)ip);
	f[n++] = STMT(BPF_ALU | BPF_AND | BPF_K, 0xfffff000u);
	f[n++] = JUMP(BPF_JMP | BPF_JEQ | BPF_K, (unsigned)(page & 0xffffffffu), 0, 1);
	f[n++] = STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW);
	f[n++] = STMT(BPF_RET | BPF_K, SECCOMP_RET_USER_NOTIF); /* notify */
	for (int i = 0; i < njn; i++)
		f[jn[i]] = STMT(BPF_JMP | BPF_JA, (unsigned)(n - 1 - jn[i] - 1));

	struct sock_fprog prog = {.len = (unsigned short)n, .filter = f};
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0)
		return -errno;
	/* WAIT_KILLABLE_RECV (Linux 5.19): once the supervisor has a call, only
	 * a fatal signal interrupts the caller, so a call made on its behalf is
	 * never restarted (Go's preemption signals would otherwise repeat a
	 * mkdir as EEXIST). */
	long fd = syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER,
	                  SECCOMP_FILTER_FLAG_NEW_LISTENER | SECCOMP_FILTER_FLAG_WAIT_KILLABLE_RECV, &prog);
	if (fd < 0 && errno == EINVAL)
		fd = syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, SECCOMP_FILTER_FLAG_NEW_LISTENER, &prog);
	return fd < 0 ? -errno : (int)fd;
}

/* TIOCSTI (push a byte into the terminal's input, as if typed) and
 * TIOCLINUX (whose subcodes paste a console selection): a jailed process
 * must not type into the terminal the user answers ask-mode questions on,
 * nor into the shell it returns to. The other system call ABIs (i386's
 * int 0x80, x32) would reach the same ioctl by other numbers: they fail
 * with ENOSYS, as under the supervisor's filter. */
int jail_seccomp_deny_tty_injection(void)
{
	struct sock_filter f[] = {
	    STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, arch)),
	    JUMP(BPF_JMP | BPF_JEQ | BPF_K, JAIL_AUDIT_ARCH, 1, 0),
	    RET_ERRNO(ENOSYS),
	    STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
	    JUMP(BPF_JMP | BPF_JGE | BPF_K, JAIL_FOREIGN_NR, 0, 1),
	    RET_ERRNO(ENOSYS),
	    JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_ioctl, 0, 4),
	    STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, args[1])), /* the low half: ioctl's cmd is an int */
	    JUMP(BPF_JMP | BPF_JEQ | BPF_K, 0x5412 /* TIOCSTI */, 1, 0),
	    JUMP(BPF_JMP | BPF_JEQ | BPF_K, 0x541C /* TIOCLINUX */, 0, 1),
	    RET_ERRNO(EPERM),
	    STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
	};
	struct sock_fprog prog = {.len = (unsigned short)(sizeof(f) / sizeof(f[0])), .filter = f};
	return syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0, &prog) == 0 ? 0 : -errno;
}
#else /* the filter knows x86_64 only so far */
const struct jail_sup_row jail_sup_rows[1];
const int jail_sup_nrows = 0;

int jail_seccomp_install(unsigned flags)
{
	(void)flags;
	return -ENOSYS;
}

int jail_seccomp_deny_tty_injection(void)
{
	return -ENOSYS;
}
#endif

/* ---- handing the listener to the supervisor ---- */

/* One byte of data carrying one descriptor (SCM_RIGHTS). */
struct fd_message {
	char data;
	struct iovec iov;
	struct msghdr msg;
	union { /* last: clang sees CMSG_SPACE as variable-sized */
		struct cmsghdr h;
		char buf[CMSG_SPACE(sizeof(int))];
	} u;
};

static struct cmsghdr *fd_message_init(struct fd_message *m)
{
	m->data = 'L';
	m->iov = (struct iovec){&m->data, 1};
	m->msg = (struct msghdr){.msg_iov = &m->iov, .msg_iovlen = 1, .msg_control = m->u.buf,
	                         .msg_controllen = sizeof(m->u.buf)};
	return CMSG_FIRSTHDR(&m->msg);
}

static int send_fd(int sock, int fd)
{
	struct fd_message m;
	struct cmsghdr *cm = fd_message_init(&m);
	cm->cmsg_level = SOL_SOCKET;
	cm->cmsg_type = SCM_RIGHTS;
	cm->cmsg_len = CMSG_LEN(sizeof(int));
	memcpy(CMSG_DATA(cm), &fd, sizeof(int));
	/* from the syscall page: the filter just installed supervises sendmsg,
	 * and its supervisor is waiting for this very message */
	return jail_os_sendmsg(sock, &m.msg, 0) == 1 ? 0 : -1;
}

int jail_seccomp_receive(int sock)
{
	struct fd_message m;
	fd_message_init(&m);
	if (recvmsg(sock, &m.msg, MSG_CMSG_CLOEXEC) != 1)
		return -1;
	struct cmsghdr *cm = CMSG_FIRSTHDR(&m.msg);
	if (!cm || cm->cmsg_level != SOL_SOCKET || cm->cmsg_type != SCM_RIGHTS)
		return -1;
	int fd;
	memcpy(&fd, CMSG_DATA(cm), sizeof(int));
	return fd;
}

int jail_seccomp_handoff(unsigned flags)
{
	const char *s = getenv(JAIL_ENV_SUPERVISOR);
	if (!s)
		return 0;
	int sock = atoi(s);
	unsetenv(JAIL_ENV_SUPERVISOR);
	int listener = jail_seccomp_install(flags);
	if (listener < 0) {
		close(sock);
		return listener;
	}
	int rc = send_fd(sock, listener) == 0 ? 1 : -errno;
	close(listener);
	close(sock);
	return rc;
}
