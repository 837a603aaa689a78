/*
 * net.c — the `net` directive: parsing a host argument, and deciding
 * connections and name resolutions.
 *
 *     net allow HOST[:PORT]...     net deny HOST[:PORT]...     net none
 *
 * HOST is `*`, a name (`api.example.com`), a wildcard name (`*.example.com`:
 * its subdomains, not itself), an IPv4 or IPv6 address or CIDR range (IPv6
 * in brackets when a port follows), `loopback` or `private`. PORT is a
 * number, a range LO-HI, or `*`.
 *
 * Invariants:
 *  1. Deciding (jail_decide_connect, jail_decide_resolve) reads the blob and
 *     the caller's arguments only: no allocation, no locks, no errno.
 *  2. Every address is compared as IPv6: IPv4 as ::ffff:a.b.c.d, and the
 *     NAT64 prefix 64:ff9b::/96 as the IPv4 address it carries, so no
 *     spelling of an address reaches it past a rule on another spelling.
 *  3. The local network (RFC 1918, link-local, shared, unique-local,
 *     multicast, broadcast, local-use NAT64) is not reachable by default:
 *     only a rule that names it (not `*`), or a name allowed by a rule
 *     that resolved to it, reaches it
 *     (and, with no `net allow`, a name server at port 53). Loopback is
 *     reachable by default, except under `net none`.
 */
#include "build.h"
#include "blob.h"

#include <stdlib.h>
#include <string.h>

struct jail_policy {
	struct jail_blob_hdr hdr;
};

/* ---- address ranges ---- */

struct range {
	uint8_t addr[16];
	uint8_t prefix;
};

#define V4(a, b, c, d, bits) {{0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, a, b, c, d}, (uint8_t)(96 + (bits))}

static const struct range loopback_ranges[] = {
    V4(127, 0, 0, 0, 8),
    V4(0, 0, 0, 0, 8), /* "this host": a connection to 0.0.0.0 arrives on loopback */
    {{0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1}, 128}, /* ::1 */
    {{0}, 128},                                             /* :: */
};

/* The local network beyond loopback: what a process outside a container,
 * or the cloud's metadata service, would be reached through. */
static const struct range local_ranges[] = {
    V4(10, 0, 0, 0, 8),      V4(172, 16, 0, 0, 12), V4(192, 168, 0, 0, 16), /* RFC 1918 */
    V4(169, 254, 0, 0, 16),                                                   /* link-local, metadata */
    V4(100, 64, 0, 0, 10),                                                    /* shared address space */
    V4(224, 0, 0, 0, 4),     V4(255, 255, 255, 255, 32),                      /* multicast, broadcast */
    {{0xfc}, 7},                                                              /* unique-local */
    {{0xfe, 0x80}, 10},                                                       /* link-local */
    {{0xff}, 8},                                                              /* multicast */
    {{0, 0x64, 0xff, 0x9b, 0, 1}, 48}, /* local-use NAT64 (RFC 8215): what it reaches is the network's own */
};

#define NELEM(a) (sizeof(a) / sizeof((a)[0]))
_Static_assert(NELEM(loopback_ranges) + NELEM(local_ranges) <= JAIL_NET_MAX_EXPAND, "`private` fits one expansion");

static int prefix_match(const uint8_t *a, const uint8_t *net, unsigned bits)
{
	unsigned full = bits / 8, rest = bits % 8;
	if (memcmp(a, net, full) != 0)
		return 0;
	if (rest == 0)
		return 1;
	uint8_t mask = (uint8_t)(0xff << (8 - rest));
	return (a[full] & mask) == (net[full] & mask);
}

static int in_ranges(const uint8_t a[16], const struct range *r, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (prefix_match(a, r[i].addr, r[i].prefix))
			return 1;
	return 0;
}

static const uint8_t nat64[12] = {0, 0x64, 0xff, 0x9b, 0, 0, 0, 0, 0, 0, 0, 0};

/* The address as rules see it (invariant 2). */
static void canonical_addr(const uint8_t in[16], uint8_t out[16])
{
	memmove(out, in, 16);
	if (memcmp(in, nat64, 12) == 0) {
		memset(out, 0, 10);
		out[10] = out[11] = 0xff;
	}
}

