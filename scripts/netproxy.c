/*
 * netproxy.c — jail-netproxy: the jail's HTTP(S) proxy on loopback.
 *
 *   jail-netproxy --blob FILE [--blob FILE]... [--tally FILE] PORT_FILE
 *
 * Programs that resolve names and connect past the C library (Go, Bun,
 * static binaries) cannot be held to `net allow api.example.com` by the
 * shim. jailrun starts this proxy for a policy with `net allow` or `net
 * none`, exports HTTPS_PROXY, HTTP_PROXY and ALL_PROXY to the jail, and the
 * kernel layer lets TCP reach only this port and the ports the rules name.
 * The proxy applies the same compiled policy as the shim (every layer must
 * allow): CONNECT HOST:PORT for HTTPS, and absolute-form plain HTTP
 * requests (forwarded with "Connection: close"). A refusal is a 403 whose
 * body is the jail's message, the same line on stderr, a byte in the
 * tally and a line in the policy's log.
 *
 * Why not an existing proxy: the filters of tinyproxy cannot express a
 * deny inside an allowed wildcard, nor a port per host; a second copy of
 * the rules in another language could drift from what the shim decides.
 *
 * Invariants: listens on 127.0.0.1 only; writes its port to PORT_FILE once
 * listening, or exits 0 without writing it when no layer restricts the
 * network (nothing to enforce); ends with the process that started it.
 */
#define _GNU_SOURCE
#include "jsonout.h"
#include "policy.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#define MAX_LAYERS 16
#define HEAD_MAX 16384
#define MAX_CLIENTS 256

static const struct jail_policy *layers[MAX_LAYERS];
static int nlayers;
static const char *tally;
static _Atomic int clients;

/* ---- reporting ---- */


static void report(const struct jail_policy *p, const char *subject, const char *why)
{
	fprintf(stderr, "jail: denied connect %s (%s)\n", subject, why);
	if (tally) {
		int fd = open(tally, O_WRONLY | O_APPEND | O_CLOEXEC);
		if (fd >= 0) {
			ssize_t w = write(fd, "x", 1);
			(void)w;
			close(fd);
		}
	}
	FILE *f = jail_log_begin(jail_policy_log(p), getpid(), "jail-netproxy");
	if (!f)
		return;
	fputs(",\"operation\":\"proxy\",\"access\":\"connect\",\"path\":", f);
	jail_json_string(f, subject);
	fputs(",\"resolved\":", f);
	jail_json_string(f, subject);
	fputs(",\"decision\":\"denied\",\"rule\":", f);
	jail_json_string(f, why);
	fputs("}\n", f);
	fclose(f);
}

static void why_of(const struct jail_policy *p, struct jail_decision d, char *buf, size_t n)
{
	if (d.rule >= 0)
		jail_rule_describe(p, d.rule, buf, n);
	else
		snprintf(buf, n, "%s", d.reason == JAIL_NO_RULE ? "no rule allows it" : jail_reason_name(d.reason));
}

/* 0 when every layer allows; else the refusing layer's message in why. */
static int decide(const uint8_t *addr, const char *name, unsigned port, char *why, size_t n)
{
	for (int i = 0; i < nlayers; i++) {
		struct jail_decision d = addr ? jail_decide_connect(layers[i], addr, port, name)
		                              : jail_decide_name(layers[i], name, port);
		if (d.verdict == JAIL_ALLOW || jail_policy_mode(layers[i]) == JAIL_MODE_AUDIT)
			continue;
		why_of(layers[i], d, why, n);
		return i + 1;
	}
	return 0;
}

/* ---- one client ---- */

static int write_all(int fd, const char *b, size_t n)
{
	while (n) {
		ssize_t w = send(fd, b, n, MSG_NOSIGNAL);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return -1;
		b += w;
		n -= (size_t)w;
	}
	return 0;
}

static void reply(int fd, const char *status, const char *body)
{
	char buf[2048];
	int n = snprintf(buf, sizeof(buf),
	                 "HTTP/1.1 %s\r\nContent-Type: text/plain\r\nContent-Length: %zu\r\nConnection: close\r\n\r\n%s",
	                 status, strlen(body), body);
	if (n > 0)
		write_all(fd, buf, (size_t)n < sizeof(buf) ? (size_t)n : sizeof(buf) - 1);
}

#define IDLE_SECS 900 /* a tunnel silent both ways this long is closed */

struct half {
	int from, to;
	_Atomic long long *last; /* when either direction last moved a byte */
};

static long long seconds(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec;
}

/* One direction, until its end closes, an error, or IDLE_SECS in which
 * neither direction moved (checked each minute); then the other side
 * learns it (shutdown). */
