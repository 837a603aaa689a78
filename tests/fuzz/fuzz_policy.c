/*
 * fuzz_policy — libFuzzer target for the policy parser and compiler.
 *
 * Any bytes: loading never crashes, hangs, leaks or reads out of bounds,
 * and an error names a line and column. What loads: its blob survives a
 * copy and adoption; printing its rules back as text and loading that gives
 * the same rules; both decide alike on a few paths, addresses, names and
 * variables (net and env rules print once per address range they expand
 * to, so only their decisions are compared). Includes of files are
 * refused (hermetic); `include default` works.
 */
#include "policy.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int no_files(const char *path, char **text, size_t *len, unsigned long long id[2])
{
	(void)path, (void)text, (void)len, (void)id;
	return -ENOENT;
}

static struct jail_policy *load(const char *text, struct jail_error *err)
{
	struct jail_load_opts o = {.vars = {.home = "/home/u", .cwd = "/work/p", .tmp = "/tmp"}, .read = no_files};
	struct jail_source src = {.name = "fuzz.policy", .text = text};
	struct jail_policy *p = NULL;
	return jail_policy_load(&o, &src, 1, &p, err) == 0 ? p : NULL;
}

/* The policy as text again: each rule's directive as written, one a line. */
static char *reprint(const struct jail_policy *p)
{
	size_t cap = 256, n = 0;
	char *s = malloc(cap);
	static const char *const kernel[] = {"auto", "require", "off"};
	n += (size_t)snprintf(s, cap, "mode %s\nkernel %s\n", jail_policy_mode(p) == JAIL_MODE_AUDIT ? "audit" : "enforce",
	                      kernel[jail_policy_kernel(p)]);
	for (uint32_t i = 0; i < jail_rule_count(p) + jail_xrule_count(p); i++) {
		const char *t = jail_rule_text(p, (int32_t)i);
		size_t need = n + strlen(t) + 2;
		if (need > cap) {
			cap = need * 2;
			s = realloc(s, cap);
		}
		n += (size_t)snprintf(s + n, cap - n, "%s\n", t);
	}
	return s;
}

static const char *const paths[] = {"/", "/work/p/a/.env", "/home/u/.ssh/id_rsa", "/tmp/x", "/etc/hosts",
                                    "/work/p/.git/hooks/pre-commit", "/a/b/c/d/e/f/g"};

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = malloc(size + 1);
	memcpy(text, data, size);
	text[size] = '\0';
	struct jail_error err;
	struct jail_policy *p = load(text, &err);
	if (!p) {
		if (err.line < 1 || err.col < 1 || err.msg[0] == '\0')
			__builtin_trap();
		free(text);
		return 0;
	}
	size_t bs;
	const void *b = jail_policy_blob(p, &bs);
	void *copy = aligned_alloc(8, (bs + 7) & ~(size_t)7);
	memcpy(copy, b, bs);
	const struct jail_policy *adopted = jail_policy_from_blob(copy, bs);
	if (!adopted)
		__builtin_trap();
	char *again = reprint(p);
	struct jail_policy *q = load(again, &err);
	if (!q || jail_rule_count(q) != jail_rule_count(p))
		__builtin_trap();
	for (uint32_t i = 0; i < jail_rule_count(p); i++) {
		int32_t r = (int32_t)i;
		if (strcmp(jail_rule_pattern(p, r), jail_rule_pattern(q, r)) != 0 ||
		    jail_rule_effect(p, r) != jail_rule_effect(q, r) || jail_rule_access(p, r) != jail_rule_access(q, r))
			__builtin_trap();
	}
	for (size_t i = 0; i < sizeof(paths) / sizeof(paths[0]); i++)
		for (int a = JAIL_READ; a <= JAIL_META; a <<= 1) {
			struct jail_decision d1 = jail_decide(p, (enum jail_access)a, paths[i]);
			struct jail_decision d2 = jail_decide(adopted, (enum jail_access)a, paths[i]);
			struct jail_decision d3 = jail_decide(q, (enum jail_access)a, paths[i]);
			if (d1.verdict != d2.verdict || d1.rule != d2.rule || d1.verdict != d3.verdict)
				__builtin_trap();
		}
	static const char *const addrs[] = {"127.0.0.1", "10.1.2.3", "169.254.169.254", "1.1.1.1", "::1", "fd00::1",
	                                    "2001:db8::1", "64:ff9b::a9fe:a9fe"};
	static const char *const names[] = {"localhost", "api.example.com", "x.github.com", "github.com", "a.b.c"};
	static const unsigned ports[] = {22, 53, 80, 443, 8080};
	for (size_t i = 0; i < sizeof(addrs) / sizeof(addrs[0]); i++)
		for (size_t k = 0; k < sizeof(ports) / sizeof(ports[0]); k++) {
			uint8_t a[16];
			if (jail_addr_parse(addrs[i], a) != 0)
				__builtin_trap();
			const char *name = names[(i + k) % (sizeof(names) / sizeof(names[0]))];
			struct jail_decision d1 = jail_decide_connect(p, a, ports[k], name);
			struct jail_decision d2 = jail_decide_connect(adopted, a, ports[k], name);
			struct jail_decision d3 = jail_decide_connect(q, a, ports[k], name);
			if (d1.verdict != d2.verdict || d1.rule != d2.rule || d1.verdict != d3.verdict)
				__builtin_trap();
			if (jail_decide_resolve(p, name).verdict != jail_decide_resolve(q, name).verdict)
				__builtin_trap();
		}
	static const char *const vars[] = {"GITHUB_TOKEN", "home", "AWS_REGION", "X"};
	for (size_t i = 0; i < sizeof(vars) / sizeof(vars[0]); i++)
		if (jail_decide_env(p, vars[i], strlen(vars[i])).verdict != jail_decide_env(q, vars[i], strlen(vars[i])).verdict)
			__builtin_trap();
	if (jail_policy_net(p) != jail_policy_net(q))
		__builtin_trap();
	jail_policy_free(q);
	free(again);
	free(copy);
	jail_policy_free(p);
	free(text);
	return 0;
}