/* ---- parsing (build time) ---- */

static int digit(char c)
{
	return c >= '0' && c <= '9';
}

static int hexval(char c)
{
	if (digit(c))
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/* a.b.c.d, each part a decimal 0-255 without leading zeros (no octal). */
static int parse_v4(const char *s, size_t n, uint8_t out[4])
{
	size_t i = 0;
	for (int part = 0; part < 4; part++) {
		unsigned v = 0, digits = 0;
		while (i < n && digit(s[i])) {
			if (digits == 1 && v == 0)
				return -1;
			v = v * 10 + (unsigned)(s[i++] - '0');
			if (++digits > 3 || v > 255)
				return -1;
		}
		if (digits == 0)
			return -1;
		out[part] = (uint8_t)v;
		if (part < 3 && (i >= n || s[i++] != '.'))
			return -1;
	}
	return i == n ? 0 : -1;
}

/* RFC 4291 text: groups of 1-4 hex digits, one "::", an IPv4 tail. */
static int parse_v6(const char *s, size_t n, uint8_t out[16])
{
	uint8_t w[16];
	int nw = 0, gap = -1;
	size_t i = 0;
	if (n >= 2 && s[0] == ':' && s[1] == ':') {
		gap = 0;
		i = 2;
		if (n == 2) {
			memset(out, 0, 16);
			return 0;
		}
	} else if (n && s[0] == ':') {
		return -1;
	}
	while (i < n) {
		size_t j = i;
		unsigned v = 0;
		while (j < n && j - i < 5 && hexval(s[j]) >= 0)
			v = v * 16 + (unsigned)hexval(s[j++]);
		if (j < n && s[j] == '.') { /* an IPv4 tail */
			if (nw > 12 || parse_v4(s + i, n - i, w + nw))
				return -1;
			nw += 4;
			i = n;
			break;
		}
		if (j == i || j - i > 4 || nw > 14)
			return -1;
		w[nw++] = (uint8_t)(v >> 8);
		w[nw++] = (uint8_t)v;
		i = j;
		if (i == n)
			break;
		if (s[i] != ':')
			return -1;
		i++;
		if (i < n && s[i] == ':') {
			if (gap >= 0)
				return -1;
			gap = nw;
			i++;
		} else if (i == n) {
			return -1; /* a trailing single ':' */
		}
	}
	if (gap < 0 && nw != 16)
		return -1;
	if (gap >= 0 && nw > 14)
		return -1;
	memset(out, 0, 16);
	if (gap < 0) {
		memcpy(out, w, 16);
	} else {
		memcpy(out, w, (size_t)gap);
		memcpy(out + 16 - (nw - gap), w + gap, (size_t)(nw - gap));
	}
	return 0;
}

int jail_addr_parse(const char *s, uint8_t out[16])
{
	size_t n = strlen(s);
	uint8_t v4[4];
	if (parse_v4(s, n, v4) == 0) {
		memset(out, 0, 10);
		out[10] = out[11] = 0xff;
		memcpy(out + 12, v4, 4);
		return 0;
	}
	return memchr(s, ':', n) ? parse_v6(s, n, out) : -1;
}

static int is_v4(const uint8_t a[16])
{
	static const uint8_t mapped[12] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff};
	return memcmp(a, mapped, 12) == 0;
}

static size_t put(char *buf, size_t bufsz, size_t n, char c)
{
	if (n + 1 < bufsz)
		buf[n] = c;
	return n + 1;
}

static size_t put_dec(char *buf, size_t bufsz, size_t n, unsigned v)
{
	char t[12];
	int k = 0;
	do
		t[k++] = (char)('0' + v % 10);
	while ((v /= 10) != 0);
	while (k)
		n = put(buf, bufsz, n, t[--k]);
	return n;
}