static void *copy_half(void *arg)
{
	struct half *h = arg;
	char buf[65536];
	for (;;) {
		ssize_t r = recv(h->from, buf, sizeof(buf), 0);
		if (r < 0 && (errno == EINTR || ((errno == EAGAIN || errno == EWOULDBLOCK) &&
		                                 seconds() - atomic_load(h->last) < IDLE_SECS)))
			continue;
		if (r <= 0 || write_all(h->to, buf, (size_t)r) != 0)
			break;
		atomic_store(h->last, seconds());
	}
	shutdown(h->to, SHUT_WR);
	shutdown(h->from, SHUT_RD);
	return NULL;
}

/* Copies both ways, one thread per direction (so neither side's full
 * buffer can stall the other), until both are done. */
static void relay(int a, int b)
{
	struct timeval minute = {.tv_sec = 60}, idle = {.tv_sec = IDLE_SECS};
	setsockopt(a, SOL_SOCKET, SO_RCVTIMEO, &minute, sizeof(minute));
	setsockopt(b, SOL_SOCKET, SO_RCVTIMEO, &minute, sizeof(minute));
	setsockopt(a, SOL_SOCKET, SO_SNDTIMEO, &idle, sizeof(idle));
	setsockopt(b, SOL_SOCKET, SO_SNDTIMEO, &idle, sizeof(idle));
	_Atomic long long last = seconds();
	struct half up = {a, b, &last}, down = {b, a, &last};
	pthread_t t;
	pthread_attr_t attr;
	pthread_attr_init(&attr);
	pthread_attr_setstacksize(&attr, 128 * 1024);
	if (pthread_create(&t, &attr, copy_half, &down) != 0) {
		pthread_attr_destroy(&attr);
		return;
	}
	pthread_attr_destroy(&attr);
	copy_half(&up);
	pthread_join(t, NULL);
}

/* host[:port] or [v6][:port] into host and *port (default dflt). */
static int split_host(char *s, char **host, unsigned *port, unsigned dflt)
{
	char *colon;
	if (*s == '[') {
		char *close = strchr(s, ']');
		if (!close)
			return -1;
		*close = '\0';
		*host = s + 1;
		colon = close[1] == ':' ? close + 1 : NULL;
		if (!colon && close[1] != '\0')
			return -1;
	} else {
		*host = s;
		colon = strrchr(s, ':');
		if (colon && strchr(s, ':') != colon)
			return -1; /* a bare IPv6 address */
	}
	*port = dflt;
	if (colon) {
		*colon = '\0';
		char *end;
		unsigned long v = strtoul(colon + 1, &end, 10);
		if (*end || v == 0 || v > 65535)
			return -1;
		*port = (unsigned)v;
	}
	return **host ? 0 : -1;
}

