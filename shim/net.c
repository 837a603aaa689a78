/*
 * net.c — the network half of the gate: the address a socket connects or
 * sends to, and the names the process resolves.
 *
 * A connect (or sendto/sendmsg with an address) to an IPv4 or IPv6 address
 * is decided by every layer's `net` rules (policy/net.c) before the real
 * call; a path socket is decided as a file (check.c). A name is resolved
 * only when every layer lets it resolve, and the addresses it resolved to
 * are remembered with it, so that a connect to one of them is decided with
 * the name's rules (`net allow api.example.com:443` reaches the addresses
 * api.example.com resolved to, at port 443).
 *
 * Invariants:
 *  1. The checks are async-signal-safe: no malloc, no locks, no stdio. The
 *     table of resolved names is written by the resolver hooks (which are
 *     not signal-safe themselves) with a per-slot sequence count, and read
 *     by connect without blocking; a slot read while it changes is skipped.
 *  2. A connect to the jail's own proxy (JAIL_PROXY) is always allowed: the
 *     proxy applies the same policy to what it is asked to reach.
 *  3. Nothing else about a socket is decided here: what is not an internet
 *     address nor a path is the kernel's business (abstract sockets, netlink).
 */
#define _GNU_SOURCE
#include "shim.h"
#include "os.h"

#include <arpa/inet.h>
#include <errno.h>
#include <netdb.h>
#include <netinet/in.h>
#include <stdatomic.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>

/* ---- names and the addresses they resolved to ---- */

/* A seqlock reader's fence between copying and checking again. TSan does
 * not model fences (GCC refuses them under it); it checks the accesses. */
#if defined(__SANITIZE_THREAD__)
#define READ_FENCE() ((void)0)
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define READ_FENCE() ((void)0)
#endif
#endif
#ifndef READ_FENCE
#define READ_FENCE() atomic_thread_fence(memory_order_acquire)
#endif

#define NAMES 512
#define NAME_MAX_LEN 254

static struct slot {
	_Atomic unsigned seq; /* odd while being written */
	uint8_t addr[16];
	char name[NAME_MAX_LEN];
} names[NAMES];
static _Atomic unsigned next_slot;

static void to16(const struct sockaddr *sa, uint8_t out[16], unsigned *port)
{
	if (sa->sa_family == AF_INET) {
		const struct sockaddr_in *in = (const void *)sa;
		memset(out, 0, 10);
		out[10] = out[11] = 0xff;
		memcpy(out + 12, &in->sin_addr, 4);
		*port = ntohs(in->sin_port);
	} else {
		const struct sockaddr_in6 *in6 = (const void *)sa;
		memcpy(out, &in6->sin6_addr, 16);
		*port = ntohs(in6->sin6_port);
	}
}

void jail_net_remember(const char *name, const struct sockaddr *sa)
{
	size_t n = strlen(name);
	unsigned port;
	if (n >= NAME_MAX_LEN || !sa || (sa->sa_family != AF_INET && sa->sa_family != AF_INET6))
		return;
	uint8_t a[16];
	to16(sa, a, &port);
	for (unsigned i = 0; i < NAMES; i++) /* once per name and address (not per socket type) */
		if (atomic_load(&names[i].seq) && !(atomic_load(&names[i].seq) & 1) && memcmp(names[i].addr, a, 16) == 0 &&
		    strncmp(names[i].name, name, NAME_MAX_LEN) == 0)
			return;
	struct slot *s = &names[atomic_fetch_add(&next_slot, 1) % NAMES];
	unsigned seq = atomic_load(&s->seq);
	if ((seq & 1) || !atomic_compare_exchange_strong(&s->seq, &seq, seq + 1))
		return; /* another writer has it: this name is not remembered (fails closed) */
	memcpy(s->addr, a, 16);
	memcpy(s->name, name, n + 1);
	atomic_store(&s->seq, seq + 2);
}

/* Calls fn for each name addr was resolved from (a copy, consistent);
 * stops when fn returns nonzero, and returns that. */
