/*
 * hooks_syscall.c — the generic syscall(3) function. A program (or a
 * runtime such as a language's FFI) can reach any system call through it,
 * so path-bearing calls are checked like their wrappers (syscalls.def), and
 * made from the syscall page where their wrappers are;
 * opens and execs are performed by the shim's own hooks; openat2 and
 * io_uring_setup fail with ENOSYS, so callers fall back to calls the shim
 * sees (openat2 resolution flags and io_uring's asynchronous opens would go
 * past every check).
 */
#define _GNU_SOURCE
#include "shim.h"
#include "os.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <sys/ptrace.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <unistd.h>

#define NOF JAIL_RES_NOFOLLOW
#define AT(f) ((((f) & AT_SYMLINK_NOFOLLOW) ? NOF : 0u) | (((f) & AT_EMPTY_PATH) ? JAIL_RES_EMPTY_PATH : 0u))
#define LINKAT(f) ((((f) & AT_SYMLINK_FOLLOW) ? 0u : NOF) | (((f) & AT_EMPTY_PATH) ? JAIL_RES_EMPTY_PATH : 0u))
#define A(i) (a[i])
#define I(i) ((int)a[i])
#define S(i) ((const char *)a[i])
#define P(d, p, acc, rf) jail_check_path((d), (p), (acc), (rf), "syscall", NULL)
#define F(fd, acc) jail_check_fd((fd), (acc), "syscall")
#define UNIX(sa, n, rf) jail_check_unix((sa), (n), (rf), "syscall")
#define SOCKADDR(sa, n, rf) jail_check_sockaddr((sa), (n), (rf), 1, "syscall")
#define MV(da, a, db, b, f) jail_check_rename((da), (a), (db), (b), (f), "syscall")
#define REFUSE(why) jail_refuse("syscall", "", (why))

static int MMSG(const struct mmsghdr *v, unsigned int n)
{
	for (unsigned int i = 0; v && i < n && i < 1024; i++) { /* the kernel sends at most 1024 */
		int rc = jail_check_sockaddr(v[i].msg_hdr.msg_name, v[i].msg_hdr.msg_namelen, 0, 1, "syscall");
		if (rc)
			return rc;
	}
	return 0;
}

typedef long (*syscall_fn)(long, ...);

/* a kernel answer as syscall(3) returns it */
static long made(long r)
{
	if (r < 0 && r > -4096) {
		errno = (int)-r;
		return -1;
	}
	return r;
}

JAIL_EXPORT long syscall(long number, ...)
{
	long a[6];
	va_list ap;
	int rc = 0;
	va_start(ap, number);
	for (int i = 0; i < 6; i++)
		a[i] = va_arg(ap, long); /* as glibc's own syscall(): extra ones are unused */
	va_end(ap);

	switch (number) {
#ifdef SYS_open
	case SYS_open:
		return open(S(0), I(1), (mode_t)A(2));
#endif
#ifdef SYS_creat
	case SYS_creat:
		return creat(S(0), (mode_t)A(1));
#endif
	case SYS_openat:
		return openat(I(0), S(1), I(2), (mode_t)A(3));
	case SYS_execve:
		return execve(S(0), (char *const *)A(1), (char *const *)A(2));
	case SYS_execveat:
		return execveat(I(0), S(1), (char *const *)A(2), (char *const *)A(3), I(4));
	case SYS_open_by_handle_at:
		return open_by_handle_at(I(0), (struct file_handle *)A(1), I(2));
	case SYS_openat2:
	case SYS_io_uring_setup:
		errno = ENOSYS;
		return -1;
#define JAIL_SYSCALL(nr, check)                                                                                \
	case nr:                                                                                               \
		rc = (check);                                                                                  \
		break;
#define JAIL_SYSCALL_DIRECT(nr, check)                                                                         \
	case nr:                                                                                               \
		rc = (check);                                                                                  \
		if (rc == 0)                                                                                   \
			return made(jail_os_sys(nr, a[0], a[1], a[2], a[3], a[4]));                            \
		break;
#include "syscalls.def"
#undef JAIL_SYSCALL
#undef JAIL_SYSCALL_DIRECT
	default:
		break;
	}
	if (rc) {
		errno = -rc;
		return -1;
	}
	return ((syscall_fn)jail_real(JAIL_ID_syscall))(number, a[0], a[1], a[2], a[3], a[4], a[5]);
}
