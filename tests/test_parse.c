/*
 * test_parse.c — the policy language's syntax and its load errors.
 *
 * Three tables carry most cases: constructs that parse (and what each rule
 * becomes), load errors (where, and what was expected), and errors that need
 * unusual variables. Each row is one loop iteration, so a failure names its
 * row. Includes and unreadable files need real files; those tests make them
 * under a fresh temporary directory.
 */
#include "testutil.h"

#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* A non-NULL value for *out before a load: a failed load must reset it, and
 * a test that started from NULL could not tell. */
static int sentinel_storage;
#define SENTINEL ((struct jail_policy *)(void *)&sentinel_storage)

/* ---- constructs that parse ---- */

struct prow {
	const char *policy;
	unsigned nrules;     /* rules in the whole policy */
	int idx;             /* the rule checked below */
	const char *pattern; /* compiled: expanded, absolute, normalized */
	const char *text;    /* the directive as written, single-spaced */
	enum jail_effect effect;
	unsigned access; /* bits as written */
	unsigned line, col;
};

#define R_ JAIL_READ
#define W_ JAIL_WRITE
#define X_ JAIL_EXEC
#define ALL_ JAIL_ACCESS_ALL

static const struct prow prows[] = {
	{"allow read /a", 1, 0, "/a", "allow read /a", JAIL_ALLOW, R_, 1, 12},
	{"deny write ~/.ssh\n", 1, 0, "/home/u/.ssh", "deny write ~/.ssh", JAIL_DENY, W_, 1, 12},
	{"allow read ~\n", 1, 0, "/home/u", "allow read ~", JAIL_ALLOW, R_, 1, 12},
	{"allow read ~/\n", 1, 0, "/home/u", "allow read ~/", JAIL_ALLOW, R_, 1, 12},
	{"allow read {home}/x\n", 1, 0, "/home/u/x", "allow read {home}/x", JAIL_ALLOW, R_, 1, 12},
	{"allow read {cwd}\n", 1, 0, "/work/p", "allow read {cwd}", JAIL_ALLOW, R_, 1, 12},
	{"allow read {tmp}/a\n", 1, 0, "/tmp/a", "allow read {tmp}/a", JAIL_ALLOW, R_, 1, 12},
	{"deny read **/.env\n", 1, 0, "/**/.env", "deny read **/.env", JAIL_DENY, R_, 1, 11},
	{"deny read **\n", 1, 0, "/**", "deny read **", JAIL_DENY, R_, 1, 11},
	{"allow read /a//b/./c/../d\n", 1, 0, "/a/b/d", "allow read /a//b/./c/../d", JAIL_ALLOW, R_, 1, 12},
	{"allow read {cwd}/../q/\n", 1, 0, "/work/q", "allow read {cwd}/../q/", JAIL_ALLOW, R_, 1, 12},
	/* '#' begins a comment only at the start of a token */
	{"allow read /a#b\n", 1, 0, "/a#b", "allow read /a#b", JAIL_ALLOW, R_, 1, 12},
	{"allow read /a # comment /b\n", 1, 0, "/a", "allow read /a", JAIL_ALLOW, R_, 1, 12},
	{"allow read /a #/b\n", 1, 0, "/a", "allow read /a", JAIL_ALLOW, R_, 1, 12},
	{"allow read \"/a#b\" #c\n", 1, 0, "/a#b", "allow read \"/a#b\"", JAIL_ALLOW, R_, 1, 12},
	/* comments, blank lines, tabs: lines still count */
	{"# whole line\n\n   \n\tallow\tread\t/a\t/b\t\n", 2, 1, "/b", "allow read /b", JAIL_ALLOW, R_, 4, 16},
	{"   # indented comment\ndeny   read    /a\n", 1, 0, "/a", "deny read /a", JAIL_DENY, R_, 2, 16},
	/* CRLF: the \r is not part of the last token */
	{"allow read /a\r\ndeny write /b\r\n", 2, 1, "/b", "deny write /b", JAIL_DENY, W_, 2, 12},
	{"allow read /a\r\n\r\n# c\r\ndeny write /b\r\n", 2, 1, "/b", "deny write /b", JAIL_DENY, W_, 4, 12},
	/* no newline at the end */
	{"allow read /a\ndeny read /b", 2, 1, "/b", "deny read /b", JAIL_DENY, R_, 2, 11},
	/* quoted patterns: blanks, \" and \\ inside */
	{"allow read \"/a b/c\"\n", 1, 0, "/a b/c", "allow read \"/a b/c\"", JAIL_ALLOW, R_, 1, 12},
	{"allow read \"/a \\\"q\\\" b\"\n", 1, 0, "/a \"q\" b", "allow read \"/a \\\"q\\\" b\"", JAIL_ALLOW, R_, 1,
	 12},
	{"allow read \"/x\\\\\\\\y\"\n", 1, 0, "/x\\\\y", "allow read \"/x\\\\\\\\y\"", JAIL_ALLOW, R_, 1, 12},
	{"allow read \"~/my docs\"\n", 1, 0, "/home/u/my docs", "allow read \"~/my docs\"", JAIL_ALLOW, R_, 1, 12},
	{"allow read\t\"/q\"\t/r\n", 2, 0, "/q", "allow read \"/q\"", JAIL_ALLOW, R_, 1, 12},
	/* several patterns on one line: one rule each, each with its own column */
	{"deny read /a /b {cwd}\n", 3, 0, "/a", "deny read /a", JAIL_DENY, R_, 1, 11},
	{"deny read /a /b {cwd}\n", 3, 1, "/b", "deny read /b", JAIL_DENY, R_, 1, 14},
	{"deny read /a /b {cwd}\n", 3, 2, "/work/p", "deny read {cwd}", JAIL_DENY, R_, 1, 17},
	/* access lists */
	{"allow read,write,exec /a\n", 1, 0, "/a", "allow read,write,exec /a", JAIL_ALLOW, R_ | W_ | X_, 1, 23},
	{"allow all /a\n", 1, 0, "/a", "allow all /a", JAIL_ALLOW, ALL_, 1, 11},
	{"deny exec,read /a\n", 1, 0, "/a", "deny exec,read /a", JAIL_DENY, R_ | X_, 1, 16},
	{"allow write /a\n", 1, 0, "/a", "allow write /a", JAIL_ALLOW, W_, 1, 13},
	{"deny exec /a\n", 1, 0, "/a", "deny exec /a", JAIL_DENY, X_, 1, 11},
	{"allow read,read /a\n", 1, 0, "/a", "allow read,read /a", JAIL_ALLOW, R_, 1, 17},
	/* glob syntax that is well formed */
	{"allow read /a/[]x]\n", 1, 0, "/a/[]x]", "allow read /a/[]x]", JAIL_ALLOW, R_, 1, 12},
	{"allow read /a/[!a-z]*.c\n", 1, 0, "/a/[!a-z]*.c", "allow read /a/[!a-z]*.c", JAIL_ALLOW, R_, 1, 12},
	{"allow read /a/\\[x\n", 1, 0, "/a/\\[x", "allow read /a/\\[x", JAIL_ALLOW, R_, 1, 12},
	/* eight ** is the limit, and allowed */
	{"allow read /**/a/**/b/**/c/**/d/**/e/**/f/**/g/**/h\n", 1, 0, "/**/a/**/b/**/c/**/d/**/e/**/f/**/g/**/h",
	 "allow read /**/a/**/b/**/c/**/d/**/e/**/f/**/g/**/h", JAIL_ALLOW, R_, 1, 12},
	/* mode and log lines make no rules, and do not disturb line numbers */
	{"mode audit\nlog /l\n\nallow read /z\n", 1, 0, "/z", "allow read /z", JAIL_ALLOW, R_, 4, 12},
};

