/*
 * test_net.c — the `net` and `env` directives: parsing, errors, and the
 * decisions the shim and jailrun --explain rely on.
 *
 * Table rows: a policy, a query, the decision it must give (verdict,
 * reason, the deciding rule's line; 0 for no rule). Each row is one loop
 * iteration, so a failure names it.
 */
#include "testutil.h"

#include <check.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define OK JAIL_ALLOW
#define NO JAIL_DENY
#define BY JAIL_BY_RULE
#define NR JAIL_NO_RULE
#define LB JAIL_NET_LOOPBACK
#define LOC JAIL_NET_LOCAL
#define OPEN JAIL_NET_OPEN

/* ---- connect(addr:port), optionally to an address resolved from a name ---- */

struct crow {
	const char *policy;
	const char *addr; /* numeric */
	unsigned port;
	const char *name; /* the name it was resolved from, or NULL */
	enum jail_effect verdict;
	enum jail_reason reason;
	unsigned line;
};

#define ALLOW_API "net allow api.example.com:443 *.github.com\n"
#define CARVE "net allow *.github.com\nnet deny gist.github.com\nnet deny 10.1.0.0/16\nnet allow 10.0.0.0/8:22\n"

static const struct crow crows[] = {
	/* no net rule: open, except the local network */
	{"", "93.184.216.34", 443, NULL, OK, OPEN, 0},
	{"", "2606:2800:220:1::1", 443, NULL, OK, OPEN, 0},
	{"", "127.0.0.1", 8080, NULL, OK, LB, 0},
	{"", "127.1.2.3", 53, NULL, OK, LB, 0}, /* open mode: a local resolver too */
	{"", "::1", 8080, NULL, OK, LB, 0},
	{"", "0.0.0.0", 8080, NULL, OK, LB, 0},
	{"", "::", 8080, NULL, OK, LB, 0},
	{"", "169.254.169.254", 80, NULL, NO, LOC, 0}, /* cloud metadata */
	{"", "10.0.0.1", 80, NULL, NO, LOC, 0},
	{"", "10.255.255.53", 53, NULL, OK, OPEN, 0},      /* a name server on the local network */
	{"", "169.254.169.253", 53, NULL, OK, OPEN, 0},
	{ALLOW_API, "10.255.255.53", 53, NULL, NO, LOC, 0}, /* not under an allowlist */
	{"", "172.16.5.4", 80, NULL, NO, LOC, 0},
	{"", "172.32.0.1", 80, NULL, OK, OPEN, 0}, /* just outside 172.16/12 */
	{"", "192.168.1.1", 80, NULL, NO, LOC, 0},
	{"", "100.64.0.1", 80, NULL, NO, LOC, 0},
	{"", "224.0.0.251", 5353, NULL, NO, LOC, 0},
	{"", "255.255.255.255", 67, NULL, NO, LOC, 0},
	{"", "fd00::1", 80, NULL, NO, LOC, 0},
	{"", "fe80::1", 80, NULL, NO, LOC, 0},
	{"", "ff02::1", 80, NULL, NO, LOC, 0},
	/* other spellings of a local address are the address */
	{"", "::ffff:169.254.169.254", 80, NULL, NO, LOC, 0},
	{"", "64:ff9b::a9fe:a9fe", 80, NULL, NO, LOC, 0},   /* NAT64 of 169.254.169.254 */
	{"", "64:ff9b::7f00:1", 80, NULL, OK, LB, 0},       /* NAT64 of 127.0.0.1 */
	/* an allowlist: only what is allowed, and loopback (but its DNS port) */
	{ALLOW_API, "93.184.216.34", 443, NULL, NO, NR, 0},
	{ALLOW_API, "93.184.216.34", 443, "api.example.com", OK, BY, 1},
	{ALLOW_API, "93.184.216.34", 80, "api.example.com", NO, NR, 0},
	{ALLOW_API, "93.184.216.34", 443, "API.Example.COM.", OK, BY, 1},
	{ALLOW_API, "93.184.216.34", 443, "evil.example.com", NO, NR, 0},
	{ALLOW_API, "140.82.112.3", 22, "ssh.github.com", OK, BY, 1},
	{ALLOW_API, "140.82.112.3", 22, "github.com", NO, NR, 0}, /* *.x is not x */
	{ALLOW_API, "127.0.0.1", 3000, NULL, OK, LB, 0},
	{ALLOW_API, "127.0.0.53", 53, NULL, NO, NR, 0},
	{ALLOW_API, "169.254.169.254", 80, NULL, NO, LOC, 0},
	/* a name allowed by a rule reaches its addresses, even local ones */
	{ALLOW_API, "10.9.9.9", 443, "api.example.com", OK, BY, 1},
	/* carve-outs: most specific wins, deny on ties; address rules first */
	{CARVE, "140.82.112.3", 443, "gist.github.com", NO, BY, 2},
	{CARVE, "140.82.112.3", 443, "api.github.com", OK, BY, 1},
	{CARVE, "10.1.2.3", 22, NULL, NO, BY, 3},
	{CARVE, "10.2.2.3", 22, NULL, OK, BY, 4},
	{CARVE, "10.2.2.3", 80, NULL, NO, LOC, 0},
	{CARVE, "10.1.2.3", 443, "api.github.com", NO, BY, 3}, /* an address deny beats a name allow */
	{CARVE, "::ffff:10.2.2.3", 22, NULL, OK, BY, 4},
	/* a port rule is more specific than a portless one on the same host */
	{"net deny 127.0.0.1\nnet allow 127.0.0.1:8080\n", "127.0.0.1", 8080, NULL, OK, BY, 2},
	{"net deny 127.0.0.1\nnet allow 127.0.0.1:8080\n", "127.0.0.1", 8081, NULL, NO, BY, 1},
	{"net allow [::1]:9000-9010\n", "::1", 9010, NULL, OK, BY, 1},
	{"net allow [::1]:9000-9010\n", "::1", 9011, NULL, OK, LB, 0},
	{"net deny loopback\n", "127.0.0.1", 80, NULL, NO, BY, 1},
	{"net deny loopback\n", "0.0.0.0", 80, NULL, NO, BY, 1},
	{"net deny loopback\n", "::1", 80, NULL, NO, BY, 1},
	{"net allow private\n", "169.254.169.254", 80, NULL, OK, BY, 1},
	{"net allow private:443\n", "10.0.0.1", 80, NULL, NO, LOC, 0},
	/* net none: nothing, loopback included, unless a rule allows it */
	{"net none\n", "127.0.0.1", 8080, NULL, NO, BY, 1},
	{"net none\n", "93.184.216.34", 443, NULL, NO, BY, 1},
	{"net none\nnet allow 127.0.0.1:8080\n", "127.0.0.1", 8080, NULL, OK, BY, 2},
	{"net none\nnet allow api.example.com\n", "93.184.216.34", 443, "api.example.com", OK, BY, 2},
	/* catch-alls */
	{"net allow *\n", "10.0.0.1", 80, NULL, NO, LOC, 0},        /* `*` does not name the local network */
	{"net allow *\n", "169.254.169.254", 80, NULL, NO, LOC, 0},
	{"net allow *\nnet allow private\n", "10.0.0.1", 80, NULL, OK, BY, 2},
	{"net allow *\n", "93.184.216.34", 80, NULL, OK, BY, 1},
	{"net deny *\n", "10.0.0.1", 80, NULL, NO, BY, 1},         /* a catch-all deny reaches everything */
	/* NAT64: a rule written in that form names the IPv4 addresses; local-use NAT64 is local */
	{"net allow [64:ff9b::a9fe:a9fe]\n", "169.254.169.254", 80, NULL, OK, BY, 1},
	{"", "64:ff9b:1::a9fe:a9fe", 80, NULL, NO, LOC, 0},
	{"net deny *\nnet allow *.github.com\n", "1.2.3.4", 443, "x.github.com", OK, BY, 2},
	{"net deny *:25\n", "93.184.216.34", 25, NULL, NO, BY, 1},
	{"net deny *:25\n", "93.184.216.34", 26, NULL, OK, OPEN, 0},
	/* an IPv6 range */
	{"net allow [2001:db8::/32]:443\n", "2001:db8:1::5", 443, NULL, OK, BY, 1},
	{"net allow [2001:db8::/32]:443\n", "2001:db9::5", 443, NULL, NO, NR, 0},
};

