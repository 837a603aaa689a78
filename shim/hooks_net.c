/*
 * hooks_net.c — sockets and name resolution.
 *
 * connect, bind, sendto, sendmsg and sendmmsg copy the caller's address
 * first, decide the copy (net.c; a path socket as a file, check.c) and pass
 * the copy to the real call: another thread changing the caller's memory
 * in between changes nothing.
 *
 * Name resolution: a name the policy does not let resolve
 * fails as an unknown host (EAI_NONAME, HOST_NOT_FOUND), with a "jail:
 * denied resolve NAME" report; the addresses an allowed name resolves to
 * are remembered with it (net.c), for connect to decide by the name.
 *
 * Like the functions they wrap, these are not async-signal-safe; they do
 * not allocate beyond what the real functions do.
 */
#define _GNU_SOURCE
#include "shim.h"
#include "os.h"

#include <errno.h>
#include <netdb.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>

typedef int (*gai_fn)(const char *, const char *, const struct addrinfo *, struct addrinfo **);
typedef struct hostent *(*ghbn_fn)(const char *);
typedef struct hostent *(*ghbn2_fn)(const char *, int);
typedef int (*ghbn_r_fn)(const char *, struct hostent *, char *, size_t, struct hostent **, int *);
typedef int (*ghbn2_r_fn)(const char *, int, struct hostent *, char *, size_t, struct hostent **, int *);

JAIL_EXPORT int getaddrinfo(const char *node, const char *service, const struct addrinfo *hints,
                            struct addrinfo **res)
{
	int e = errno;
	char name[1025]; /* decided and resolved: one copy of the caller's name */
	if (jail_launder(node)) {
		size_t n = strnlen(node, sizeof(name));
		if (n == sizeof(name))
			return EAI_NONAME;
		memcpy(name, node, n + 1);
		node = name;
	}
	if (jail_check_resolve(node, "getaddrinfo") != 0) {
		errno = e;
		return EAI_NONAME;
	}
	int rc = ((gai_fn)jail_real(JAIL_ID_getaddrinfo))(node, service, hints, res);
	uint8_t numeric[16];
	if (rc == 0 && node && res && jail_addr_parse(node, numeric) != 0)
		for (const struct addrinfo *ai = *res; ai; ai = ai->ai_next)
			jail_net_remember(node, ai->ai_addr);
	return rc;
}

/* The addresses of a hostent, remembered under the name asked for. */
static void remember_host(const char *name, const struct hostent *h)
{
	uint8_t numeric[16];
	if (!h || !name || (h->h_addrtype != AF_INET && h->h_addrtype != AF_INET6) || jail_addr_parse(name, numeric) == 0)
		return;
	for (char **a = h->h_addr_list; a && *a; a++) {
		struct sockaddr_storage ss;
		memset(&ss, 0, sizeof(ss));
		ss.ss_family = (sa_family_t)h->h_addrtype;
		if (h->h_addrtype == AF_INET)
			memcpy(&((struct sockaddr_in *)&ss)->sin_addr, *a, 4);
		else
			memcpy(&((struct sockaddr_in6 *)&ss)->sin6_addr, *a, 16);
		jail_net_remember(name, (const struct sockaddr *)&ss);
	}
}

JAIL_EXPORT struct hostent *gethostbyname(const char *name)
{
	if (jail_check_resolve(jail_launder(name), "gethostbyname") != 0) {
		h_errno = HOST_NOT_FOUND;
		return NULL;
	}
	struct hostent *h = ((ghbn_fn)jail_real(JAIL_ID_gethostbyname))(name);
	remember_host(name, h);
	return h;
}

JAIL_EXPORT struct hostent *gethostbyname2(const char *name, int af)
{
	if (jail_check_resolve(jail_launder(name), "gethostbyname2") != 0) {
		h_errno = HOST_NOT_FOUND;
		return NULL;
	}
	struct hostent *h = ((ghbn2_fn)jail_real(JAIL_ID_gethostbyname2))(name, af);
	remember_host(name, h);
	return h;
}

JAIL_EXPORT int gethostbyname_r(const char *name, struct hostent *ret, char *buf, size_t len, struct hostent **result,
                                int *herr)
{
	if (jail_check_resolve(jail_launder(name), "gethostbyname_r") != 0) {
		*result = NULL; /* as glibc reports an unknown host: 0, no result */
		*herr = HOST_NOT_FOUND;
		return 0;
	}
	int rc = ((ghbn_r_fn)jail_real(JAIL_ID_gethostbyname_r))(name, ret, buf, len, result, herr);
	if (rc == 0 && result)
		remember_host(name, *result);
	return rc;
}

JAIL_EXPORT int gethostbyname2_r(const char *name, int af, struct hostent *ret, char *buf, size_t len,
                                 struct hostent **result, int *herr)
{
	if (jail_check_resolve(jail_launder(name), "gethostbyname2_r") != 0) {
		*result = NULL; /* as glibc reports an unknown host: 0, no result */
		*herr = HOST_NOT_FOUND;
		return 0;
	}
	int rc = ((ghbn2_r_fn)jail_real(JAIL_ID_gethostbyname2_r))(name, af, ret, buf, len, result, herr);
	if (rc == 0 && result)
		remember_host(name, *result);
	return rc;
}

/* ---- sockets: decide a copy of the address, pass the copy on ---- */

typedef int (*connect_fn)(int, const struct sockaddr *, socklen_t);
typedef ssize_t (*sendto_fn)(int, const void *, size_t, int, const struct sockaddr *, socklen_t);
typedef ssize_t (*sendmsg_fn)(int, const struct msghdr *, int);
typedef int (*sendmmsg_fn)(int, struct mmsghdr *, unsigned int, int);

static int fail(int rc)
{
	errno = -rc;
	return -1;
}