#define NPROWS ((int)(sizeof(prows) / sizeof(prows[0])))

START_TEST(parse_table)
{
	const struct prow *r = &prows[_i];
	struct jail_policy *p = test_load(r->policy);
	unsigned n = jail_rule_count(p);
	int32_t i = r->idx;
	int ok = n == r->nrules && strcmp(jail_rule_pattern(p, i), r->pattern) == 0 &&
	         strcmp(jail_rule_text(p, i), r->text) == 0 && jail_rule_effect(p, i) == r->effect &&
	         jail_rule_access(p, i) == r->access && jail_rule_line(p, i) == r->line &&
	         jail_rule_col(p, i) == r->col && strcmp(jail_rule_file(p, i), "test.policy") == 0;
	ck_assert_msg(ok,
	              "row %d: policy:\n%s\n---\nrule %d expected: %u rules; pattern [%s] text [%s] %s access %u at %u:%u\n"
	              "got:             %u rules; pattern [%s] text [%s] %s access %u at %s:%u:%u",
	              _i, r->policy, (int)i, r->nrules, r->pattern, r->text, jail_effect_name(r->effect), r->access,
	              r->line, r->col, n, jail_rule_pattern(p, i), jail_rule_text(p, i),
	              jail_effect_name(jail_rule_effect(p, i)), jail_rule_access(p, i), jail_rule_file(p, i),
	              jail_rule_line(p, i), jail_rule_col(p, i));
	jail_policy_free(p);
}
END_TEST

/* A quoted "\\\\" is one escaped backslash in the pattern: a file name with a
 * real backslash in it. And a quoted "\"" is an ordinary character. */
START_TEST(quoted_decisions)
{
	struct jail_policy *p = test_load("allow read \"/x\\\\\\\\y\" \"/a \\\"q\\\" b\"\n");
	ck_assert_int_eq(jail_decide(p, JAIL_READ, "/x\\y").verdict, JAIL_ALLOW);
	ck_assert_int_eq(jail_decide(p, JAIL_READ, "/xy").verdict, JAIL_DENY);
	ck_assert_int_eq(jail_decide(p, JAIL_READ, "/a \"q\" b/c").verdict, JAIL_ALLOW);
	ck_assert_int_eq(jail_decide(p, JAIL_READ, "/a").verdict, JAIL_DENY);
	jail_policy_free(p);
}
END_TEST