START_TEST(connect_rows)
{
	const struct crow *r = &crows[_i];
	struct jail_policy *p = test_load(r->policy);
	uint8_t a[16];
	ck_assert_msg(jail_addr_parse(r->addr, a) == 0, "row %d: bad address %s", _i, r->addr);
	struct jail_decision d = jail_decide_connect(p, a, r->port, r->name);
	char rule[512];
	jail_rule_describe(p, d.rule, rule, sizeof(rule));
	ck_assert_msg(d.verdict == r->verdict && d.reason == r->reason &&
	                  (r->line ? jail_rule_line(p, d.rule) == r->line : d.rule == -1),
	              "row %d: [%s] connect %s:%u (%s): got %s/%s by %s", _i, r->policy, r->addr, r->port,
	              r->name ? r->name : "-", jail_effect_name(d.verdict), jail_reason_name(d.reason), rule);
	jail_policy_free(p);
}
END_TEST

/* ---- resolving a name ---- */

struct rrow {
	const char *policy;
	const char *name;
	enum jail_effect verdict;
	enum jail_reason reason;
	unsigned line;
};

static const struct rrow rrows[] = {
	{"", "example.com", OK, OPEN, 0},
	{"net deny *.evil.test\n", "a.evil.test", NO, BY, 1},
	{"net deny *.evil.test\n", "evil.test", OK, OPEN, 0},
	{ALLOW_API, "api.example.com", OK, BY, 1}, /* at any port: the port is decided on connect */
	{ALLOW_API, "www.example.com", NO, NR, 0},
	{ALLOW_API, "localhost", OK, LB, 0},
	{ALLOW_API, "app.localhost", OK, LB, 0},
	{ALLOW_API, "LOCALHOST.", OK, LB, 0},
	{ALLOW_API, "notlocalhost", NO, NR, 0},
	{CARVE, "gist.github.com", NO, BY, 2},
	{CARVE, "raw.github.com", OK, BY, 1},
	/* a deny on one port does not stop the name resolving for another */
	{"net allow x.test\nnet deny x.test:80\n", "x.test", OK, BY, 1},
	{"net allow *.test\nnet deny x.test\n", "x.test", NO, BY, 2},
	{"net none\n", "localhost", NO, BY, 1},
	{"net none\n", "example.com", NO, BY, 1},
	{"net allow *\nnet deny bad.test\n", "good.test", OK, BY, 1},
	{"net allow *\nnet deny bad.test\n", "bad.test", NO, BY, 2},
	/* what the resolver would decode is not a name: s\101cret is secret */
	{"net allow *.example.com\nnet deny secret.example.com\n", "s\\101cret.example.com", NO, JAIL_NET_BAD_NAME, 0},
	{"", "a\\.b.example.com", NO, JAIL_NET_BAD_NAME, 0},
	{"", "caf\xc3\xa9.example", NO, JAIL_NET_BAD_NAME, 0},
	{"", "under_score.example", OK, OPEN, 0},
};

