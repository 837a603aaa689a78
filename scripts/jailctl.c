/*
 * jailctl — jailrun's compiled helper: loads a policy the way the jail will,
 * and answers questions about it. Not a hook: it may allocate and use stdio.
 *
 *   jailctl [--policy FILE]... [--cwd DIR] check
 *   jailctl [--policy FILE]... [--cwd DIR] explain ACCESS PATH
 *   jailctl [--policy FILE]... [--cwd DIR] print
 *
 * Exit status: 0 allowed / valid, 1 denied, 2 usage, 125 policy error.
 */
#define _GNU_SOURCE
#include "policy.h"
#include "resolve.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define EXIT_DENIED 1
#define EXIT_USAGE 2
#define EXIT_POLICY 125

static void usage(FILE *f)
{
	fputs("usage: jailctl [--policy FILE]... [--cwd DIR] check\n"
	      "       jailctl [--policy FILE]... [--cwd DIR] explain ACCESS PATH\n"
	      "       jailctl [--policy FILE]... [--cwd DIR] print\n"
	      "ACCESS is read, write, exec or meta. Without --policy, the built-in default.\n",
	      f);
}

struct opts {
	struct jail_source *src;
	size_t nsrc;
	const char *cwd;
	char **rest;
	int nrest;
};

static int parse_args(int argc, char **argv, struct opts *o)
{
	o->src = calloc((size_t)argc + 1, sizeof(*o->src));
	if (!o->src)
		return -1;
	int i = 1;
	for (; i < argc; i++) {
		if (strcmp(argv[i], "--policy") == 0 && i + 1 < argc) {
			o->src[o->nsrc++].name = argv[++i];
		} else if (strncmp(argv[i], "--policy=", 9) == 0) {
			o->src[o->nsrc++].name = argv[i] + 9;
		} else if (strcmp(argv[i], "--cwd") == 0 && i + 1 < argc) {
			o->cwd = argv[++i];
		} else if (strcmp(argv[i], "--") == 0) {
			i++;
			break;
		} else if (argv[i][0] == '-' && argv[i][1] == '-') {
			fprintf(stderr, "jailctl: unknown option '%s'\n", argv[i]);
			return -1;
		} else {
			break;
		}
	}
	if (o->nsrc == 0) {
		o->src[0].name = "<command line>";
		o->src[0].text = "include default\n";
		o->nsrc = 1;
	}
	o->rest = argv + i;
	o->nrest = argc - i;
	return 0;
}

static struct jail_policy *load(const struct opts *o, char *cwdbuf)
{
	struct jail_load_opts lo = {.canon = jail_canon_existing};
	struct jail_error err;
	struct jail_policy *p = NULL;
	const char *tmp = getenv("TMPDIR");

	lo.vars.home = getenv("HOME");
	lo.vars.tmp = (tmp && tmp[0] == '/') ? tmp : "/tmp";
	if (o->cwd) {
		lo.vars.cwd = o->cwd;
	} else if (getcwd(cwdbuf, PATH_MAX)) {
		lo.vars.cwd = cwdbuf;
	}
	if (jail_policy_load(&lo, o->src, o->nsrc, &p, &err) != 0) {
		char msg[2048];
		jail_error_format(&err, msg, sizeof(msg));
		fprintf(stderr, "jail: %s\n", msg);
		return NULL;
	}
	return p;
}

static int cmd_check(const struct jail_policy *p)
{
	printf("policy ok: %u rules, mode %s\n", jail_rule_count(p),
	       jail_policy_mode(p) == JAIL_MODE_AUDIT ? "audit" : "enforce");
	return 0;
}

static int cmd_print(const struct jail_policy *p)
{
	const char *log = jail_policy_log(p);
	printf("# mode %s\n", jail_policy_mode(p) == JAIL_MODE_AUDIT ? "audit" : "enforce");
	if (log)
		printf("# log %s\n", log);
	for (uint32_t i = 0; i < jail_rule_count(p); i++)
		printf("%-44s # %s:%u:%u -> %s\n", jail_rule_text(p, (int32_t)i), jail_rule_file(p, (int32_t)i),
		       jail_rule_line(p, (int32_t)i), jail_rule_col(p, (int32_t)i), jail_rule_pattern(p, (int32_t)i));
	return 0;
}

static int cmd_explain(const struct jail_policy *p, char **argv, int argc)
{
	if (argc != 2) {
		usage(stderr);
		return EXIT_USAGE;
	}
	enum jail_access a = jail_access_parse(argv[0]);
	if (a == 0) {
		fprintf(stderr, "jailctl: unknown access '%s': expected read, write, exec or meta\n", argv[0]);
		return EXIT_USAGE;
	}
	static struct jail_resolved r;
	int rc = jail_resolve(AT_FDCWD, argv[1], 0, &r);
	if (r.kind == JAIL_OBJ_ANON) {
		printf("deny %s %s\n  object: %s (not a path)\n", argv[0], argv[1], r.path);
		return EXIT_DENIED;
	}
	char which = 'r';
	const char *resolved = r.path[0] == '/' ? r.path : NULL;
	const char *given = r.given[0] == '/' ? r.given : NULL;
	if (!resolved && !given) {
		fprintf(stderr, "jailctl: cannot resolve '%s': %s\n", argv[1], strerror(-rc));
		return EXIT_USAGE;
	}
	struct jail_decision d = jail_decide2(p, a, given, resolved, &which);
	char rule[4096];
	jail_rule_describe(p, d.rule, rule, sizeof(rule));
	const char *shown = which == 'g' ? given : resolved;
	int audit = jail_policy_mode(p) == JAIL_MODE_AUDIT && d.verdict == JAIL_DENY;
	printf("%s %s %s\n", audit ? "would deny" : jail_effect_name(d.verdict), jail_access_name(a), shown);
	if (d.reason == JAIL_BY_RULE)
		printf("  rule: %s\n", rule);
	else
		printf("  rule: %s (%s)\n", rule, jail_reason_name(d.reason));
	if (which == 'g')
		printf("  matched: the path as given (resolved: %s)\n", resolved);
	else if (given && strcmp(given, resolved) != 0)
		printf("  resolved from: %s\n", given);
	if (rc != 0)
		printf("  note: the call itself would fail: %s\n", strerror(-rc));
	if (audit)
		printf("  mode audit: the call would be allowed and logged\n");
	return d.verdict == JAIL_ALLOW ? 0 : EXIT_DENIED;
}

int main(int argc, char **argv)
{
	struct opts o = {0};
	static char cwdbuf[PATH_MAX];
	int rc;

	if (argc > 1 && (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0)) {
		usage(stdout);
		return 0;
	}
	if (parse_args(argc, argv, &o) != 0 || o.nrest < 1) {
		usage(stderr);
		return EXIT_USAGE;
	}
	const char *cmd = o.rest[0];
	if (strcmp(cmd, "check") != 0 && strcmp(cmd, "explain") != 0 && strcmp(cmd, "print") != 0) {
		fprintf(stderr, "jailctl: unknown command '%s'\n", cmd);
		usage(stderr);
		return EXIT_USAGE;
	}
	struct jail_policy *p = load(&o, cwdbuf);
	if (!p)
		return EXIT_POLICY;
	if (strcmp(cmd, "check") == 0)
		rc = o.nrest == 1 ? cmd_check(p) : EXIT_USAGE;
	else if (strcmp(cmd, "print") == 0)
		rc = o.nrest == 1 ? cmd_print(p) : EXIT_USAGE;
	else
		rc = cmd_explain(p, o.rest + 1, o.nrest - 1);
	jail_policy_free(p);
	free(o.src);
	return rc;
}