/* CRLF text decides like LF text: no pattern ends in "\r". */
START_TEST(crlf_decisions)
{
	struct jail_policy *p = test_load("allow read /a\r\ndeny read /a/s\r\n");
	ck_assert_int_eq(jail_decide(p, JAIL_READ, "/a/x").verdict, JAIL_ALLOW);
	ck_assert_int_eq(jail_decide(p, JAIL_READ, "/a/s").verdict, JAIL_DENY);
	ck_assert_int_eq(jail_decide(p, JAIL_READ, "/a/s/t").verdict, JAIL_DENY);
	jail_policy_free(p);
}
END_TEST

START_TEST(empty_policies)
{
	static const char *const texts[] = {"", "\n", "\n\n\n", "# only\n# comments", "  \t \r\n\t\n"};
	for (size_t i = 0; i < sizeof(texts) / sizeof(texts[0]); i++) {
		struct jail_policy *p = test_load(texts[i]);
		ck_assert_uint_eq(jail_rule_count(p), 0);
		ck_assert_int_eq(jail_policy_mode(p), JAIL_MODE_ENFORCE);
		ck_assert_ptr_null(jail_policy_log(p));
		ck_assert_int_eq(jail_decide(p, JAIL_READ, "/x").reason, JAIL_NO_RULE);
		jail_policy_free(p);
	}
}
END_TEST

/* ---- mode and log ---- */

START_TEST(mode_and_log)
{
	struct jail_policy *p;

	p = test_load("allow read /\n");
	ck_assert_int_eq(jail_policy_mode(p), JAIL_MODE_ENFORCE);
	ck_assert_ptr_null(jail_policy_log(p));
	jail_policy_free(p);

	p = test_load("mode audit\n");
	ck_assert_int_eq(jail_policy_mode(p), JAIL_MODE_AUDIT);
	jail_policy_free(p);

	p = test_load("mode enforce\n");
	ck_assert_int_eq(jail_policy_mode(p), JAIL_MODE_ENFORCE);
	jail_policy_free(p);

	p = test_load("log ~/jail.log\n");
	ck_assert_str_eq(jail_policy_log(p), "/home/u/jail.log");
	jail_policy_free(p);

	p = test_load("log {tmp}/a/../jail.log # where\n");
	ck_assert_str_eq(jail_policy_log(p), "/tmp/jail.log");
	jail_policy_free(p);

	p = test_load("log \"/var/log/my jail.log\"\n");
	ck_assert_str_eq(jail_policy_log(p), "/var/log/my jail.log");
	jail_policy_free(p);

	/* the kernel setting: each word, the last one read counts, and a bad one
	 * is an error at its column */
	static const struct {
		const char *text;
		enum jail_kernel want;
	} k[] = {{"allow read /\n", JAIL_KERNEL_AUTO},
	         {"kernel require\n", JAIL_KERNEL_REQUIRE},
	         {"kernel off\n", JAIL_KERNEL_OFF},
	         {"kernel strict\n", JAIL_KERNEL_STRICT},
	         {"kernel strict\nkernel auto\n", JAIL_KERNEL_AUTO}};
	for (size_t i = 0; i < sizeof(k) / sizeof(k[0]); i++) {
		p = test_load(k[i].text);
		ck_assert_int_eq(jail_policy_kernel(p), k[i].want);
		jail_policy_free(p);
	}
	struct jail_error err;
	char buf[1024];
	p = SENTINEL;
	ck_assert_int_eq(test_try_load("kernel strictest\n", &p, &err), -1);
	jail_error_format(&err, buf, sizeof(buf));
	ck_assert_str_eq(buf, "test.policy:1:8: unknown kernel setting 'strictest': expected 'auto', 'require', 'strict' or 'off'");
}
END_TEST

/* ---- include default ---- */

START_TEST(include_default)
{
	struct jail_policy *p = test_load("include default\nallow write /opt/x\n");
	uint32_t n = jail_rule_count(p);
	ck_assert_uint_gt(n, 1);
	/* the default's rules are named "<default>" with its own line numbers */
	ck_assert_str_eq(jail_rule_file(p, 0), "<default>");
	ck_assert_str_eq(jail_rule_text(p, 0), "allow read /");
	ck_assert_uint_eq(jail_rule_line(p, 0), 7);
	/* after the include, the includer's file and line are back */
	ck_assert_str_eq(jail_rule_file(p, (int32_t)n - 1), "test.policy");
	ck_assert_uint_eq(jail_rule_line(p, (int32_t)n - 1), 2);
	ck_assert_str_eq(jail_rule_text(p, (int32_t)n - 1), "allow write /opt/x");
	ck_assert_int_eq(jail_decide(p, JAIL_WRITE, "/opt/x/y").verdict, JAIL_ALLOW);
	ck_assert_int_eq(jail_decide(p, JAIL_READ, "/home/u/.ssh/id_rsa").verdict, JAIL_DENY);
	jail_policy_free(p);

	/* the default's text is the one exported */
	ck_assert_ptr_nonnull(strstr(jail_default_policy_text, "allow read /\n"));

	/* twice in a row is fine (not a cycle): the first one has finished */
	p = test_load("include default\ninclude default\n");
	ck_assert_uint_eq(jail_rule_count(p), 2 * (n - 1));
	jail_policy_free(p);
}
END_TEST

