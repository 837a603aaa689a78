/*
 * hooks.c — the generated wrappers of hooks.def, and real-symbol lookup.
 *
 * Invariants:
 *  1. A wrapper checks first and calls the real function only when the check
 *     says 0; errno is set only on a refusal (EACCES, or the error the kernel
 *     would give), so an allowed call leaves errno as the real call leaves it.
 *  2. Real symbols are looked up once, by the constructor (dlsym may take
 *     locks); a hook that runs before the constructor looks its own up. The
 *     table is written with relaxed atomics: any racer stores the same value.
 *  3. The constructor also routes the C library's own file calls through
 *     the shim (detours.def, detour_linux.c), once the real symbols are known.
 */
#define _GNU_SOURCE
#include "shim.h"
#include "os.h"

#include <dirent.h>
#include <netdb.h>
#include <stdlib.h>
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <spawn.h>
#include <stdatomic.h>
#include <sys/syscall.h>
#include <stdio.h>
#include <sys/socket.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/statvfs.h>
#include <sys/mount.h>
#include <sys/uio.h>
#include <mntent.h>
#include <utmp.h>
#include <sys/time.h>
#include <sys/types.h>
#include <sys/xattr.h>
#include <unistd.h>
#include <utime.h>

typedef int (*jail_scan_filter)(const struct dirent *);
typedef int (*jail_scan_cmp)(const struct dirent **, const struct dirent **);
typedef int (*jail_scan_filter64)(const struct dirent64 *);
typedef int (*jail_scan_cmp64)(const struct dirent64 **, const struct dirent64 **);

/* glibc keeps these for binaries built before 2.33; no header declares them now */
int __xstat(int v, const char *p, struct stat *s);
int __xstat64(int v, const char *p, struct stat64 *s);
int __lxstat(int v, const char *p, struct stat *s);
int __lxstat64(int v, const char *p, struct stat64 *s);
int __fxstatat(int v, int d, const char *p, struct stat *s, int f);
int __fxstatat64(int v, int d, const char *p, struct stat64 *s, int f);
int lchmod(const char *p, mode_t m);
int __xmknod(int v, const char *p, mode_t m, dev_t *dv);
int __xmknodat(int v, int d, const char *p, mode_t m, dev_t *dv);

static const char *const names[JAIL_NHOOKS] = {
#define JAIL_HOOK(ret, name, params, args, fail, check) #name,
#define JAIL_DIRECT(ret, name, params, fail, check, call) #name,
#define JAIL_CUSTOM(ret, name, params) #name,
#include "hooks.def"
#undef JAIL_HOOK
#undef JAIL_DIRECT
#undef JAIL_CUSTOM
};

static _Atomic(void *) reals[JAIL_NHOOKS];

void *jail_real(int id)
{
	void *f = atomic_load_explicit(&reals[id], memory_order_relaxed);
	if (!f) {
		f = dlsym(RTLD_NEXT, names[id]);
		atomic_store_explicit(&reals[id], f, memory_order_relaxed);
	}
	return f;
}

/* The shim's constructor: load before main, so a bad policy stops the
 * program before it starts, and look every real function up while dlsym's
 * locks are safe to take. */
__attribute__((constructor)) static void jail_init(void)
{
	jail_config();
	for (int i = 0; i < JAIL_NHOOKS; i++)
		jail_real(i);
	jail_detour_install();
}

/* fopen-style modes that write: w, a, or + */
static int jail_mode_writes(const char *m)
{
	return m && (m[0] == 'w' || m[0] == 'a' || strchr(m, '+'));
}

