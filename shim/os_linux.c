/*
 * os_linux.c — os.h on Linux: raw system calls through inline assembly.
 *
 * Why not syscall(3)? The shim interposes syscall() itself, and glibc's
 * wrappers set errno; a hook must do neither to its caller. Each supported
 * architecture gets its six-argument trap below; adding one is adding a
 * jail_sys6() body.
 */
#define _GNU_SOURCE
#include "os.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <linux/openat2.h>
#include <sys/syscall.h>

#if defined(__x86_64__)
static inline long jail_sys6(long n, long a, long b, long c, long d, long e, long f)
{
	long ret;
	register long r10 __asm__("r10") = d;
	register long r8 __asm__("r8") = e;
	register long r9 __asm__("r9") = f;
	__asm__ volatile("syscall"
	                 : "=a"(ret)
	                 : "a"(n), "D"(a), "S"(b), "d"(c), "r"(r10), "r"(r8), "r"(r9)
	                 : "rcx", "r11", "memory");
	return ret;
}
#elif defined(__aarch64__)
static inline long jail_sys6(long n, long a, long b, long c, long d, long e, long f)
{
	register long x8 __asm__("x8") = n;
	register long x0 __asm__("x0") = a;
	register long x1 __asm__("x1") = b;
	register long x2 __asm__("x2") = c;
	register long x3 __asm__("x3") = d;
	register long x4 __asm__("x4") = e;
	register long x5 __asm__("x5") = f;
	__asm__ volatile("svc 0" : "+r"(x0) : "r"(x8), "r"(x1), "r"(x2), "r"(x3), "r"(x4), "r"(x5) : "memory");
	return x0;
}
#else
#error "libjail: add a jail_sys6() for this architecture"
#endif

/*
 * The syscall page (os.h): one page at JAIL_SYSCALL_PAGE holding a
 * six-argument trap, so that a seccomp filter can tell the shim's own
 * system calls (already checked) from everyone else's by the instruction
 * pointer. Once mapped it is never unmapped or changed; until then, and
 * where it cannot be mapped, the inline trap above is used (its calls are
 * then supervised like any other program's: slower, never wrong).
 */
typedef long (*jail_sysfn)(long, long, long, long, long, long, long);
static jail_sysfn syscall_page;

#if defined(__x86_64__)
/* mov %rdi,%rax; mov %rsi,%rdi; mov %rdx,%rsi; mov %rcx,%rdx;
 * mov %r8,%r10; mov %r9,%r8; mov 8(%rsp),%r9; syscall; ret */
static const unsigned char trap_code[] = {0x48, 0x89, 0xf8, 0x48, 0x89, 0xf7, 0x48, 0x89, 0xd6, 0x48,
                                          0x89, 0xca, 0x4d, 0x89, 0xc2, 0x4d, 0x89, 0xc8, 0x4c, 0x8b,
                                          0x4c, 0x24, 0x08, 0x0f, 0x05, 0xc3};
#endif

static int page_claimed; /* one attempt per process: whoever sets it maps the page */

static inline long jail_sys(long n, long a, long b, long c, long d, long e, long f)
{
	jail_sysfn page = __atomic_load_n(&syscall_page, __ATOMIC_ACQUIRE);
	if (!page && !__atomic_load_n(&page_claimed, __ATOMIC_RELAXED) && jail_os_syscall_page() == 0)
		page = syscall_page; /* a hook ran before the constructor: the page first */
	return page ? page(n, a, b, c, d, e, f) : jail_sys6(n, a, b, c, d, e, f);
}

#define SYS(n, a, b, c, d) jail_sys((n), (long)(a), (long)(b), (long)(c), (long)(d), 0, 0)

long jail_os_sys(long nr, long a, long b, long c, long d, long e)
{
	return jail_sys(nr, a, b, c, d, e, 0);
}

