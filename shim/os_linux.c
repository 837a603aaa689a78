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

#include <fcntl.h>
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

#define SYS(n, a, b, c, d) jail_sys6((n), (long)(a), (long)(b), (long)(c), (long)(d), 0, 0)

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

long jail_os_close(int fd)
{
	return SYS(SYS_close, fd, 0, 0, 0);
}

long jail_os_fstatat(int dirfd, const char *path, struct stat *st, int nofollow)
{
	return SYS(SYS_newfstatat, dirfd, path, st, nofollow ? AT_SYMLINK_NOFOLLOW : 0);
}