START_TEST(resolve_rows)
{
	const struct rrow *r = &rrows[_i];
	struct jail_policy *p = test_load(r->policy);
	struct jail_decision d = jail_decide_resolve(p, r->name);
	char rule[512];
	jail_rule_describe(p, d.rule, rule, sizeof(rule));
	ck_assert_msg(d.verdict == r->verdict && d.reason == r->reason &&
	                  (r->line ? jail_rule_line(p, d.rule) == r->line : d.rule == -1),
	              "row %d: [%s] resolve %s: got %s/%s by %s", _i, r->policy, r->name, jail_effect_name(d.verdict),
	              jail_reason_name(d.reason), rule);
	jail_policy_free(p);
}
END_TEST

/* ---- the environment ---- */

struct erow {
	const char *policy;
	const char *name;
	enum jail_effect verdict; /* deny: scrubbed */
	unsigned line;
};

#define SCRUB "env scrub *_TOKEN AWS_* *SECRET*\nenv keep GH_TOKEN\n"

static const struct erow erows[] = {
	{SCRUB, "GITHUB_TOKEN", NO, 1},
	{SCRUB, "github_token", NO, 1}, /* without regard to case */
	{SCRUB, "GH_TOKEN", OK, 2},      /* keep beats scrub */
	{SCRUB, "AWS_REGION", NO, 1},
	{SCRUB, "MY_SECRET_THING", NO, 1},
	{SCRUB, "PATH", OK, 0},
	{SCRUB, "TOKEN", OK, 0},
	{"env keep GH_TOKEN\nenv scrub *\n", "GH_TOKEN", OK, 1}, /* wherever keep is written */
	{"env keep GH_TOKEN\nenv scrub *\n", "HOME", NO, 2},
	{"", "GITHUB_TOKEN", OK, 0},
};