long jail_os_syscall_page(void)
{
#if defined(__x86_64__)
	if (__atomic_load_n(&syscall_page, __ATOMIC_ACQUIRE))
		return 0;
	if (__atomic_exchange_n(&page_claimed, 1, __ATOMIC_ACQ_REL))
		return -EBUSY; /* another thread is mapping it, or it could not be */
	long m = jail_sys6(SYS_mmap, (long)JAIL_SYSCALL_PAGE, 4096, PROT_READ | PROT_WRITE,
	                   MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);
	/* -EEXIST: taken, by a racing loader in this process (which publishes
	 * the page when it is ready) or by someone else (never adopted) */
	if (m < 0)
		return m;
	if (m != (long)JAIL_SYSCALL_PAGE) { /* a kernel without MAP_FIXED_NOREPLACE put it elsewhere */
		jail_sys6(SYS_munmap, m, 4096, 0, 0, 0, 0);
		return -EEXIST;
	}
	memcpy((void *)m, trap_code, sizeof(trap_code));
	long rc = jail_sys6(SYS_mprotect, m, 4096, PROT_READ | PROT_EXEC, 0, 0, 0);
	if (rc < 0)
		return rc;
	__atomic_store_n(&syscall_page, (jail_sysfn)m, __ATOMIC_RELEASE);
	return 0;
#else
	return -ENOSYS;
#endif
}

long jail_os_readlinkat(int dirfd, const char *path, char *buf, size_t bufsz)
{
	return SYS(SYS_readlinkat, dirfd, path, buf, bufsz);
}

long jail_os_getcwd(char *buf, size_t bufsz)
{
	return SYS(SYS_getcwd, buf, bufsz, 0, 0);
}

long jail_os_open_nosymlinks(int dirfd, const char *path, unsigned flags)
{
	struct open_how how = {
	    .flags = O_PATH | O_CLOEXEC | ((flags & JAIL_OS_NOFOLLOW) ? O_NOFOLLOW : 0) |
	             ((flags & JAIL_OS_DIRECTORY) ? O_DIRECTORY : 0),
	    .resolve = RESOLVE_NO_SYMLINKS,
	};
	return SYS(SYS_openat2, dirfd, path, &how, sizeof(how));
}

long jail_os_open_checked(int dirfd, const char *path, int flags, unsigned mode)
{
	/* open(2) ignores the other flags beside O_PATH; openat2 refuses them */
	if (flags & O_PATH)
		flags &= O_PATH | O_CLOEXEC | O_DIRECTORY | O_NOFOLLOW;
	struct open_how how = {
	    .flags = (unsigned long long)(unsigned)flags,
	    .mode = ((flags & O_CREAT) || (flags & O_TMPFILE) == O_TMPFILE) ? (mode & 07777) : 0,
	    .resolve = RESOLVE_NO_SYMLINKS,
	};
	return SYS(SYS_openat2, dirfd, path, &how, sizeof(how));
}

long jail_os_openat_outside(int dirfd, const char *path, int flags, unsigned mode)
{
	return jail_sys6(SYS_openat, dirfd, (long)path, flags, mode, 0, 0);
}

long jail_os_openat(int dirfd, const char *path, int flags, unsigned mode)
{
	return SYS(SYS_openat, dirfd, path, flags, mode);
}

long jail_os_read(int fd, void *buf, size_t n)
{
	return SYS(SYS_read, fd, buf, n, 0);
}

long jail_os_pread(int fd, void *buf, size_t n, long off)
{
	return SYS(SYS_pread64, fd, buf, n, off);
}

long jail_os_write(int fd, const void *buf, size_t n)
{
	return SYS(SYS_write, fd, buf, n, 0);
}

void *jail_os_mmap(void *addr, size_t len, int prot, int flags, int fd, long off)
{
	long r = jail_sys6(SYS_mmap, (long)addr, (long)len, prot, flags, fd, off);
	return (r < 0 && r > -4096) ? MAP_FAILED : (void *)r;
}

long jail_os_munmap(void *addr, size_t len)
{
	return SYS(SYS_munmap, addr, len, 0, 0);
}

long jail_os_mprotect(void *addr, size_t len, int prot)
{
	return SYS(SYS_mprotect, addr, len, prot, 0);
}

