/*
 * supervise.h — the seccomp supervisor's two halves: the filter a jailed
 * process installs on itself before it runs the command (seccomp_linux.c),
 * and the table of calls the supervisor decides and makes on the callers'
 * behalf (supervised.def, run by supervise_linux.c).
 */
#ifndef JAIL_SUPERVISE_H
#define JAIL_SUPERVISE_H

enum jail_sup_op {
	JAIL_SUP_OPEN,    /* open, openat, creat */
	JAIL_SUP_OPENAT2, /* openat2: flags and mode in a struct open_how */
	JAIL_SUP_MKDIR,
	JAIL_SUP_MKNOD,
	JAIL_SUP_UNLINK,  /* unlink, rmdir, unlinkat */
	JAIL_SUP_RENAME,
	JAIL_SUP_LINK,
	JAIL_SUP_SYMLINK,
	JAIL_SUP_TRUNCATE,
	JAIL_SUP_CHMOD,
	JAIL_SUP_CHOWN,
	JAIL_SUP_UTIMENS, /* struct timespec[2] */
	JAIL_SUP_UTIMES,  /* struct timeval[2] */
	JAIL_SUP_UTIME,   /* struct utimbuf */
	JAIL_SUP_STAT,    /* struct stat written back to the caller */
	JAIL_SUP_STATX,   /* struct statx written back */
	JAIL_SUP_ACCESS,
	JAIL_SUP_READLINK, /* the link's text written back */
	JAIL_SUP_CONNECT,  /* path sockets: on the caller's own socket */
	JAIL_SUP_BIND,
	JAIL_SUP_STATFS,      /* struct statfs written back */
	JAIL_SUP_GETXATTR,    /* the value written back */
	JAIL_SUP_SETXATTR,
	JAIL_SUP_LISTXATTR,   /* the list written back */
	JAIL_SUP_REMOVEXATTR,
	JAIL_SUP_SENDTO,   /* sends with an address: on the caller's own socket, from copies */
	JAIL_SUP_SENDMSG,
	JAIL_SUP_SENDMMSG,
};

/* A column of supervised.def: the call's argument `arg`, or when arg < 0 the
 * constant k. */
struct jail_sup_arg {
	signed char arg;
	long k;
};

struct jail_sup_row {
	const char *name;
	long nr;
	enum jail_sup_op op;
	struct jail_sup_arg dirfd, path, dirfd2, path2, flags, mode, extra;
};

/* A stat-like row whose flags argument can carry AT_EMPTY_PATH: with it the
 * call asks about a descriptor the caller already holds (glibc's fstat is
 * newfstatat(fd, "", AT_EMPTY_PATH)), and the filter lets it through
 * unsupervised. What this trusts: a path given together with AT_EMPTY_PATH
 * is looked up as usual by the kernel, so a program written to do so can
 * learn a read-denied file's metadata (not its contents). */
static inline int jail_sup_fd_form(const struct jail_sup_row *r)
{
	return (r->op == JAIL_SUP_STAT || r->op == JAIL_SUP_STATX || r->op == JAIL_SUP_ACCESS) && r->flags.arg >= 0;
}

/* In ask mode (JAIL_SECCOMP_PAGE_CONNECTS) connect is supervised even from
 * the shim's syscall page: the shim has decided it, but a program that
 * calls the page itself could otherwise reach a path socket no kernel rule
 * holds (a terminal multiplexer's, which would type the answers). From the
 * page, the supervisor decides path sockets, and internet addresses by the
 * address rules alone. Elsewhere the page's connects pass, as its other
 * calls do: the supervisor would make them, and the peer would see the
 * supervisor's pid, and a blocked connect would wait out handled signals. */
static inline int jail_sup_always(const struct jail_sup_row *r)
{
	return r->op == JAIL_SUP_CONNECT;
}
#define JAIL_SECCOMP_PAGE_CONNECTS 1u

/* sendto without an address (glibc's send) sends on a connected socket,
 * whose connect was decided: the filter lets it through unsupervised. */
static inline int jail_sup_addr_form(const struct jail_sup_row *r)
{
	return r->op == JAIL_SUP_SENDTO && r->path2.arg >= 0;
}

extern const struct jail_sup_row jail_sup_rows[];
extern const int jail_sup_nrows;

/*
 * Sets no_new_privs and installs on the calling thread the filter that
 * sends every supervised.def call to a supervisor, except those made from
 * the shim's syscall page (os.h), and fails io_uring_setup with ENOSYS (a
 * ring would make file calls no filter sees) and calls of another
 * architecture's ABI (int 0x80, x32). Returns the listener descriptor, or
 * -errno. Every descendant inherits the filter; once the listener is
 * closed, every supervised call fails with ENOSYS (the jail fails closed).
 */
int jail_seccomp_install(unsigned flags);

/* Refuses TIOCSTI and TIOCLINUX ioctls (typing into the terminal) to this
 * process and all it starts, with EPERM; needs no_new_privs. 0 or -errno
 * (-ENOSYS where the filter does not know the architecture). */
int jail_seccomp_deny_tty_injection(void);

/* The hand-over: jail-supervise starts the launcher with a socket's number
 * in $LIBJAIL_SUPERVISOR_SOCKET (not JAIL_: the shim keeps
 * jailed programs from setting or passing on JAIL_ variables, and a launcher
 * of a jail inside a jail runs under the outer shim); the launcher, once its kernel layer is applied,
 * calls jail_seccomp_handoff(), which installs the filter and sends the
 * listener there (1), or does nothing without the variable (0), or fails
 * (-errno: the launcher must then not run the command). The supervisor
 * takes it with jail_seccomp_receive() (the descriptor, or -1). */
#define JAIL_ENV_SUPERVISOR "LIBJAIL_SUPERVISOR_SOCKET"
int jail_seccomp_handoff(unsigned flags);
int jail_seccomp_receive(int sock);

#endif