START_TEST(env_rows)
{
	const struct erow *r = &erows[_i];
	struct jail_policy *p = test_load(r->policy);
	struct jail_decision d = jail_decide_env(p, r->name, strlen(r->name));
	ck_assert_msg(d.verdict == r->verdict && (r->line ? jail_rule_line(p, d.rule) == r->line : d.rule == -1),
	              "row %d: [%s] env %s: got %s by rule %d", _i, r->policy, r->name, jail_effect_name(d.verdict),
	              d.rule);
	jail_policy_free(p);
}
END_TEST

START_TEST(env_long_name_is_scrubbed)
{
	struct jail_policy *p = test_load("env scrub *_TOKEN\n");
	size_t n = 5000;
	char *name = malloc(n + 1);
	memset(name, 'A', n);
	memcpy(name + n - 6, "_TOKEN", 6);
	name[n] = '\0';
	ck_assert_int_eq(jail_decide_env(p, name, n).verdict, JAIL_DENY);
	free(name);
	jail_policy_free(p);
	p = test_load("allow read /\n");
	ck_assert_int_eq(jail_policy_scrubs(p), 0);
	jail_policy_free(p);
}
END_TEST

/* ---- parse errors: FILE:LINE:COLUMN and what was expected ---- */

struct prow {
	const char *policy;
	unsigned line, col;
	const char *msg; /* a prefix of the message */
};

static const struct prow prows[] = {
	{"net\n", 1, 5, "expected 'allow', 'deny' or 'none' after 'net'"},
	{"net allow\n", 1, 11, "expected a host"},
	{"net permit x\n", 1, 5, "unknown net rule 'permit'"},
	{"net none x\n", 1, 10, "unexpected 'x': 'net none' takes no argument"},
	{"net allow x.test:0\n", 1, 18, "expected a port (1-65535)"},
	{"net allow x.test:65536\n", 1, 18, "expected a port (1-65535)"},
	{"net allow x.test:90-80\n", 1, 18, "expected a port (1-65535)"},
	{"net allow *x.test\n", 1, 11, "a wildcard is allowed only as a whole first label"},
	{"net allow a.*.test\n", 1, 13, "a wildcard is allowed only as a whole first label"},
	{"net allow x..test\n", 1, 13, "empty label"},
	{"net allow bad$.test\n", 1, 14, "unexpected character in a host name"},
	{"net allow 10.1.2.3/8\n", 1, 11, "the address has bits set past its prefix length"},
	{"net allow 1.2.3.256\n", 1, 11, "not an IPv4 or IPv6 address"},
	{"net allow 010.1.1.1\n", 1, 11, "not an IPv4 or IPv6 address"}, /* no octal surprises */
	{"net allow 1.2.3.4/33\n", 1, 11, "an IPv4 prefix length is at most 32"},
	{"net allow ::1:80\n", 1, 11, "write an IPv6 address in brackets"},
	{"net allow [::1\n", 1, 11, "expected ']'"},
	{"net allow [::1]8\n", 1, 16, "expected ':PORT' or nothing after ']'"},
	{"net allow [fe80::/129]\n", 1, 12, "an IPv6 prefix length is at most 128"},
	{"net allow [example.com]\n", 1, 12, "brackets hold an IPv6 address"},
	{"env\n", 1, 5, "expected 'scrub' or 'keep' after 'env'"},
	{"env drop X\n", 1, 5, "unknown env rule 'drop'"},
	{"env scrub\n", 1, 11, "expected a variable name or pattern"},
	{"env scrub A=B\n", 1, 12, "unexpected '=' in a variable name pattern"},
	{"env keep [AB\n", 1, 10, "unterminated character class"},
	{"allow read /\nnet deny ok.test\nnet allow 300.1.1.1\n", 3, 11, "not an IPv4 or IPv6 address"},
};

START_TEST(parse_errors)
{
	const struct prow *r = &prows[_i];
	struct jail_policy *p = NULL;
	struct jail_error err;
	ck_assert_msg(test_try_load(r->policy, &p, &err) == -1 && p == NULL, "row %d: [%s] loaded", _i, r->policy);
	ck_assert_msg(err.line == r->line && err.col == r->col && strncmp(err.msg, r->msg, strlen(r->msg)) == 0,
	              "row %d: [%s]: got %u:%u: %s", _i, r->policy, err.line, err.col, err.msg);
}
END_TEST

/* ---- the blob carries the rules; messages name them ---- */