/* resolver flags for the table's rows */
#define NOF JAIL_RES_NOFOLLOW
#define AT(f) ((((f) & AT_SYMLINK_NOFOLLOW) ? NOF : 0u) | (((f) & AT_EMPTY_PATH) ? JAIL_RES_EMPTY_PATH : 0u))
#define LINKAT(f) ((((f) & AT_SYMLINK_FOLLOW) ? 0u : NOF) | (((f) & AT_EMPTY_PATH) ? JAIL_RES_EMPTY_PATH : 0u))
#define P(d, p, a, rf) jail_check_path((d), (p), (a), (rf), jail_op, NULL)
#define F(fd, a) jail_check_fd((fd), (a), jail_op)
#define PF(d, p, a, rf) (jail_launder(p) ? P(d, p, a, rf) : F(d, a))
#define REFUSE(p, why) jail_refuse(jail_op, (p) ? (p) : "", (why))
#define MODE_ACCESS(m) (jail_mode_writes(m) ? JAIL_WRITE : JAIL_READ)
#define MV(da, a, db, b, f) jail_check_rename((da), (a), (db), (b), (f), jail_op)
/* P, unless the libc function always opens through glibc's internal open
 * and the shim decides that one itself (detours.def, jail_libc_checks):
 * deciding first would decide twice (two reports in audit mode, two
 * questions in ask mode). Not setmntent: glibc's fopen reads only the
 * first six mode characters, and a longer mode hides the "c" that makes
 * its open the internal one. */
#define PI(d, p, a, rf) (jail_libc_checks() ? 0 : P(d, p, a, rf))

/* A missing real symbol (an older libc) is ENOSYS, never a call through NULL. */
#define JAIL_HOOK(ret, name, params, args, fail, check)                                                        \
	JAIL_EXPORT ret name params                                                                            \
	{                                                                                                      \
		static const char jail_op[] = #name;                                                           \
		int jail_rc = (check);                                                                         \
		ret(*jail_fn) params = JAIL_REAL(ret, name, params);                                           \
		if (jail_rc == 0 && !jail_fn)                                                                  \
			jail_rc = -ENOSYS;                                                                     \
		if (jail_rc != 0) {                                                                            \
			errno = -jail_rc;                                                                      \
			return fail;                                                                           \
		}                                                                                              \
		return jail_fn args;                                                                           \
	}
/* A checked call made from the syscall page; -errno becomes errno. */
#define SYS3(nr, a, b, c) jail_os_sys(SYS_##nr, (long)(a), (long)(b), (long)(c), 0, 0)
#define SYS5(nr, a, b, c, d, e) jail_os_sys(SYS_##nr, (long)(a), (long)(b), (long)(c), (long)(d), (long)(e))
/* struct stat is the kernel's own on the 64-bit architectures the shim
 * builds for, so newfstatat fills the caller's buffer as glibc would */
#define STAT(d, p, s, f) SYS5(newfstatat, d, p, s, f, 0)
/* faccessat as glibc makes it: faccessat2 (Linux 5.8, which every kernel
 * with Landlock has), else glibc's own emulation of the flags */
#ifndef SYS_faccessat2
#define SYS_faccessat2 439
#endif
static long faccess(int d, const char *p, int m, int f)
{
	long rc = SYS5(faccessat2, d, p, m, f, 0);
	if (rc == -ENOSYS) {
		int (*real)(int, const char *, int, int) = JAIL_REAL(int, faccessat, (int, const char *, int, int));
		rc = !real ? -ENOSYS : real(d, p, m, f) == 0 ? 0 : -errno;
	}
	return rc;
}
#define FACCESS(d, p, m, f) faccess((d), (p), (m), (f))
#define MKNOD(d, p, m, v) ((v) == (dev_t)(unsigned int)(v) ? SYS5(mknodat, d, p, m, (unsigned int)(v), 0) : -EOVERFLOW)
#define JAIL_DIRECT(ret, name, params, fail, check, call)                                                      \
	JAIL_EXPORT ret name params                                                                            \
	{                                                                                                      \
		static const char jail_op[] = #name;                                                           \
		long jail_rc = (check);                                                                        \
		if (jail_rc == 0)                                                                              \
			jail_rc = (call);                                                                      \
		if (jail_rc < 0) {                                                                             \
			errno = (int)-jail_rc;                                                                 \
			return fail;                                                                           \
		}                                                                                              \
		return (ret)jail_rc;                                                                           \
	}
#define JAIL_CUSTOM(ret, name, params)
#include "hooks.def"
#undef JAIL_HOOK
#undef JAIL_DIRECT
#undef JAIL_CUSTOM