static int for_names(const uint8_t addr[16], int (*fn)(const char *name, void *ctx), void *ctx)
{
	for (unsigned i = 0; i < NAMES; i++) {
		struct slot *s = &names[i];
		unsigned seq = atomic_load(&s->seq);
		if (seq == 0 || (seq & 1) || memcmp(s->addr, addr, 16) != 0)
			continue;
		char copy[NAME_MAX_LEN];
		memcpy(copy, s->name, sizeof(copy));
		copy[NAME_MAX_LEN - 1] = '\0';
		READ_FENCE(); /* the copy before the second look */
		if (atomic_load(&s->seq) != seq || memcmp(s->addr, addr, 16) != 0)
			continue;
		int rc = fn(copy, ctx);
		if (rc)
			return rc;
	}
	return 0;
}

/* ---- connect ---- */

/* "HOST:PORT" for messages: [v6]:port, or name (address):port. */
static void describe(struct jail_buf *b, const uint8_t a[16], unsigned port, const char *name)
{
	char text[64];
	int v6 = !(memcmp(a, "\0\0\0\0\0\0\0\0\0\0\xff\xff", 12) == 0);
	jail_addr_format(a, text, sizeof(text));
	if (name) {
		jail_put(b, name);
		jail_put(b, " (");
	}
	if (v6 && !name)
		jail_put(b, "[");
	jail_put(b, text);
	if (v6 && !name)
		jail_put(b, "]");
	if (name)
		jail_put(b, ")");
	jail_put(b, ":");
	jail_put_uint(b, port);
}

struct attempt {
	const uint8_t *addr;
	unsigned port;
	int layer;
	struct jail_decision d;
	const char *name; /* the name whose rules decided, when one did */
	char name_buf[NAME_MAX_LEN];
};

static int try_name(const char *name, void *ctx)
{
	struct attempt *t = ctx;
	struct jail_decision d = jail_decide_connect(jail_config()->layer[t->layer], t->addr, t->port, name);
	if (d.verdict == JAIL_ALLOW || !t->name) { /* the message names the first name tried */
		t->d = d;
		memcpy(t->name_buf, name, strlen(name) + 1);
		t->name = t->name_buf;
	}
	return d.verdict == JAIL_ALLOW;
}

static int is_proxy(const struct jail_config *c, const uint8_t a[16], unsigned port)
{
	return c->proxy_port && port == c->proxy_port && memcmp(a, c->proxy_addr, 16) == 0;
}

/* The internet address the kernel will use, as IPv6 and a port: 1, or 0
 * when there is none. The kernel takes an IPv6 address from 24 bytes on
 * (RFC 2133's size), and a datagram's AF_UNSPEC address as IPv4. */
static int inet_of(const struct sockaddr *sa, unsigned len, int sending, uint8_t a[16], unsigned *port)
{
	if (!sa || len < sizeof(sa_family_t))
		return 0;
	if ((sa->sa_family == AF_INET || (sending && sa->sa_family == AF_UNSPEC)) &&
	    len >= sizeof(struct sockaddr_in)) {
		struct sockaddr_in in;
		memcpy(&in, sa, sizeof(in));
		in.sin_family = AF_INET;
		to16((const struct sockaddr *)&in, a, port);
		return 1;
	}
	if (sa->sa_family == AF_INET6 && len >= 24) {
		struct sockaddr_in6 in6;
		memset(&in6, 0, sizeof(in6));
		memcpy(&in6, sa, len < sizeof(in6) ? len : sizeof(in6));
		to16((const struct sockaddr *)&in6, a, port);
		return 1;
	}
	return 0; /* not an internet address, or one the kernel refuses (EINVAL) */
}

/* rules_only: the call was decided already, with names this process does
 * not know (the shim's, in another process): only address rules, which
 * come before names, can refuse it here. */
