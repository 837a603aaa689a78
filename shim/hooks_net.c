/*
 * hooks_net.c — name resolution: a name the policy does not let resolve
 * fails as an unknown host (EAI_NONAME, HOST_NOT_FOUND), with a "jail:
 * denied resolve NAME" report; the addresses an allowed name resolves to
 * are remembered with it (net.c), for connect to decide by the name.
 *
 * Like the functions they wrap, these are not async-signal-safe; they do
 * not allocate beyond what the real functions do.
 */
#define _GNU_SOURCE
#include "shim.h"

#include <errno.h>
#include <netdb.h>
#include <string.h>
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
	if (jail_check_resolve(jail_launder(node), "getaddrinfo") != 0) {
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