/* ---- errors ---- */

struct erow {
	const char *policy;
	unsigned line, col;
	const char *phrase; /* must occur in err.msg */
};

static const struct erow erows[] = {
	/* patterns */
	{"allow read foo\n", 1, 12, "relative pattern 'foo'"},
	{"\n# c\n  allow read ./x\n", 3, 14, "relative pattern './x'"},
	{"allow read \"#x\"\n", 1, 12, "relative pattern '#x'"},
	{"allow read /a *.c\n", 1, 15, "relative pattern '*.c'"},
	{"allow read ~bob/x\n", 1, 12, "'~user' is not supported"},
	{"allow read {foo}/x\n", 1, 12, "unknown variable '{foo}'"},
	{"allow read {HOME}\n", 1, 12, "unknown variable '{HOME}'"},
	{"allow read {cwd\n", 1, 12, "unknown variable '{cwd'"},
	{"allow read {cwd}x\n", 1, 17, "expected '/' after {cwd}"},
	{"allow read /a/[bc\n", 1, 12, "unterminated character class in '/a/[bc': expected ']'"},
	{"allow read /a/[!]\n", 1, 12, "unterminated character class"},
	{"allow read /**/a/**/b/**/c/**/d/**/e/**/f/**/g/**/h/**\n", 1, 12, "too many '**' in one pattern"},
	/* keywords and access */
	{"permit read /a\n", 1, 1, "unknown keyword 'permit'"},
	{"allow read /\r\nbogus\r\n", 2, 1, "unknown keyword 'bogus'"},
	{"\"allow\" read /a\n", 1, 1, "not a quoted word"},
	{"allow reed /a\n", 1, 7, "unknown access 'reed'"},
	{"allow read,wrte /a\n", 1, 12, "unknown access 'wrte'"},
	{"allow \"read,wrte\" /a\n", 1, 13, "unknown access 'wrte'"},
	{"allow READ /a\n", 1, 7, "unknown access 'READ'"},
	{"allow read, /a\n", 1, 12, "expected an access (read, write, exec or all)"},
	{"allow ,read /a\n", 1, 7, "expected an access (read, write, exec or all)"},
	{"allow read,,write /a\n", 1, 12, "expected an access (read, write, exec or all)"},
	/* a missing token is placed where it would begin after one blank */
	{"allow\n", 1, 7, "expected an access (read, write, exec or all) after 'allow'"},
	{"deny   # nothing\n", 1, 6, "after 'deny'"},
	{"deny read\n", 1, 11, "expected a pattern after 'deny read'"},
	{"allow write,exec # none\n", 1, 18, "expected a pattern after 'allow write,exec'"},
	/* quoting */
	{"allow read \"/a b\n", 1, 12, "unterminated quote"},
	{"allow read /x \"/a b\\\"\n", 1, 15, "unterminated quote"},
	{"allow read /x\r\r\n", 1, 14, "unexpected control character 0x0d"},
	{"allow read /a\033b\n", 1, 14, "unexpected control character 0x1b"},
	{"allow read \"/a b\"x\n", 1, 18, "expected a blank after the closing quote"},
	{"allow read /a\"b\"\n", 1, 14, "unexpected '\"' inside a word"},
	{"al\"low\" read /a\n", 1, 3, "unexpected '\"' inside a word"},
	/* mode, log, include */
	{"mode strict\n", 1, 6, "unknown mode 'strict'"},
	{"mode Audit\n", 1, 6, "unknown mode 'Audit'"},
	{"mode audit now\n", 1, 12, "unexpected 'now': 'mode' takes one argument"},
	{"mode\n", 1, 6, "expected 'enforce', 'audit' or 'ask' after 'mode'"},
	{"log\n", 1, 5, "expected a log file path after 'log'"},
	{"log rel.log\n", 1, 5, "relative log path 'rel.log'"},
	{"log /a /b\n", 1, 8, "unexpected '/b'"},
	{"log ~x/l\n", 1, 5, "'~user' is not supported"},
	{"include\n", 1, 9, "expected 'default' or a policy file path after 'include'"},
	{"include default extra\n", 1, 17, "unexpected 'extra'"},
	{"include rel.policy\n", 1, 9, "relative include 'rel.policy'"},
	{"include /nonexistent-jail-test-dir/x.policy\n", 1, 9,
	 "cannot read included policy '/nonexistent-jail-test-dir/x.policy'"},
	/* an error after good lines: nothing of them is kept */
	{"allow read /\n\ndeny read /ok\ndeny read bad\n", 4, 11, "relative pattern 'bad'"},
	{"include default\nallow rread /\n", 2, 7, "unknown access 'rread'"},
};