long jail_os_exchange(const char *sock, const void *msg, size_t n, char *reply, size_t rn, long wait_secs)
{
	struct {
		unsigned short family;
		char path[108];
	} sa = {1 /* AF_UNIX */, {0}};
	size_t pl = strlen(sock);
	if (pl >= sizeof(sa.path))
		return -ENAMETOOLONG;
	memcpy(sa.path, sock, pl + 1);
	long fd = jail_sys(SYS_socket, 1 /* AF_UNIX */, 5 /* SOCK_SEQPACKET */ | O_CLOEXEC, 0, 0, 0, 0);
	if (fd < 0)
		return fd;
	struct {
		long sec, usec;
	} tv = {wait_secs, 0};
	if (wait_secs > 0) /* a broker that stopped answering is no answer */
		jail_sys(SYS_setsockopt, fd, 1 /* SOL_SOCKET */, 20 /* SO_RCVTIMEO */, (long)&tv, sizeof(tv), 0);
	long rc = jail_sys(SYS_connect, fd, (long)&sa, (long)(sizeof(sa.family) + pl + 1), 0, 0, 0);
	if (rc == 0)
		rc = jail_sys(SYS_sendto, fd, (long)msg, (long)n, 0x4000 /* MSG_NOSIGNAL */, 0, 0);
	if (rc >= 0)
		do /* a signal's handler runs, then the wait goes on */
			rc = jail_sys(SYS_recvfrom, fd, (long)reply, (long)rn, 0, 0, 0);
		while (rc == -EINTR);
	jail_sys(SYS_close, fd, 0, 0, 0, 0, 0);
	return rc;
}

long jail_os_connect(int fd, const void *addr, unsigned len)
{
	return jail_sys(SYS_connect, fd, (long)addr, (long)len, 0, 0, 0);
}

long jail_os_sendto(int fd, const void *buf, size_t len, int flags, const void *addr, unsigned alen)
{
	return jail_sys(SYS_sendto, fd, (long)buf, (long)len, flags, (long)addr, (long)alen);
}

long jail_os_sendmsg(int fd, const void *msg, int flags)
{
	return jail_sys(SYS_sendmsg, fd, (long)msg, flags, 0, 0, 0);
}

long jail_os_sendmmsg(int fd, void *vec, unsigned n, int flags)
{
	return jail_sys(SYS_sendmmsg, fd, (long)vec, (long)n, flags, 0, 0);
}

long jail_os_socket_type(int fd)
{
	int type = 0;
	unsigned len = sizeof(type);
	long rc = jail_sys(SYS_getsockopt, fd, 1 /* SOL_SOCKET */, 3 /* SO_TYPE */, (long)&type, (long)&len, 0);
	return rc < 0 ? rc : type;
}

long jail_os_set_private(void)
{
	return SYS(SYS_prctl, 4 /* PR_SET_DUMPABLE */, 0, 0, 0);
}

long jail_os_getpid(void)
{
	return SYS(SYS_getpid, 0, 0, 0, 0);
}

long jail_os_gettid(void)
{
	return SYS(SYS_gettid, 0, 0, 0, 0);
}

long jail_os_clock_realtime(long *sec, long *nsec)
{
	struct timespec ts;
	long r = SYS(SYS_clock_gettime, CLOCK_REALTIME, &ts, 0, 0);
	*sec = ts.tv_sec;
	*nsec = ts.tv_nsec;
	return r;
}

void jail_os_exit(int status)
{
	for (;;)
		SYS(SYS_exit_group, status, 0, 0, 0);
}

long jail_os_fstat(int fd, struct stat *st)
{
	return SYS(SYS_fstat, fd, st, 0, 0);
}

long jail_os_getfl(int fd)
{
	return SYS(SYS_fcntl, fd, F_GETFL, 0, 0);
}

long jail_os_getdents64(int fd, void *buf, size_t n)
{
	return SYS(SYS_getdents64, fd, buf, n, 0);
}

long jail_os_fgetxattr(int fd, const char *name, void *value, size_t size)
{
	return SYS(SYS_fgetxattr, fd, name, value, size);
}

long jail_os_close(int fd)
{
	return SYS(SYS_close, fd, 0, 0, 0);
}

long jail_os_fstatat(int dirfd, const char *path, struct stat *st, int nofollow)
{
	return SYS(SYS_newfstatat, dirfd, path, st, nofollow ? AT_SYMLINK_NOFOLLOW : 0);
}