size_t jail_addr_format(const uint8_t a[16], char *buf, size_t bufsz)
{
	size_t n = 0;
	if (is_v4(a)) {
		for (int i = 12; i < 16; i++) {
			if (i > 12)
				n = put(buf, bufsz, n, '.');
			n = put_dec(buf, bufsz, n, a[i]);
		}
	} else {
		/* the longest run of zero groups (two or more) becomes "::" */
		int best = -1, bestlen = 1;
		for (int g = 0; g < 8;) {
			int k = g;
			while (k < 8 && a[2 * k] == 0 && a[2 * k + 1] == 0)
				k++;
			if (k - g > bestlen)
				best = g, bestlen = k - g;
			g = k > g ? k : g + 1;
		}
		for (int g = 0; g < 8; g++) {
			if (g == best) {
				n = put(buf, bufsz, n, ':');
				n = put(buf, bufsz, n, ':');
				g += bestlen - 1;
				continue;
			}
			if (g > 0 && g != best + bestlen)
				n = put(buf, bufsz, n, ':');
			unsigned v = (unsigned)a[2 * g] << 8 | a[2 * g + 1];
			int started = 0;
			for (int sh = 12; sh >= 0; sh -= 4) {
				unsigned d = (v >> sh) & 15;
				if (d || started || sh == 0) {
					n = put(buf, bufsz, n, "0123456789abcdef"[d]);
					started = 1;
				}
			}
		}
	}
	if (bufsz)
		buf[n < bufsz ? n : bufsz - 1] = '\0';
	return n;
}

static int parse_port(const char *s, size_t n, uint16_t *lo, uint16_t *hi)
{
	if (n == 1 && s[0] == '*') {
		*lo = 0;
		*hi = 65535;
		return 0;
	}
	unsigned v[2] = {0, 0};
	int k = 0;
	size_t digits = 0;
	for (size_t i = 0; i < n; i++) {
		if (s[i] == '-' && k == 0 && digits) {
			k = 1;
			digits = 0;
			continue;
		}
		if (!digit(s[i]) || ++digits > 5)
			return -1;
		v[k] = v[k] * 10 + (unsigned)(s[i] - '0');
	}
	if (!digits)
		return -1;
	if (k == 0)
		v[1] = v[0];
	if (v[0] == 0 || v[1] > 65535 || v[0] > v[1])
		return -1;
	*lo = (uint16_t)v[0];
	*hi = (uint16_t)v[1];
	return 0;
}

/* addr[/prefix]: an address, then bits (IPv4: 0-32, IPv6: 0-128). */
static int parse_cidr(const char *s, size_t n, struct jail_bxrule *r, const char **why)
{
	char tmp[64];
	const char *slash = memchr(s, '/', n);
	size_t an = slash ? (size_t)(slash - s) : n;
	if (an >= sizeof(tmp))
		return *why = "not an address", -1;
	memcpy(tmp, s, an);
	tmp[an] = '\0';
	if (jail_addr_parse(tmp, r->addr))
		return *why = "not an IPv4 or IPv6 address", -1;
	int v4 = is_v4(r->addr) && memchr(tmp, '.', an);
	unsigned bits = 128;
	if (slash) {
		unsigned v = 0;
		size_t i = an + 1;
		if (i == n)
			return *why = "expected a prefix length after '/'", -1;
		for (; i < n; i++) {
			if (!digit(s[i]) || v > 128)
				return *why = "expected a prefix length after '/'", -1;
			v = v * 10 + (unsigned)(s[i] - '0');
		}
		if (v > (v4 ? 32u : 128u))
			return *why = v4 ? "an IPv4 prefix length is at most 32" : "an IPv6 prefix length is at most 128", -1;
		bits = v4 ? 96 + v : v;
	}
	/* bits set past the prefix are a typo, not a range */
	uint8_t masked[16];
	memcpy(masked, r->addr, 16);
	for (unsigned b = bits; b < 128; b++)
		masked[b / 8] &= (uint8_t) ~(0x80u >> (b % 8));
	if (memcmp(masked, r->addr, 16) != 0)
		return *why = "the address has bits set past its prefix length", -1;
	if (bits >= 96 && memcmp(r->addr, nat64, 12) == 0)
		canonical_addr(r->addr, r->addr); /* a rule in NAT64 form names the IPv4 addresses, as connections do */
	r->host = JAIL_HOST_ADDR;
	r->prefix = (uint8_t)bits;
	return 0;
}