#define NEROWS ((int)(sizeof(erows) / sizeof(erows[0])))

/* Checks one failed load against its expected place and phrase. */
static void check_error(int rc, const struct jail_policy *p, const struct jail_error *err, const char *file,
                        unsigned line, unsigned col, const char *phrase, const char *context)
{
	char got[2048];
	jail_error_format(err, got, sizeof(got));
	ck_assert_msg(rc == -1, "%s: expected an error at %s:%u:%u (%s), but it loaded", context, file, line, col,
	              phrase);
	ck_assert_msg(p == NULL, "%s: a failed load left *out set", context);
	ck_assert_msg(strcmp(err->file, file) == 0 && err->line == line && err->col == col &&
	                  strstr(err->msg, phrase) != NULL,
	              "%s:\n  expected: %s:%u:%u: ...%s...\n  got:      %s", context, file, line, col, phrase, got);
}

START_TEST(error_table)
{
	const struct erow *r = &erows[_i];
	struct jail_policy *p = SENTINEL;
	struct jail_error err;
	char ctx[512];
	int rc = test_try_load(r->policy, &p, &err);
	snprintf(ctx, sizeof(ctx), "row %d, policy:\n%s---", _i, r->policy);
	check_error(rc, p, &err, "test.policy", r->line, r->col, r->phrase, ctx);
}
END_TEST

/* Variables that are unset, or not absolute, fail only where they are used. */
struct vrow {
	struct jail_vars vars;
	const char *policy;
	unsigned line, col; /* 0: loads */
	const char *phrase;
};

static const struct vrow vrows[] = {
	{{"/home/u", NULL, "/tmp"}, "allow read /a\nallow read {cwd}/x\n", 2, 12, "{cwd} is not set"},
	{{NULL, "/work/p", "/tmp"}, "allow read ~/.ssh\n", 1, 12, "~ ($HOME) is not set"},
	{{NULL, "/work/p", "/tmp"}, "allow read {home}\n", 1, 12, "{home} ($HOME) is not set"},
	{{"/home/u", "/work/p", NULL}, "log {tmp}/x\n", 1, 5, "{tmp} is not set"},
	{{"/home/u", "rel", "/tmp"}, "deny read {cwd}\n", 1, 11, "{cwd} is 'rel', which is not an absolute path"},
	{{NULL, NULL, NULL}, "allow read / **/.env\ndeny write /etc\n", 0, 0, NULL},
};

#define NVROWS ((int)(sizeof(vrows) / sizeof(vrows[0])))

START_TEST(vars_table)
{
	const struct vrow *r = &vrows[_i];
	struct jail_load_opts o = {.vars = r->vars};
	struct jail_source src = {.name = "test.policy", .text = r->policy};
	struct jail_policy *p = SENTINEL;
	struct jail_error err;
	char ctx[512];
	int rc = jail_policy_load(&o, &src, 1, &p, &err);
	snprintf(ctx, sizeof(ctx), "row %d (home=%s cwd=%s tmp=%s), policy:\n%s---", _i,
	         r->vars.home ? r->vars.home : "NULL", r->vars.cwd ? r->vars.cwd : "NULL",
	         r->vars.tmp ? r->vars.tmp : "NULL", r->policy);
	if (r->line == 0) {
		ck_assert_msg(rc == 0 && p != NULL && p != SENTINEL, "%s: expected to load: %s", ctx, err.msg);
		jail_policy_free(p);
		return;
	}
	check_error(rc, p, &err, "test.policy", r->line, r->col, r->phrase, ctx);
}
END_TEST

START_TEST(error_format)
{
	struct jail_error err;
	char buf[1024];
	memset(&err, 0, sizeof(err));
	strcpy(err.file, "some/file.policy");
	err.line = 12;
	err.col = 34;
	strcpy(err.msg, "expected something");
	jail_error_format(&err, buf, sizeof(buf));
	ck_assert_str_eq(buf, "some/file.policy:12:34: expected something");

	/* and from a real failure */
	struct jail_policy *p = SENTINEL;
	ck_assert_int_eq(test_try_load("\n  frob /a\n", &p, &err), -1);
	ck_assert_ptr_null(p);
	jail_error_format(&err, buf, sizeof(buf));
	ck_assert_str_eq(buf, "test.policy:2:3: unknown keyword 'frob': expected allow, deny, include, mode, log, kernel, net or env");
}
END_TEST

/* ---- files: includes, missing files, NUL bytes ---- */

