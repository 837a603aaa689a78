/*
 * os.h — the few kernel services the resolver and the hooks need.
 *
 * One implementation per OS (os_linux.c; a Darwin file later), chosen by
 * CMake. Invariants every implementation keeps:
 *  1. Raw system calls only: never through a libc name the shim interposes,
 *     so the shim cannot re-enter itself, and never touching errno.
 *  2. Async-signal-safe: no allocation, no locks, no stdio.
 *  3. Results are >= 0, or -errno.
 */
#ifndef JAIL_OS_H
#define JAIL_OS_H

#include <stddef.h>
#include <sys/stat.h>

/* readlinkat(2): the target's length (not NUL-terminated), or -errno. */
long jail_os_readlinkat(int dirfd, const char *path, char *buf, size_t bufsz);

/* getcwd(2): the length including the NUL, or -errno. */
long jail_os_getcwd(char *buf, size_t bufsz);

/* Opens path relative to dirfd as O_PATH|O_CLOEXEC (plus O_NOFOLLOW and
 * O_DIRECTORY when asked) with openat2(RESOLVE_NO_SYMLINKS): the kernel walks
 * the path but refuses every symlink (ELOOP). -ENOSYS where openat2 is
 * missing. */
#define JAIL_OS_NOFOLLOW 1
#define JAIL_OS_DIRECTORY 2
long jail_os_open_nosymlinks(int dirfd, const char *path, unsigned flags);

long jail_os_close(int fd);

/* fstatat(2) with AT_SYMLINK_NOFOLLOW when nofollow is set. */
long jail_os_fstatat(int dirfd, const char *path, struct stat *st, int nofollow);

long jail_os_fstat(int fd, struct stat *st);
long jail_os_getfl(int fd); /* fcntl(F_GETFL) */
long jail_os_getdents64(int fd, void *buf, size_t n);
long jail_os_fgetxattr(int fd, const char *name, void *value, size_t size);

/* openat2(2) with RESOLVE_NO_SYMLINKS and the caller's own open flags and
 * mode: opens exactly a path that was checked, or fails with ELOOP when a
 * symlink appeared on it. -ENOSYS where openat2 is missing. */
long jail_os_open_checked(int dirfd, const char *path, int flags, unsigned mode);

/* The syscall page: the shim's system calls are made from one page mapped
 * at this fixed address, so that a seccomp filter (the supervisor's) can let
 * them through by instruction pointer while it supervises everyone else's.
 * jail_os_syscall_page() maps it (once per process; 0, or -errno when the
 * address is taken or the architecture has no trap for it yet). */
#define JAIL_SYSCALL_PAGE 0x6a1100000000UL
long jail_os_syscall_page(void);

/* Any system call, from the syscall page when it is mapped: the hooks make
 * the calls they have checked with it, so a supervisor does not check them
 * again. Returns the kernel's answer (-errno on failure). */
long jail_os_sys(long nr, long a, long b, long c, long d, long e);

long jail_os_openat(int dirfd, const char *path, int flags, unsigned mode);
/* openat(2) from the shim's own code, never from the syscall page: a
 * supervisor decides it as it decides any program's call. */
long jail_os_openat_outside(int dirfd, const char *path, int flags, unsigned mode);
long jail_os_read(int fd, void *buf, size_t n);
long jail_os_pread(int fd, void *buf, size_t n, long off);
long jail_os_write(int fd, const void *buf, size_t n);
void *jail_os_mmap(void *addr, size_t len, int prot, int flags, int fd, long off); /* MAP_FAILED on error */
long jail_os_munmap(void *addr, size_t len);
long jail_os_mprotect(void *addr, size_t len, int prot);
/* Keeps other processes of the same user out of this one's memory and
 * environment (Linux: not dumpable, so /proc/PID/mem and environ, ptrace
 * and process_vm_readv need CAP_SYS_PTRACE; reset by the next execve). */
long jail_os_set_private(void);
/* Sends msg on a new connection to the local (AF_UNIX) seqpacket socket
 * at sock and waits for one reply, at most wait_secs (0: no limit; signals
 * do not end the wait); the reply's length, 0 when the peer closed without
 * one, or -errno (-EAGAIN: no reply in time). */
long jail_os_exchange(const char *sock, const void *msg, size_t n, char *reply, size_t rn, long wait_secs);
/* connect(2) from the syscall page: under a supervisor, not decided again. */
long jail_os_connect(int fd, const void *addr, unsigned len);
/* sendto(2), sendmsg(2), sendmmsg(2) from the syscall page, likewise. */
long jail_os_sendto(int fd, const void *buf, size_t len, int flags, const void *addr, unsigned alen);
long jail_os_sendmsg(int fd, const void *msg, int flags);
long jail_os_sendmmsg(int fd, void *vec, unsigned n, int flags);
/* A socket's type (SOCK_STREAM, ...), or -errno. */
long jail_os_socket_type(int fd);
long jail_os_getpid(void);
long jail_os_gettid(void);
long jail_os_clock_realtime(long *sec, long *nsec);
__attribute__((noreturn)) void jail_os_exit(int status); /* exit_group: no atexit, no stdio flush */

#endif