JAIL_EXPORT int connect(int fd, const struct sockaddr *sa, socklen_t n)
{
	struct sockaddr_storage copy;
	int rc = jail_sockaddr_copy(jail_launder(sa), n, &copy);
	if (rc == 0 && sa)
		rc = jail_check_sockaddr(&copy, n, 0, 0, "connect") ?: jail_check_kernel_port(fd, &copy, n, "connect");
	if (rc)
		return fail(rc);
	if (jail_config()->env_supervised) {
		/* decided here, with the names this process resolved, which the
		 * supervisor cannot know: made from the syscall page, past it */
		long r = jail_os_connect(fd, sa ? (const void *)&copy : NULL, n);
		return r < 0 ? fail((int)r) : 0;
	}
	return ((connect_fn)jail_real(JAIL_ID_connect))(fd, sa ? (const struct sockaddr *)&copy : NULL, n);
}

JAIL_EXPORT int bind(int fd, const struct sockaddr *sa, socklen_t n)
{
	struct sockaddr_storage copy;
	int rc = jail_sockaddr_copy(jail_launder(sa), n, &copy);
	if (rc == 0 && sa)
		rc = jail_check_unix(&copy, n, JAIL_RES_NOFOLLOW, "bind"); /* binding a path creates it */
	if (rc)
		return fail(rc);
	return ((connect_fn)jail_real(JAIL_ID_bind))(fd, sa ? (const struct sockaddr *)&copy : NULL, n);
}

JAIL_EXPORT ssize_t sendto(int fd, const void *b, size_t l, int f, const struct sockaddr *sa, socklen_t n)
{
	struct sockaddr_storage copy;
	int rc = jail_sockaddr_copy(jail_launder(sa), n, &copy);
	if (rc == 0 && sa)
		rc = jail_check_sockaddr(&copy, n, 0, 1, "sendto");
	if (rc)
		return fail(rc);
	if (jail_config()->env_supervised) { /* decided here: made from the syscall page, past the supervisor */
		long r = jail_os_sendto(fd, b, l, f, sa ? (const void *)&copy : NULL, n);
		return r < 0 ? fail((int)r) : r;
	}
	return ((sendto_fn)jail_real(JAIL_ID_sendto))(fd, b, l, f, sa ? (const struct sockaddr *)&copy : NULL, n);
}

JAIL_EXPORT ssize_t sendmsg(int fd, const struct msghdr *m, int f)
{
	struct sockaddr_storage copy;
	struct msghdr mine;
	if (!jail_launder(m))
		return ((sendmsg_fn)jail_real(JAIL_ID_sendmsg))(fd, m, f); /* the kernel's EFAULT */
	mine = *m;
	int rc = jail_sockaddr_copy(mine.msg_name, mine.msg_namelen, &copy);
	if (rc == 0 && mine.msg_name) {
		mine.msg_name = &copy;
		rc = jail_check_sockaddr(&copy, mine.msg_namelen, 0, 1, "sendmsg");
	}
	if (rc)
		return fail(rc);
	if (jail_config()->env_supervised) {
		long r = jail_os_sendmsg(fd, &mine, f);
		return r < 0 ? fail((int)r) : r;
	}
	return ((sendmsg_fn)jail_real(JAIL_ID_sendmsg))(fd, &mine, f);
}

/* sendmmsg: each message's address copied and decided; the kernel's counts
 * (msg_len) go back into the caller's array. The copied headers (which the
 * kernel wants contiguous) and then their addresses: a few on the stack,
 * more in a mapping (at most 1024, all the kernel sends in one call). */
JAIL_EXPORT int sendmmsg(int fd, struct mmsghdr *v, unsigned int n, int f)
{
	enum { FEW = 4 };
	struct mmsghdr few_h[FEW];
	struct sockaddr_storage few_a[FEW];
	struct mmsghdr *h = few_h;
	struct sockaddr_storage *a = few_a;
	size_t len = 0;
	if (!jail_launder(v) || n == 0)
		return ((sendmmsg_fn)jail_real(JAIL_ID_sendmmsg))(fd, v, n, f);
	if (n > 1024)
		n = 1024;
	if (n > FEW) {
		len = ((size_t)n * (sizeof(*h) + sizeof(*a)) + 4095) & ~(size_t)4095;
		void *m = jail_os_mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (m == MAP_FAILED)
			return fail(-ENOMEM);
		a = m; /* the addresses first: their alignment is the stricter */
		h = (struct mmsghdr *)(a + n);
	}
	int rc = 0, sent = -1, err = 0;
	for (unsigned int i = 0; rc == 0 && i < n; i++) {
		h[i] = v[i];
		rc = jail_sockaddr_copy(v[i].msg_hdr.msg_name, v[i].msg_hdr.msg_namelen, &a[i]);
		if (rc == 0 && h[i].msg_hdr.msg_name) {
			h[i].msg_hdr.msg_name = &a[i];
			rc = jail_check_sockaddr(&a[i], h[i].msg_hdr.msg_namelen, 0, 1, "sendmmsg");
		}
	}
	if (rc == 0) {
		if (jail_config()->env_supervised) { /* decided here: from the syscall page, past the supervisor */
			long r = jail_os_sendmmsg(fd, h, n, f);
			sent = r < 0 ? -1 : (int)r;
			err = r < 0 ? (int)-r : 0;
		} else {
			sent = ((sendmmsg_fn)jail_real(JAIL_ID_sendmmsg))(fd, h, n, f);
			err = errno;
		}
		for (int i = 0; i < sent; i++)
			v[i].msg_len = h[i].msg_len;
	}
	if (len)
		jail_os_munmap(a, len);
	if (rc)
		return fail(rc);
	errno = err;
	return sent;
}