static int load_files(const struct jail_source *src, size_t n, struct jail_policy **out, struct jail_error *err)
{
	struct jail_load_opts o = {.vars = test_vars};
	return jail_policy_load(&o, src, n, out, err);
}

static int load_file(const char *path, struct jail_policy **out, struct jail_error *err)
{
	struct jail_source src = {.name = path, .text = NULL};
	return load_files(&src, 1, out, err);
}

/* Loads a file that must load; fails the test with the error otherwise. */
static struct jail_policy *must_load_file(const char *path)
{
	struct jail_policy *p = NULL;
	struct jail_error err;
	char msg[2048];
	if (load_file(path, &p, &err) != 0) {
		jail_error_format(&err, msg, sizeof(msg));
		ck_abort_msg("%s did not load: %s", path, msg);
	}
	return p;
}

/* The rule whose text is `text`, or -1. */
static int32_t find_rule(const struct jail_policy *p, const char *text)
{
	for (uint32_t i = 0; i < jail_rule_count(p); i++)
		if (strcmp(jail_rule_text(p, (int32_t)i), text) == 0)
			return (int32_t)i;
	return -1;
}

static void make_dir(const char *dir, const char *name)
{
	char path[4096];
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	ck_assert_int_eq(mkdir(path, 0700), 0);
}

START_TEST(include_absolute_and_relative)
{
	char dir[1024], a[2048], b[2048], c[2048], decoy[2048], text[8192];
	test_tmpdir(dir, sizeof(dir));
	make_dir(dir, "sub");
	/* a includes sub/b (relative to a), which includes c.policy: relative to
	 * b's directory, so sub/c.policy and not the decoy beside a */
	test_write_file(dir, "sub/c.policy", "deny read /from-c\n", c, sizeof(c));
	test_write_file(dir, "c.policy", "deny read /from-decoy\n", decoy, sizeof(decoy));
	test_write_file(dir, "sub/b.policy", "# b\ndeny read /from-b\ninclude c.policy\n", b, sizeof(b));
	test_write_file(dir, "a.policy", "allow read /\ninclude sub/b.policy\n\nallow write /from-a\n", a, sizeof(a));

	struct jail_policy *p = must_load_file(a);
	ck_assert_uint_eq(jail_rule_count(p), 4);
	int32_t r;
	r = find_rule(p, "deny read /from-b");
	ck_assert_int_ge(r, 0);
	ck_assert_str_eq(jail_rule_file(p, r), b);
	ck_assert_uint_eq(jail_rule_line(p, r), 2);
	r = find_rule(p, "deny read /from-c");
	ck_assert_int_ge(r, 0);
	ck_assert_str_eq(jail_rule_file(p, r), c);
	ck_assert_int_eq(find_rule(p, "deny read /from-decoy"), -1);
	/* back in a after the include: its file and line */
	r = find_rule(p, "allow write /from-a");
	ck_assert_int_ge(r, 0);
	ck_assert_str_eq(jail_rule_file(p, r), a);
	ck_assert_uint_eq(jail_rule_line(p, r), 4);
	ck_assert_int_eq(jail_decide(p, JAIL_READ, "/from-c/x").verdict, JAIL_DENY);
	ck_assert_int_eq(jail_decide(p, JAIL_READ, "/from-decoy/x").verdict, JAIL_ALLOW);
	jail_policy_free(p);

	/* by absolute path, from text; and with a quoted path */
	snprintf(text, sizeof(text), "include %s\ninclude \"%s\"\n", b, decoy);
	p = test_load(text);
	ck_assert_int_ge(find_rule(p, "deny read /from-b"), 0);
	ck_assert_int_ge(find_rule(p, "deny read /from-c"), 0);
	ck_assert_int_ge(find_rule(p, "deny read /from-decoy"), 0);
	jail_policy_free(p);

	/* by a path with a variable */
	struct jail_load_opts o = {.vars = {.home = dir, .cwd = "/work/p", .tmp = "/tmp"}};
	struct jail_source src = {.name = "test.policy", .text = "include ~/sub/c.policy\ninclude {home}/c.policy\n"};
	struct jail_error err;
	ck_assert_int_eq(jail_policy_load(&o, &src, 1, &p, &err), 0);
	ck_assert_int_ge(find_rule(p, "deny read /from-c"), 0);
	ck_assert_int_ge(find_rule(p, "deny read /from-decoy"), 0);
	jail_policy_free(p);
	test_rmtree(dir);
}
END_TEST

/* include default inside a file that is itself read beside include default */
START_TEST(include_default_nested)
{
	char dir[1024], d[2048], text[4096];
	test_tmpdir(dir, sizeof(dir));
	test_write_file(dir, "d.policy", "include default\ndeny read /extra\n", d, sizeof(d));
	snprintf(text, sizeof(text), "include default\ninclude %s\n", d);
	struct jail_policy *p = test_load(text);
	ck_assert_int_ge(find_rule(p, "deny read /extra"), 0);
	ck_assert_int_eq(jail_decide(p, JAIL_READ, "/home/u/.ssh/id_rsa").verdict, JAIL_DENY);
	jail_policy_free(p);
	test_rmtree(dir);
}
END_TEST