static int name_char(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || digit(c) || c == '-' || c == '_';
}

/* An address or range (IPv6 has a ':'; IPv4 is digits, dots and a /). */
static int looks_numeric(const char *s, size_t n)
{
	if (memchr(s, ':', n))
		return 1;
	const char *slash = memchr(s, '/', n);
	size_t k = 0, an = slash ? (size_t)(slash - s) : n;
	while (k < an && (digit(s[k]) || s[k] == '.'))
		k++;
	return an && k == an && (slash || (an && s[an - 1] != '.'));
}

/* a name (labels of letters, digits, '-' and '_'), lower-cased into r->pat */
static int parse_name(const char *s, size_t n, struct jail_bxrule *r, const char **why, uint32_t *at)
{
	size_t off = 0;
	r->host = JAIL_HOST_NAME;
	if (n >= 2 && s[0] == '*' && s[1] == '.') {
		r->host = JAIL_HOST_SUFFIX;
		off = 2;
	}
	if (n && s[n - 1] == '.')
		n--; /* the root's dot */
	if (n <= off)
		return *why = "expected a host name", *at = 0, -1;
	if (n - off > 253)
		return *why = "a host name is at most 253 bytes", *at = 0, -1;
	size_t label = 0;
	for (size_t i = off; i < n; i++) {
		if (s[i] == '.') {
			if (label == 0)
				return *why = "empty label in a host name", *at = (uint32_t)i, -1;
			label = 0;
			continue;
		}
		if (s[i] == '*')
			return *why = "a wildcard is allowed only as a whole first label, as in '*.example.com'",
			       *at = (uint32_t)i, -1;
		if (!name_char(s[i]))
			return *why = "unexpected character in a host name", *at = (uint32_t)i, -1;
		if (++label > 63)
			return *why = "a label of a host name is at most 63 bytes", *at = (uint32_t)i, -1;
	}
	if (label == 0)
		return *why = "empty label in a host name", *at = (uint32_t)n, -1;
	/* a name that is all digits and dots is a malformed address */
	size_t k = off;
	while (k < n && (digit(s[k]) || s[k] == '.'))
		k++;
	if (k == n)
		return *why = "not an IPv4 address (four numbers 0-255, without leading zeros)", *at = 0, -1;
	char *lower = malloc(n - off + 1);
	if (!lower)
		return *why = "out of memory", *at = 0, -1;
	for (size_t i = off; i < n; i++)
		lower[i - off] = (s[i] >= 'A' && s[i] <= 'Z') ? (char)(s[i] - 'A' + 'a') : s[i];
	lower[n - off] = '\0';
	r->pat = lower;
	return 0;
}