static int connect_timeout(const struct sockaddr *sa, socklen_t len, int secs)
{
	int s = socket(sa->sa_family, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (s < 0)
		return -1;
	if (connect(s, sa, len) != 0 && errno != EINPROGRESS) {
		close(s);
		return -1;
	}
	struct pollfd p = {.fd = s, .events = POLLOUT};
	int err = 0;
	socklen_t el = sizeof(err);
	if (poll(&p, 1, secs * 1000) != 1 || getsockopt(s, SOL_SOCKET, SO_ERROR, &err, &el) != 0 || err) {
		close(s);
		errno = err ? err : ETIMEDOUT;
		return -1;
	}
	fcntl(s, F_SETFL, fcntl(s, F_GETFL) & ~O_NONBLOCK);
	return s;
}

static void to16(const struct sockaddr *sa, uint8_t out[16])
{
	if (sa->sa_family == AF_INET) {
		memset(out, 0, 10);
		out[10] = out[11] = 0xff;
		memcpy(out + 12, &((const struct sockaddr_in *)(const void *)sa)->sin_addr, 4);
	} else {
		memcpy(out, &((const struct sockaddr_in6 *)(const void *)sa)->sin6_addr, 16);
	}
}

/* Decides HOST:PORT, then connects to the first of its addresses the
 * policy allows. Returns the socket, or -1 after replying to the client. */
static int open_upstream(int client, const char *host, unsigned port)
{
	char subject[600], why[4096], body[5000];
	uint8_t a[16];
	int numeric = jail_addr_parse(host, a) == 0;
	snprintf(subject, sizeof(subject), strchr(host, ':') ? "[%s]:%u" : "%s:%u", host, port);
	int layer = decide(numeric ? a : NULL, host, port, why, sizeof(why));
	if (layer) {
		report(layers[layer - 1], subject, why);
		snprintf(body, sizeof(body), "jail: denied connect %s (%s)\n", subject, why);
		reply(client, "403 Forbidden", body);
		return -1;
	}
	struct addrinfo hints = {.ai_socktype = SOCK_STREAM, .ai_flags = AI_NUMERICSERV}, *res = NULL;
	char ps[8];
	snprintf(ps, sizeof(ps), "%u", port);
	int rc = getaddrinfo(host, ps, &hints, &res);
	if (rc != 0) {
		snprintf(body, sizeof(body), "jail-netproxy: cannot resolve %s: %s\n", host, gai_strerror(rc));
		reply(client, "502 Bad Gateway", body);
		return -1;
	}
	int s = -1, refused = 0, err = 0;
	for (struct addrinfo *ai = res; ai && s < 0; ai = ai->ai_next) {
		if (ai->ai_family != AF_INET && ai->ai_family != AF_INET6)
			continue;
		to16(ai->ai_addr, a);
		layer = decide(a, numeric ? NULL : host, port, why, sizeof(why));
		if (layer) { /* an address rule may refuse what the name allows */
			if (!refused++) {
				char shown[64];
				jail_addr_format(a, shown, sizeof(shown));
				snprintf(subject, sizeof(subject), "%s (%s):%u", host, shown, port);
				report(layers[layer - 1], subject, why);
				snprintf(body, sizeof(body), "jail: denied connect %s (%s)\n", subject, why);
			}
			continue;
		}
		s = connect_timeout(ai->ai_addr, ai->ai_addrlen, 15);
		if (s < 0)
			err = errno;
	}
	freeaddrinfo(res);
	if (s < 0) {
		if (!refused)
			snprintf(body, sizeof(body), "jail-netproxy: cannot connect to %s:%u: %s\n", host, port, strerror(err));
		reply(client, refused ? "403 Forbidden" : "502 Bad Gateway", body);
	}
	return s;
}

/* A header line to drop when forwarding plain HTTP: hop-by-hop ones (we
 * add our own Connection) and Host (we send the host that was decided). */
static int hop_header(const char *line, size_t n)
{
	static const char *const drop[] = {"connection:", "proxy-connection:", "proxy-authorization:", "keep-alive:",
	                                   "host:"};
	for (size_t i = 0; i < sizeof(drop) / sizeof(drop[0]); i++)
		if (n >= strlen(drop[i]) && strncasecmp(line, drop[i], strlen(drop[i])) == 0)
			return 1;
	return 0;
}

static void serve(int c)
{
	char head[HEAD_MAX + 1];
	size_t n = 0;
	char *end = NULL;
	struct timeval tv = {.tv_sec = 30};
	setsockopt(c, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	while (!end && n < HEAD_MAX) {
		ssize_t r = recv(c, head + n, HEAD_MAX - n, 0);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			return;
		n += (size_t)r;
		head[n] = '\0';
		end = strstr(head, "\r\n\r\n");
	}
	if (!end) {
		reply(c, "431 Request Header Fields Too Large", "jail-netproxy: request head too large\n");
		return;
	}
	tv.tv_sec = 0;
	setsockopt(c, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	size_t head_len = (size_t)(end - head) + 4;
	char *line_end = strstr(head, "\r\n");
	*line_end = '\0';
	char method[16], target[4096], version[16];
	if (sscanf(head, "%15s %4095s %15s", method, target, version) != 3) {
		reply(c, "400 Bad Request", "jail-netproxy: malformed request line\n");
		return;
	}
	char *host;
	unsigned port;
	if (strcmp(method, "CONNECT") == 0) {
		if (split_host(target, &host, &port, 443) != 0) {
			reply(c, "400 Bad Request", "jail-netproxy: CONNECT needs HOST:PORT\n");
			return;
		}
		int u = open_upstream(c, host, port);
		if (u < 0)
			return;
		static const char ok[] = "HTTP/1.1 200 Connection established\r\n\r\n";
		if (write_all(c, ok, sizeof(ok) - 1) == 0 && write_all(u, head + head_len, n - head_len) == 0)
			relay(c, u);
		close(u);
		return;
	}
	if (strncasecmp(target, "http://", 7) != 0) {
		reply(c, "400 Bad Request", "jail-netproxy: expected CONNECT or an http:// URL\n");
		return;
	}
	char *authority = target + 7, *path = strchr(authority, '/');
	char pathbuf[4096], hostline[600];
	snprintf(pathbuf, sizeof(pathbuf), "%s", path ? path : "/");
	if (path)
		*path = '\0';
	if (split_host(authority, &host, &port, 80) != 0) {
		reply(c, "400 Bad Request", "jail-netproxy: bad host in the URL\n");
		return;
	}
	snprintf(hostline, sizeof(hostline), strchr(host, ':') ? "Host: [%s]:%u\r\n" : "Host: %s:%u\r\n", host, port);
	int u = open_upstream(c, host, port);
	if (u < 0)
		return;
	/* origin-form request line, the headers but hop-by-hop ones, then ours */
	char out[HEAD_MAX + 4200];
	size_t o = (size_t)snprintf(out, sizeof(out), "%s %s %s\r\n%s", method, pathbuf, version, hostline);
	for (char *l = line_end + 2; l < end;) {
		char *e = strstr(l, "\r\n");
		size_t ln = (size_t)(e - l);
		if (!hop_header(l, ln) && o + ln + 2 < sizeof(out)) {
			memcpy(out + o, l, ln);
			memcpy(out + o + ln, "\r\n", 2);
			o += ln + 2;
		}
		l = e + 2;
	}
	o += (size_t)snprintf(out + o, sizeof(out) - o, "Connection: close\r\n\r\n");
	if (write_all(u, out, o) == 0 && write_all(u, head + head_len, n - head_len) == 0)
		relay(c, u);
	close(u);
}

static void *client_thread(void *arg)
{
	int c = (int)(intptr_t)arg;
	serve(c);
	close(c);
	atomic_fetch_sub(&clients, 1);
	return NULL;
}

int main(int argc, char **argv)
{
	const char *port_file = NULL;
	for (int i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--blob") == 0 && i + 1 < argc && nlayers < MAX_LAYERS) {
			const char *path = argv[++i];
			layers[nlayers] = jail_policy_read_blob(path);
			if (!layers[nlayers]) {
				fprintf(stderr, "jail: %s:1:1: not a valid compiled policy\n", path);
				return 125;
			}
			nlayers++;
		} else if (strcmp(argv[i], "--tally") == 0 && i + 1 < argc) {
			tally = argv[++i];
		} else if (argv[i][0] != '-' && !port_file) {
			port_file = argv[i];
		} else {
			fprintf(stderr, "usage: jail-netproxy --blob FILE [--blob FILE]... [--tally FILE] PORT_FILE\n");
			return 2;
		}
	}
	if (!port_file || nlayers == 0) {
		fprintf(stderr, "usage: jail-netproxy --blob FILE [--blob FILE]... [--tally FILE] PORT_FILE\n");
		return 2;
	}
	/* needed when some layer restricts the internet (an allowlist, net
	 * none): a documentation address (192.0.2.1) stands for "the internet" */
	int restricts = 0;
	uint8_t internet[16];
	jail_addr_parse("192.0.2.1", internet);
	for (int i = 0; i < nlayers; i++)
		restricts |= jail_decide_connect(layers[i], internet, 443, NULL).verdict != JAIL_ALLOW;
	if (!restricts)
		return 0; /* an open internet: the shim's defaults are all there is to hold */
	prctl(PR_SET_PDEATHSIG, SIGTERM);
	signal(SIGPIPE, SIG_IGN);
	int s = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	struct sockaddr_in a = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
	socklen_t al = sizeof(a);
	if (s < 0 || bind(s, (struct sockaddr *)&a, sizeof(a)) != 0 || listen(s, 128) != 0 ||
	    getsockname(s, (struct sockaddr *)&a, &al) != 0) {
		fprintf(stderr, "jail-netproxy: cannot listen on 127.0.0.1: %s\n", strerror(errno));
		return 1;
	}
	char tmp[4096];
	snprintf(tmp, sizeof(tmp), "%s.tmp", port_file);
	FILE *f = fopen(tmp, "we");
	if (!f || fprintf(f, "%u\n", ntohs(a.sin_port)) < 0 || fclose(f) != 0 || rename(tmp, port_file) != 0) {
		fprintf(stderr, "jail-netproxy: cannot write %s: %s\n", port_file, strerror(errno));
		return 1;
	}
	pthread_attr_t attr;
	pthread_attr_init(&attr);
	pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
	pthread_attr_setstacksize(&attr, 256 * 1024);
	for (;;) {
		int c = accept4(s, NULL, NULL, SOCK_CLOEXEC);
		if (c < 0) {
			if (errno == EMFILE || errno == ENFILE)
				usleep(100000); /* out of descriptors: let connections end */
			if (errno == EINTR || errno == ECONNABORTED || errno == EMFILE || errno == ENFILE)
				continue;
			return 1;
		}
		pthread_t t;
		if (atomic_fetch_add(&clients, 1) >= MAX_CLIENTS ||
		    pthread_create(&t, &attr, client_thread, (void *)(intptr_t)c) != 0) {
			atomic_fetch_sub(&clients, 1);
			reply(c, "503 Service Unavailable", "jail-netproxy: too many connections\n");
			close(c);
		}
	}
}