START_TEST(blob_round_trip)
{
	struct jail_policy *p = test_load("allow read /\n" CARVE SCRUB "net none\n");
	size_t size;
	const void *b = jail_policy_blob(p, &size);
	void *copy = malloc(size);
	memcpy(copy, b, size);
	const struct jail_policy *q = jail_policy_from_blob(copy, size);
	ck_assert_ptr_nonnull(q);
	ck_assert_uint_eq(jail_rule_count(q), 1);
	ck_assert_uint_eq(jail_xrule_count(q), 4 + 4 + 1); /* CARVE, SCRUB, net none */
	ck_assert_int_eq(jail_policy_net(q), JAIL_NET_MODE_NONE);
	ck_assert_int_eq(jail_policy_scrubs(q), 1);
	uint8_t a[16];
	jail_addr_parse("10.1.0.9", a);
	struct jail_decision d = jail_decide_connect(q, a, 22, NULL);
	char rule[256];
	jail_rule_describe(q, d.rule, rule, sizeof(rule));
	ck_assert_str_eq(rule, "test.policy:4: net deny 10.1.0.0/16");
	/* one flipped byte in the net rules is caught by the checksum */
	((char *)copy)[size - 1] ^= 1;
	ck_assert_ptr_null(jail_policy_from_blob(copy, size));
	free(copy);
	jail_policy_free(p);
}
END_TEST

START_TEST(private_names_every_local_range)
{
	struct jail_policy *p = test_load("net allow *\nnet deny private\n");
	static const char *const local[] = {"127.0.0.1", "0.0.0.0", "::1", "::", "10.255.0.1", "172.31.255.255",
	                                    "192.168.0.1", "169.254.169.254", "100.127.0.1", "fc00::1", "fdff::1",
	                                    "fe80::1", "febf::1", "ff05::2", "224.0.0.1", "255.255.255.255"};
	static const char *const public[] = {"1.1.1.1", "100.128.0.1", "172.15.0.1", "2606:4700::1", "fec0::1"};
	uint8_t a[16];
	for (size_t i = 0; i < sizeof(local) / sizeof(local[0]); i++) {
		ck_assert(jail_addr_parse(local[i], a) == 0);
		ck_assert_msg(jail_decide_connect(p, a, 80, NULL).verdict == JAIL_DENY, "%s is local", local[i]);
	}
	for (size_t i = 0; i < sizeof(public) / sizeof(public[0]); i++) {
		ck_assert(jail_addr_parse(public[i], a) == 0);
		ck_assert_msg(jail_decide_connect(p, a, 80, NULL).verdict == JAIL_ALLOW, "%s is not local", public[i]);
	}
	jail_policy_free(p);
}
END_TEST

START_TEST(address_text)
{
	static const char *const round[] = {"1.2.3.4", "::1", "::", "2001:db8::1", "fe80::1:2", "2001:db8:0:1:1:1:1:1",
	                                    "1:0:0:2::3"};
	uint8_t a[16];
	char buf[64];
	for (size_t i = 0; i < sizeof(round) / sizeof(round[0]); i++) {
		ck_assert(jail_addr_parse(round[i], a) == 0);
		jail_addr_format(a, buf, sizeof(buf));
		ck_assert_str_eq(buf, round[i]);
	}
	ck_assert(jail_addr_parse("::ffff:10.0.0.1", a) == 0);
	jail_addr_format(a, buf, sizeof(buf));
	ck_assert_str_eq(buf, "10.0.0.1");
	static const char *const bad[] = {"1.2.3", "1.2.3.4.5", "::1::", ":1", "1:2:3:4:5:6:7:8:9", "12345::", "x", ""};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		ck_assert_msg(jail_addr_parse(bad[i], a) == -1, "'%s' parsed", bad[i]);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("net");
	TCase *tc = tcase_create("net");
	tcase_add_loop_test(tc, connect_rows, 0, (int)(sizeof(crows) / sizeof(crows[0])));
	tcase_add_loop_test(tc, resolve_rows, 0, (int)(sizeof(rrows) / sizeof(rrows[0])));
	tcase_add_loop_test(tc, env_rows, 0, (int)(sizeof(erows) / sizeof(erows[0])));
	tcase_add_test(tc, env_long_name_is_scrubbed);
	tcase_add_loop_test(tc, parse_errors, 0, (int)(sizeof(prows) / sizeof(prows[0])));
	tcase_add_test(tc, blob_round_trip);
	tcase_add_test(tc, private_names_every_local_range);
	tcase_add_test(tc, address_text);
	suite_add_tcase(s, tc);
	return test_run(s);
}