int jail_net_parse(const char *arg, struct jail_bxrule r[JAIL_NET_MAX_EXPAND], unsigned *count, const char **why,
                   uint32_t *at)
{
	size_t n = strlen(arg), hn = n;
	const char *port = NULL;
	struct jail_bxrule base;
	memset(&base, 0, sizeof(base));
	base.port_lo = 0;
	base.port_hi = 65535;
	*at = 0;
	*count = 0;
	const char *host = arg;
	if (arg[0] == '[') { /* [IPv6] or [IPv6/prefix], then :PORT */
		const char *close = strchr(arg, ']');
		if (!close)
			return *why = "expected ']' after a bracketed IPv6 address", -1;
		host = arg + 1;
		hn = (size_t)(close - host);
		if (close[1] == ':')
			port = close + 2;
		else if (close[1] != '\0')
			return *why = "expected ':PORT' or nothing after ']'", *at = (uint32_t)(close + 1 - arg), -1;
		if (!memchr(host, ':', hn))
			return *why = "brackets hold an IPv6 address", *at = 1, -1;
	} else {
		const char *c1 = strchr(arg, ':'), *c2 = strrchr(arg, ':');
		if (c1 && c1 != c2) /* "::1:80": an address, or [::1]:80? */
			return *why = "write an IPv6 address in brackets, as in '[::1]' or '[::1]:443'", -1;
		if (c1) {
			hn = (size_t)(c1 - arg);
			port = c1 + 1;
		}
	}
	if (port && parse_port(port, strlen(port), &base.port_lo, &base.port_hi))
		return *why = "expected a port (1-65535), a range LO-HI or '*'", *at = (uint32_t)(port - arg), -1;

	const struct range *set = NULL;
	size_t setn = 0, set2n = 0;
	if (hn == 1 && host[0] == '*') {
		base.host = JAIL_HOST_ADDR;
		base.prefix = 0;
	} else if (hn == 8 && strncmp(host, "loopback", 8) == 0) {
		set = loopback_ranges, setn = NELEM(loopback_ranges);
	} else if (hn == 7 && strncmp(host, "private", 7) == 0) {
		set = loopback_ranges, setn = NELEM(loopback_ranges), set2n = NELEM(local_ranges);
	} else if (looks_numeric(host, hn)) {
		if (parse_cidr(host, hn, &base, why))
			return *at = (uint32_t)(host - arg), -1;
	} else {
		if (parse_name(host, hn, &base, why, at))
			return *at += (uint32_t)(host - arg), -1;
	}
	if (set) {
		for (size_t i = 0; i < setn + set2n; i++) {
			const struct range *g = i < setn ? &set[i] : &local_ranges[i - setn];
			r[i] = base;
			r[i].host = JAIL_HOST_ADDR;
			memcpy(r[i].addr, g->addr, 16);
			r[i].prefix = g->prefix;
		}
		*count = (unsigned)(setn + set2n);
		return 0;
	}
	r[0] = base;
	*count = 1;
	return 0;
}

/* ---- deciding (hot path) ---- */

static const struct jail_blob_xrule *xr(const struct jail_policy *p, uint32_t *n)
{
	*n = p->hdr.nxrules;
	return jail_blob_xrules(&p->hdr);
}

static int port_in(const struct jail_blob_xrule *x, unsigned port)
{
	return port >= x->port_lo && port <= x->port_hi;
}

static int port_restricted(const struct jail_blob_xrule *x)
{
	return !(x->port_lo == 0 && x->port_hi == 65535);
}

/* Keeps the better of (best, candidate): higher specificity, deny on ties. */
static void consider(struct jail_decision *best, uint32_t *spec, int32_t rule, enum jail_effect e, uint32_t s)
{
	if (best->rule < 0 || s > *spec || (s == *spec && e == JAIL_DENY && best->verdict == JAIL_ALLOW)) {
		best->verdict = e;
		best->rule = rule;
		best->specificity = s;
		*spec = s;
	}
}

static struct jail_decision none(void)
{
	return (struct jail_decision){JAIL_DENY, JAIL_NO_RULE, -1, 0};
}

static uint32_t labels(const char *s, uint32_t len)
{
	uint32_t k = 1;
	for (uint32_t i = 0; i < len; i++)
		k += s[i] == '.';
	return k;
}

/* The name rules' decision for name (lower case), at port (-1: resolving). */
static struct jail_decision by_name(const struct jail_policy *p, const char *name, size_t len, int port)
{
	uint32_t n, spec = 0;
	const struct jail_blob_xrule *x = xr(p, &n);
	struct jail_decision d = none();
	for (uint32_t i = 0; i < n; i++) {
		if (x[i].kind != JAIL_X_NET || (x[i].host != JAIL_HOST_NAME && x[i].host != JAIL_HOST_SUFFIX))
			continue;
		const char *pat = jail_blob_str(&p->hdr, x[i].pat);
		uint32_t pl = x[i].len;
		if (x[i].host == JAIL_HOST_NAME) {
			if (pl != len || memcmp(pat, name, len) != 0)
				continue;
		} else if (!(len > pl + 1 && name[len - pl - 1] == '.' && memcmp(name + len - pl, pat, pl) == 0)) {
			continue;
		}
		if (port >= 0 ? !port_in(&x[i], (unsigned)port) : (x[i].effect == JAIL_DENY && port_restricted(&x[i])))
			continue;
		/* exact names over wildcards; longer suffixes over shorter; a port over none */
		uint32_t s = (x[i].host == JAIL_HOST_NAME ? 512u : labels(pat, pl)) * 2 + (uint32_t)port_restricted(&x[i]);
		consider(&d, &spec, (int32_t)(p->hdr.nrules + i), (enum jail_effect)x[i].effect, s);
	}
	if (d.rule >= 0)
		d.reason = JAIL_BY_RULE;
	return d;
}