START_TEST(include_missing)
{
	char dir[1024], a[2048], want[4096];
	test_tmpdir(dir, sizeof(dir));
	test_write_file(dir, "a.policy", "allow read /\n\n  include   missing.policy\n", a, sizeof(a));
	struct jail_policy *p = SENTINEL;
	struct jail_error err;
	int rc = load_file(a, &p, &err);
	snprintf(want, sizeof(want), "cannot read included policy '%s/missing.policy'", dir);
	check_error(rc, p, &err, a, 3, 13, want, "include of a missing file");
	test_rmtree(dir);
}
END_TEST

START_TEST(include_cycle)
{
	char dir[1024], a[2048], b[2048];
	test_tmpdir(dir, sizeof(dir));
	test_write_file(dir, "a.policy", "allow read /\ninclude b.policy\n", a, sizeof(a));
	test_write_file(dir, "b.policy", "# b\n\tinclude a.policy\n", b, sizeof(b));
	struct jail_policy *p = SENTINEL;
	struct jail_error err;
	int rc = load_file(a, &p, &err);
	check_error(rc, p, &err, b, 2, 10, "include cycle", "a includes b includes a");
	test_rmtree(dir);
}
END_TEST

START_TEST(include_self)
{
	char dir[1024], a[2048], text[4096];
	test_tmpdir(dir, sizeof(dir));
	/* by absolute path, so the same file is reached both ways */
	snprintf(text, sizeof(text), "deny read /x\ninclude %s/a.policy\n", dir);
	test_write_file(dir, "a.policy", text, a, sizeof(a));
	struct jail_policy *p = SENTINEL;
	struct jail_error err;
	int rc = load_file(a, &p, &err);
	check_error(rc, p, &err, a, 2, 9, "include cycle", "a includes itself");

	/* and by a relative path */
	test_write_file(dir, "r.policy", "include r.policy\n", a, sizeof(a));
	p = SENTINEL;
	rc = load_file(a, &p, &err);
	check_error(rc, p, &err, a, 1, 9, "include cycle", "r includes itself by a relative path");
	test_rmtree(dir);
}
END_TEST

/* An error inside an included file names that file; nothing is loaded. */
START_TEST(include_error_inside)
{
	char dir[1024], a[2048], b[2048];
	test_tmpdir(dir, sizeof(dir));
	test_write_file(dir, "b.policy", "allow read /ok\nallow read rel\n", b, sizeof(b));
	test_write_file(dir, "a.policy", "allow read /\ninclude b.policy\n", a, sizeof(a));
	struct jail_policy *p = SENTINEL;
	struct jail_error err;
	int rc = load_file(a, &p, &err);
	check_error(rc, p, &err, b, 2, 12, "relative pattern 'rel'", "error in an included file");

	/* and an error after an include is placed in the includer */
	test_write_file(dir, "c.policy", "include b2.policy\n\nbogus /x\n", a, sizeof(a));
	test_write_file(dir, "b2.policy", "# fine\nallow read /ok\n\n\n", b, sizeof(b));
	p = SENTINEL;
	rc = load_file(a, &p, &err);
	check_error(rc, p, &err, a, 3, 1, "unknown keyword 'bogus'", "error after an include");
	test_rmtree(dir);
}
END_TEST

START_TEST(missing_top_level)
{
	char dir[1024], path[2048];
	test_tmpdir(dir, sizeof(dir));
	snprintf(path, sizeof(path), "%s/nope.policy", dir);
	struct jail_policy *p = SENTINEL;
	struct jail_error err;
	int rc = load_file(path, &p, &err);
	check_error(rc, p, &err, path, 1, 1, "cannot read policy file", "a missing top-level file");

	/* a directory is not a policy file either */
	p = SENTINEL;
	rc = load_file(dir, &p, &err);
	check_error(rc, p, &err, dir, 1, 1, "cannot read policy file", "a directory as the top-level file");
	test_rmtree(dir);
}
END_TEST

START_TEST(nul_byte)
{
	static const char bytes[] = "allow read /a\n# fine\nal\0low read /b\n";
	char dir[1024], path[2048];
	test_tmpdir(dir, sizeof(dir));
	snprintf(path, sizeof(path), "%s/nul.policy", dir);
	FILE *f = fopen(path, "wb");
	ck_assert_ptr_nonnull(f);
	ck_assert_uint_eq(fwrite(bytes, 1, sizeof(bytes) - 1, f), sizeof(bytes) - 1);
	ck_assert_int_eq(fclose(f), 0);
	struct jail_policy *p = SENTINEL;
	struct jail_error err;
	int rc = load_file(path, &p, &err);
	check_error(rc, p, &err, path, 3, 3, "unexpected NUL byte", "a NUL byte in a file");
	test_rmtree(dir);
}
END_TEST