static int check_inet(const void *addr, unsigned len, int sending, const char *op, int rules_only)
{
	const struct jail_config *c = jail_config();
	uint8_t a[16];
	unsigned port;
	if (!inet_of(addr, len, sending, a, &port))
		return 0;
	if (is_proxy(c, a, port))
		return 0;
	for (int i = 0; i < c->nlayers; i++) {
		struct attempt t = {.addr = a, .port = port, .layer = i};
		if (rules_only) {
			t.d = jail_decide_address_rules(c->layer[i], a, port);
			if (t.d.rule < 0)
				t.d.verdict = JAIL_ALLOW;
		} else {
			t.d = jail_decide_connect(c->layer[i], a, port, NULL);
		}
		/* denied as a bare address: a name it was resolved from may allow it
		 * (jail_decide_connect still lets an address rule decide first) */
		if (t.d.verdict != JAIL_ALLOW && !rules_only)
			for_names(a, try_name, &t);
		if (t.d.verdict == JAIL_ALLOW)
			continue;
		char subject[NAME_MAX_LEN + 80], rule[PATH_MAX];
		struct jail_buf s = {subject, 0, sizeof(subject)};
		describe(&s, a, port, t.name);
		if (t.d.rule >= 0)
			jail_rule_describe(c->layer[i], t.d.rule, rule, sizeof(rule));
		else
			strcpy(rule, t.d.reason == JAIL_NO_RULE ? "no rule allows it" : jail_reason_name(t.d.reason));
		int audit = jail_policy_mode(c->layer[i]) == JAIL_MODE_AUDIT;
		jail_report_net(c->layer[i], audit ? "would deny" : "denied", "connect", op, subject, rule);
		if (!audit)
			return -EACCES;
	}
	return 0;
}

int jail_check_inet(const void *addr, unsigned len, int sending, const char *op)
{
	return check_inet(addr, len, sending, op, 0);
}

int jail_check_inet_rules(const void *addr, unsigned len, int sending, const char *op)
{
	return check_inet(addr, len, sending, op, 1);
}

int jail_check_kernel_port(int fd, const void *addr, unsigned len, const char *op)
{
	const struct jail_config *c = jail_config();
	uint8_t a[16];
	unsigned port;
	uint16_t ports[JAIL_NET_MAX_PORTS];
	if (c->kernel_abi < 4 || !inet_of(addr, len, 0, a, &port))
		return 0;
	if (is_proxy(c, a, port))
		return 0;
	for (int i = 0; i < c->nlayers; i++) {
		if (jail_policy_mode(c->layer[i]) == JAIL_MODE_AUDIT)
			continue; /* the kernel layer leaves audit layers out */
		int n = jail_net_ports(c->layer[i], ports, JAIL_NET_MAX_PORTS);
		if (n < 0)
			continue;
		int k = 0;
		while (k < n && ports[k] != port)
			k++;
		if (k < n || jail_os_socket_type(fd) != SOCK_STREAM)
			continue;
		char subject[80];
		struct jail_buf s = {subject, 0, sizeof(subject)};
		describe(&s, a, port, NULL);
		jail_report_net(c->layer[i], "denied", "connect", op, subject,
		                "the kernel layer lets TCP reach only the ports the net allow rules name");
		return -EACCES;
	}
	return 0;
}

int jail_check_sockaddr(const void *addr, unsigned len, unsigned rflags, int sending, const char *op)
{
	const struct sockaddr *sa = addr;
	if (!sa || len < sizeof(sa_family_t))
		return 0;
	if (sa->sa_family == AF_UNIX)
		return jail_check_unix(addr, len, rflags, op);
	return jail_check_inet(addr, len, sending, op);
}

int jail_sockaddr_copy(const void *addr, unsigned len, struct sockaddr_storage *copy)
{
	if (!addr)
		return 0;
	if (len > sizeof(*copy))
		return -EINVAL; /* what the kernel answers */
	memset(copy, 0, sizeof(*copy));
	memcpy(copy, addr, len);
	return 0;
}

/* ---- resolving ---- */

int jail_check_resolve(const char *name, const char *op)
{
	const struct jail_config *c = jail_config();
	uint8_t a[16];
	if (!name || !*name || jail_addr_parse(name, a) == 0)
		return 0; /* no name, or a numeric address: decided when it is used */
	for (int i = 0; i < c->nlayers; i++) {
		struct jail_decision d = jail_decide_resolve(c->layer[i], name);
		if (d.verdict == JAIL_ALLOW)
			continue;
		char rule[PATH_MAX];
		if (d.rule >= 0)
			jail_rule_describe(c->layer[i], d.rule, rule, sizeof(rule));
		else
			strcpy(rule, d.reason == JAIL_NO_RULE ? "no rule allows it" : jail_reason_name(d.reason));
		int audit = jail_policy_mode(c->layer[i]) == JAIL_MODE_AUDIT;
		jail_report_net(c->layer[i], audit ? "would deny" : "denied", "resolve", op, name, rule);
		if (!audit)
			return -EACCES;
	}
	return 0;
}