/* Address rules with prefix > 0 (catch_all 0), or the catch-alls (1). */
static struct jail_decision by_addr(const struct jail_policy *p, const uint8_t a[16], int port, int catch_all)
{
	uint32_t n, spec = 0;
	const struct jail_blob_xrule *x = xr(p, &n);
	struct jail_decision d = none();
	for (uint32_t i = 0; i < n; i++) {
		if (x[i].kind != JAIL_X_NET || x[i].host != JAIL_HOST_ADDR || (x[i].prefix == 0) != catch_all)
			continue;
		if (!prefix_match(a, x[i].addr, x[i].prefix))
			continue;
		if (port >= 0 ? !port_in(&x[i], (unsigned)port) : (x[i].effect == JAIL_DENY && port_restricted(&x[i])))
			continue;
		consider(&d, &spec, (int32_t)(p->hdr.nrules + i), (enum jail_effect)x[i].effect,
		         (uint32_t)x[i].prefix * 2 + (uint32_t)port_restricted(&x[i]));
	}
	if (d.rule >= 0)
		d.reason = JAIL_BY_RULE;
	return d;
}

/* Lower-cases name without its root dot into buf; its length, or -1 for
 * what is not a host name: only letters, digits, '-', '_' and '.' are,
 * since the resolver decodes escapes ("s\101cret" is "secret") that a
 * comparison as text would miss. */
static long fold_name(const char *name, char *buf, size_t bufsz)
{
	size_t n = 0;
	for (; name[n]; n++) {
		if (n + 1 >= bufsz)
			return -1;
		char c = name[n];
		if (!name_char(c) && c != '.')
			return -1;
		buf[n] = (c >= 'A' && c <= 'Z') ? (char)(c - 'A' + 'a') : c;
	}
	if (n && buf[n - 1] == '.')
		n--;
	buf[n] = '\0';
	return n ? (long)n : -1;
}

struct jail_decision jail_decide_connect(const struct jail_policy *p, const uint8_t addr[16], unsigned port,
                                         const char *name)
{
	uint8_t a[16];
	struct jail_decision d;
	canonical_addr(addr, a);
	d = by_addr(p, a, (int)port, 0);
	if (d.rule >= 0)
		return d;
	char folded[256];
	long fl = name ? fold_name(name, folded, sizeof(folded)) : -1;
	if (fl > 0) {
		d = by_name(p, folded, (size_t)fl, (int)port);
		if (d.rule >= 0)
			return d;
	}
	d = by_addr(p, a, (int)port, 1);
	int local = in_ranges(a, local_ranges, NELEM(local_ranges));
	if (d.rule >= 0 && !(local && d.verdict == JAIL_ALLOW)) /* `*` does not name the local network */
		return d;
	enum jail_net_mode m = jail_policy_net(p);
	if (in_ranges(a, loopback_ranges, NELEM(loopback_ranges))) {
		int ok = m == JAIL_NET_MODE_OPEN || (m == JAIL_NET_MODE_ALLOWLIST && port != 53);
		return (struct jail_decision){ok ? JAIL_ALLOW : JAIL_DENY, ok ? JAIL_NET_LOOPBACK : JAIL_NO_RULE, -1, 0};
	}
	/* a name server on the local network (a router's, a cloud's) keeps
	 * answering programs with resolvers of their own, when the network is open */
	if (local)
		return m == JAIL_NET_MODE_OPEN && port == 53 ? (struct jail_decision){JAIL_ALLOW, JAIL_NET_OPEN, -1, 0}
		                                              : (struct jail_decision){JAIL_DENY, JAIL_NET_LOCAL, -1, 0};
	if (m == JAIL_NET_MODE_OPEN)
		return (struct jail_decision){JAIL_ALLOW, JAIL_NET_OPEN, -1, 0};
	return none();
}