/* A file source loads like the same text given directly. */
START_TEST(file_source)
{
	char dir[1024], path[2048];
	test_tmpdir(dir, sizeof(dir));
	test_write_file(dir, "p.policy", "mode audit\nlog ~/l\nallow read /\n\tdeny read ~/.ssh\n", path, sizeof(path));
	struct jail_policy *p = must_load_file(path);
	ck_assert_int_eq(jail_policy_mode(p), JAIL_MODE_AUDIT);
	ck_assert_str_eq(jail_policy_log(p), "/home/u/l");
	ck_assert_uint_eq(jail_rule_count(p), 2);
	ck_assert_str_eq(jail_rule_file(p, 1), path);
	ck_assert_uint_eq(jail_rule_line(p, 1), 4);
	ck_assert_uint_eq(jail_rule_col(p, 1), 12);
	ck_assert_int_eq(jail_decide(p, JAIL_READ, "/home/u/.ssh/k").verdict, JAIL_DENY);
	jail_policy_free(p);
	test_rmtree(dir);
}
END_TEST

/* Several sources are one policy; each rule keeps its own file name. */
START_TEST(multiple_sources)
{
	char dir[1024], path[2048];
	test_tmpdir(dir, sizeof(dir));
	test_write_file(dir, "three.policy", "\n\nallow write /w\n", path, sizeof(path));
	struct jail_source src[] = {
		{.name = "one.policy", .text = "allow read /\nmode audit\n"},
		{.name = "two.policy", .text = "\ndeny read /s\nlog /var/log/j\n"},
		{.name = path, .text = NULL},
	};
	struct jail_policy *p = SENTINEL;
	struct jail_error err;
	ck_assert_int_eq(load_files(src, 3, &p, &err), 0);
	ck_assert_uint_eq(jail_rule_count(p), 3);
	ck_assert_str_eq(jail_rule_file(p, 0), "one.policy");
	ck_assert_uint_eq(jail_rule_line(p, 0), 1);
	ck_assert_str_eq(jail_rule_file(p, 1), "two.policy");
	ck_assert_uint_eq(jail_rule_line(p, 1), 2);
	ck_assert_str_eq(jail_rule_file(p, 2), path);
	ck_assert_uint_eq(jail_rule_line(p, 2), 3);
	ck_assert_int_eq(jail_policy_mode(p), JAIL_MODE_AUDIT);
	ck_assert_str_eq(jail_policy_log(p), "/var/log/j");
	ck_assert_int_eq(jail_decide(p, JAIL_READ, "/s/x").verdict, JAIL_DENY);
	ck_assert_int_eq(jail_decide(p, JAIL_READ, "/t").verdict, JAIL_ALLOW);
	ck_assert_int_eq(jail_decide(p, JAIL_WRITE, "/w/x").verdict, JAIL_ALLOW);
	char buf[512];
	jail_rule_describe(p, jail_decide(p, JAIL_READ, "/s/x").rule, buf, sizeof(buf));
	ck_assert_str_eq(buf, "two.policy:2: deny read /s");
	jail_policy_free(p);

	/* an error in a later source loads nothing, and names that source */
	struct jail_source bad[] = {
		{.name = "one.policy", .text = "allow read /\n"},
		{.name = "two.policy", .text = "\n\nallow read /a\ndeny read nope\n"},
	};
	p = SENTINEL;
	int rc = load_files(bad, 2, &p, &err);
	check_error(rc, p, &err, "two.policy", 4, 11, "relative pattern 'nope'", "error in the second source");
	test_rmtree(dir);
}
END_TEST

static Suite *parse_suite(void)
{
	Suite *s = suite_create("parse");
	TCase *tc;

	tc = tcase_create("constructs");
	tcase_add_loop_test(tc, parse_table, 0, NPROWS);
	tcase_add_test(tc, quoted_decisions);
	tcase_add_test(tc, crlf_decisions);
	tcase_add_test(tc, empty_policies);
	tcase_add_test(tc, mode_and_log);
	tcase_add_test(tc, include_default);
	suite_add_tcase(s, tc);

	tc = tcase_create("errors");
	tcase_add_loop_test(tc, error_table, 0, NEROWS);
	tcase_add_loop_test(tc, vars_table, 0, NVROWS);
	tcase_add_test(tc, error_format);
	suite_add_tcase(s, tc);

	tc = tcase_create("files");
	tcase_add_test(tc, include_absolute_and_relative);
	tcase_add_test(tc, include_default_nested);
	tcase_add_test(tc, include_missing);
	tcase_add_test(tc, include_cycle);
	tcase_add_test(tc, include_self);
	tcase_add_test(tc, include_error_inside);
	tcase_add_test(tc, missing_top_level);
	tcase_add_test(tc, nul_byte);
	tcase_add_test(tc, file_source);
	tcase_add_test(tc, multiple_sources);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return test_run(parse_suite());
}