struct jail_decision jail_decide_address_rules(const struct jail_policy *p, const uint8_t addr[16], unsigned port)
{
	uint8_t a[16];
	canonical_addr(addr, a);
	return by_addr(p, a, (int)port, 0);
}

static int localhost_name(const char *s, size_t n)
{
	return (n == 9 && memcmp(s, "localhost", 9) == 0) || (n > 10 && memcmp(s + n - 10, ".localhost", 10) == 0);
}

struct jail_decision jail_decide_resolve(const struct jail_policy *p, const char *name)
{
	char folded[256];
	long fl = fold_name(name, folded, sizeof(folded));
	if (fl < 0)
		return (struct jail_decision){JAIL_DENY, JAIL_NET_BAD_NAME, -1, 0};
	struct jail_decision d = by_name(p, folded, (size_t)fl, -1);
	if (d.rule >= 0)
		return d;
	static const uint8_t any[16];
	d = by_addr(p, any, -1, 1);
	if (d.rule >= 0)
		return d;
	enum jail_net_mode m = jail_policy_net(p);
	if (localhost_name(folded, (size_t)fl) && m != JAIL_NET_MODE_NONE)
		return (struct jail_decision){JAIL_ALLOW, JAIL_NET_LOOPBACK, -1, 0};
	if (m == JAIL_NET_MODE_OPEN)
		return (struct jail_decision){JAIL_ALLOW, JAIL_NET_OPEN, -1, 0};
	return none();
}

struct jail_decision jail_decide_name(const struct jail_policy *p, const char *name, unsigned port)
{
	struct jail_decision d = jail_decide_resolve(p, name);
	if (d.verdict != JAIL_ALLOW)
		return d;
	char folded[256];
	long fl = fold_name(name, folded, sizeof(folded));
	d = by_name(p, folded, (size_t)fl, (int)port);
	if (d.rule >= 0)
		return d;
	static const uint8_t any[16];
	d = by_addr(p, any, (int)port, 1);
	if (d.rule >= 0)
		return d;
	if (localhost_name(folded, (size_t)fl))
		return (struct jail_decision){port != 53 ? JAIL_ALLOW : JAIL_DENY, port != 53 ? JAIL_NET_LOOPBACK : JAIL_NO_RULE, -1, 0};
	if (jail_policy_net(p) == JAIL_NET_MODE_OPEN)
		return (struct jail_decision){JAIL_ALLOW, JAIL_NET_OPEN, -1, 0};
	return none();
}

int jail_policy_has_net_rules(const struct jail_policy *p)
{
	uint32_t n;
	const struct jail_blob_xrule *x = xr(p, &n);
	for (uint32_t i = 0; i < n; i++)
		if (x[i].kind == JAIL_X_NET)
			return 1;
	return 0;
}

int jail_net_ports(const struct jail_policy *p, uint16_t *ports, size_t max)
{
	uint32_t n;
	const struct jail_blob_xrule *x = xr(p, &n);
	size_t k = 0;
	if (jail_policy_net(p) == JAIL_NET_MODE_OPEN)
		return -1;
	for (uint32_t i = 0; i < n; i++) {
		if (x[i].kind != JAIL_X_NET || x[i].effect != JAIL_ALLOW)
			continue;
		if ((size_t)(x[i].port_hi - x[i].port_lo) + 1 > max)
			return -1; /* every port, or too many to list */
		for (unsigned port = x[i].port_lo; port <= x[i].port_hi; port++) {
			size_t j = 0;
			while (j < k && ports[j] != port)
				j++;
			if (j < k)
				continue;
			if (k == max)
				return -1;
			ports[k++] = (uint16_t)port;
		}
	}
	return (int)k;
}

enum jail_net_mode jail_policy_net(const struct jail_policy *p)
{
	return p->hdr.net <= JAIL_NET_MODE_NONE ? (enum jail_net_mode)p->hdr.net : JAIL_NET_MODE_NONE;
}
