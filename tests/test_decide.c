/*
 * test_decide.c — the decision contract of the policy language.
 *
 * Most cases are rows of one table: a policy, one query, and the decision it
 * must give (verdict, reason, the deciding rule's line and text, and where it
 * matters the specificity). Each row is its own loop iteration so that a
 * failure names the row and prints everything needed to reproduce it.
 *
 * Policies are loaded with test_load(): file "test.policy", ~ and {home} =
 * /home/u, {cwd} = /work/p, {tmp} = /tmp, no canonicalization.
 */
#include "testutil.h"

#include <check.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* blob.h is private to policy/, but the blob tests need to know where the
 * header ends: every byte after it is covered by the checksum. */
#include "blob.h"

/* Short names keep the table one row per line. */
#define RD JAIL_READ
#define WR JAIL_WRITE
#define EX JAIL_EXEC
#define MT JAIL_META
#define OK JAIL_ALLOW
#define NO JAIL_DENY
#define BY JAIL_BY_RULE
#define NR JAIL_NO_RULE
#define MND JAIL_META_NO_DENY
#define BAD JAIL_BAD_PATH
#define ANY_SPEC (-1) /* specificity not checked in this row */

struct drow {
	const char *policy;
	enum jail_access access;
	const char *path;
	enum jail_effect verdict;
	enum jail_reason reason;
	unsigned line;    /* the deciding rule's line; 0 = no rule (rule -1) */
	const char *text; /* the deciding rule as written, or NULL to skip */
	int spec;         /* expected specificity, or ANY_SPEC */
};

/* The four examples every implementation of the language must get right. */
#define EX_SSH "allow read /\ndeny read ~/.ssh\n"
#define EX_AWS "deny all ~/.aws\nallow read ~/.aws/config\n"
#define EX_HOOKS "allow write {cwd}\ndeny write {cwd}/.git/hooks\n"
#define EX_ENV "allow write {cwd}\ndeny read **/.env\n"

static const struct drow drows[] = {
	/* ---- the four required examples ---- */
	{EX_SSH, RD, "/home/u/.ssh/id_rsa", NO, BY, 2, "deny read ~/.ssh", 3},
	{EX_SSH, MT, "/home/u/.ssh/id_rsa", NO, BY, 2, "deny read ~/.ssh", 3},
	{EX_SSH, RD, "/etc/hosts", OK, BY, 1, "allow read /", 0},
	{EX_AWS, RD, "/home/u/.aws/config", OK, BY, 2, "allow read ~/.aws/config", 4},
	{EX_AWS, WR, "/home/u/.aws/config", NO, BY, 1, "deny all ~/.aws", 3},
	{EX_AWS, RD, "/home/u/.aws/credentials", NO, BY, 1, "deny all ~/.aws", 3},
	{EX_HOOKS, WR, "/work/p/.git/hooks/pre-commit", NO, BY, 2, "deny write {cwd}/.git/hooks", 4},
	{EX_HOOKS, WR, "/work/p/src/a.c", OK, BY, 1, "allow write {cwd}", 2},
	{EX_HOOKS, RD, "/work/p/src/a.c", OK, BY, 1, "allow write {cwd}", 2},
	{EX_ENV, RD, "/work/p/app/.env", NO, BY, 2, "deny read **/.env", 4},
	{EX_ENV, WR, "/work/p/app/.env", NO, BY, 2, "deny read **/.env", 4},

	/* ---- a pattern covers itself and what is beneath, nothing beside ---- */
	{"allow write /work/p\n", WR, "/work/p/a/b", OK, BY, 1, "allow write /work/p", 2},
	{"allow write /work/p\n", WR, "/work/p", OK, BY, 1, "allow write /work/p", 2},
	{"allow write /work/p\n", WR, "/work/p-evil", NO, NR, 0, NULL, ANY_SPEC},
	{"allow write /work/p\n", WR, "/work/p-evil/x", NO, NR, 0, NULL, ANY_SPEC},
	{"allow write /work/p\n", WR, "/work/pp", NO, NR, 0, NULL, ANY_SPEC},
	{"allow write /work/p\n", WR, "/work", NO, NR, 0, NULL, ANY_SPEC},
	{"allow write /work/p\n", WR, "/", NO, NR, 0, NULL, ANY_SPEC},
	{"allow read /work/p/\n", RD, "/work/p/x", OK, BY, 1, "allow read /work/p/", 2},

	/* ---- deeper beats shallower, in both directions, in any order ---- */
	{"allow read /a\ndeny read /a/b\n", RD, "/a/b/c", NO, BY, 2, "deny read /a/b", 2},
	{"allow read /a\ndeny read /a/b\n", RD, "/a/c", OK, BY, 1, "allow read /a", 1},
	{"deny read /a\nallow read /a/b\n", RD, "/a/b/c", OK, BY, 2, "allow read /a/b", 2},
	{"deny read /a\nallow read /a/b\n", RD, "/a/c", NO, BY, 1, "deny read /a", 1},
	{"allow read /a/b\ndeny read /a\n", RD, "/a/b", OK, BY, 1, "allow read /a/b", 2},
	{"deny read /a/b\nallow read /a\n", RD, "/a/b/c/d", NO, BY, 1, "deny read /a/b", 2},

	/* ---- equal specificity: deny wins whatever the order in the file ---- */
	{"allow read /a\ndeny read /a\n", RD, "/a/x", NO, BY, 2, "deny read /a", 1},
	{"deny read /a\nallow read /a\n", RD, "/a/x", NO, BY, 1, "deny read /a", 1},
	{"deny read /a/*\nallow read /a/b\n", RD, "/a/b", NO, BY, 1, "deny read /a/*", 2},
	{"allow read /a/b\ndeny read /a/*\n", RD, "/a/b", NO, BY, 2, "deny read /a/*", 2},
	{"allow read /a/b/c\ndeny read /a/**/c\n", RD, "/a/b/c", NO, BY, 2, "deny read /a/**/c", 3},
	{"allow read /a/b\ndeny read /a/?\n", RD, "/a/b/z", NO, BY, 2, "deny read /a/?", 2},
	{"allow write /a\ndeny read /a\n", WR, "/a", NO, BY, 2, "deny read /a", 1},

	/* ---- widening: allow write gives read; allow read and exec give only themselves ---- */
	{"allow write /a\n", RD, "/a/f", OK, BY, 1, "allow write /a", 1},
	{"allow write /a\n", WR, "/a/f", OK, BY, 1, "allow write /a", 1},
	{"allow write /a\n", EX, "/a/f", NO, NR, 0, NULL, ANY_SPEC},
	{"allow read /a\n", WR, "/a/f", NO, NR, 0, NULL, ANY_SPEC},
	{"allow read /a\n", EX, "/a/f", NO, NR, 0, NULL, ANY_SPEC},
	{"allow exec /a\n", EX, "/a/f", OK, BY, 1, "allow exec /a", 1},
	{"allow exec /a\n", RD, "/a/f", NO, NR, 0, NULL, ANY_SPEC},
	{"allow exec /a\n", WR, "/a/f", NO, NR, 0, NULL, ANY_SPEC},
	{"allow read,exec /a\n", WR, "/a/f", NO, NR, 0, NULL, ANY_SPEC},
	{"allow read,exec /a\n", EX, "/a/f", OK, BY, 1, "allow read,exec /a", 1},
	/* deny read also denies write and exec: what cannot be read cannot be changed or run */
	{"allow all /a\ndeny read /a/s\n", RD, "/a/s/f", NO, BY, 2, "deny read /a/s", 2},
	{"allow all /a\ndeny read /a/s\n", WR, "/a/s/f", NO, BY, 2, "deny read /a/s", 2},
	{"allow all /a\ndeny read /a/s\n", EX, "/a/s/f", NO, BY, 2, "deny read /a/s", 2},
	/* deny write and deny exec take away only themselves */
	{"allow all /a\ndeny write /a/s\n", WR, "/a/s/f", NO, BY, 2, "deny write /a/s", 2},
	{"allow all /a\ndeny write /a/s\n", RD, "/a/s/f", OK, BY, 1, "allow all /a", 1},
	{"allow all /a\ndeny write /a/s\n", EX, "/a/s/f", OK, BY, 1, "allow all /a", 1},
	{"allow all /a\ndeny exec /a/s\n", EX, "/a/s/f", NO, BY, 2, "deny exec /a/s", 2},
	{"allow all /a\ndeny exec /a/s\n", RD, "/a/s/f", OK, BY, 1, "allow all /a", 1},
	{"allow all /a\ndeny exec /a/s\n", WR, "/a/s/f", OK, BY, 1, "allow all /a", 1},
	/* all = read,write,exec for both effects */
	{"allow all /a\n", RD, "/a/f", OK, BY, 1, "allow all /a", 1},
	{"allow all /a\n", WR, "/a/f", OK, BY, 1, "allow all /a", 1},
	{"allow all /a\n", EX, "/a/f", OK, BY, 1, "allow all /a", 1},
	{"allow all /\ndeny all /a\n", EX, "/a/f", NO, BY, 2, "deny all /a", 1},
	{"allow all /\ndeny all /a\n", WR, "/a/f", NO, BY, 2, "deny all /a", 1},
	/* a rule not relevant to the asked access is ignored, however deep */
	{"deny write /a\nallow read /a/b\n", WR, "/a/b/x", NO, BY, 1, "deny write /a", 1},
	{"allow write /a\nallow read /a/b\n", WR, "/a/b/x", OK, BY, 1, "allow write /a", 1},
	{"deny read /a\nallow write /a/b\n", RD, "/a/b/x", OK, BY, 2, "allow write /a/b", 2},
	{"deny read /a\nallow exec /a/b\n", EX, "/a/b/x", OK, BY, 2, "allow exec /a/b", 2},
	{"deny read /a\nallow exec /a/b\n", RD, "/a/b/x", NO, BY, 1, "deny read /a", 1},
	/* exec and read are separate */
	{"allow read /usr\n", EX, "/usr/bin/gcc", NO, NR, 0, NULL, ANY_SPEC},
	{"allow exec /usr\n", RD, "/usr/bin/gcc", NO, NR, 0, NULL, ANY_SPEC},
	{"allow exec /usr\nallow read /\n", EX, "/usr/bin/gcc", OK, BY, 1, "allow exec /usr", 1},

	/* ---- * ? and classes: one component each ---- */
	{"allow read /a/*.txt\n", RD, "/a/b.txt", OK, BY, 1, "allow read /a/*.txt", 2},
	{"allow read /a/*.txt\n", RD, "/a/b.txt/c", OK, BY, 1, "allow read /a/*.txt", 2},
	{"allow read /a/*.txt\n", RD, "/a/.txt", OK, BY, 1, "allow read /a/*.txt", 2},
	{"allow read /a/*.txt\n", RD, "/a/b.txtx", NO, NR, 0, NULL, ANY_SPEC},
	{"allow read /a/*.txt\n", RD, "/a/x/b.txt", NO, NR, 0, NULL, ANY_SPEC},
	{"allow read /a/*\n", RD, "/a", NO, NR, 0, NULL, ANY_SPEC},
	{"allow read /a/*\n", RD, "/a/b/c", OK, BY, 1, "allow read /a/*", 2},
	{"deny read /h/*\nallow read /h\n", RD, "/h/.hidden", NO, BY, 1, "deny read /h/*", 2},
	{"deny read /h/?git\nallow read /h\n", RD, "/h/.git", NO, BY, 1, "deny read /h/?git", 2},
	{"allow read /a/file?.c\n", RD, "/a/file1.c", OK, BY, 1, "allow read /a/file?.c", 2},
	{"allow read /a/file?.c\n", RD, "/a/file.c", NO, NR, 0, NULL, ANY_SPEC},
	{"allow read /a/file?.c\n", RD, "/a/file12.c", NO, NR, 0, NULL, ANY_SPEC},
	{"allow read /a/[abc]x\n", RD, "/a/bx", OK, BY, 1, "allow read /a/[abc]x", 2},
	{"allow read /a/[abc]x\n", RD, "/a/dx", NO, NR, 0, NULL, ANY_SPEC},
	{"allow read /a/v[0-9]\n", RD, "/a/v7", OK, BY, 1, "allow read /a/v[0-9]", 2},
	{"allow read /a/v[0-9]\n", RD, "/a/vx", NO, NR, 0, NULL, ANY_SPEC},
	{"allow read /a/[!0-9]*\n", RD, "/a/x1", OK, BY, 1, "allow read /a/[!0-9]*", 2},
	{"allow read /a/[!0-9]*\n", RD, "/a/1x", NO, NR, 0, NULL, ANY_SPEC},
	{"allow read /a/[^.]*\n", RD, "/a/git", OK, BY, 1, "allow read /a/[^.]*", 2},
	{"allow read /a/[^.]*\n", RD, "/a/.git", NO, NR, 0, NULL, ANY_SPEC},
	/* escaped glob characters are literals: a file really named "f*" */
	{"allow read /a/f\\*\n", RD, "/a/f*", OK, BY, 1, "allow read /a/f\\*", 2},
	{"allow read /a/f\\*\n", RD, "/a/fx", NO, NR, 0, NULL, ANY_SPEC},
	{"allow read /a/\\?\n", RD, "/a/?", OK, BY, 1, "allow read /a/\\?", 2},
	{"allow read /a/\\?\n", RD, "/a/x", NO, NR, 0, NULL, ANY_SPEC},
	{"allow read /a/\\[x]\n", RD, "/a/[x]", OK, BY, 1, "allow read /a/\\[x]", 2},
	{"allow read /a/\\[x]\n", RD, "/a/x", NO, NR, 0, NULL, ANY_SPEC},
	{"allow read /a/\\**\n", RD, "/a/*zz", OK, BY, 1, "allow read /a/\\**", 2},
	{"allow read /a/\\**\n", RD, "/a/zz", NO, NR, 0, NULL, ANY_SPEC},
	/* many globs in one directory: keyed by prefix and by suffix */
	{"deny read /k/id_*\ndeny read /k/*.pem\ndeny read /k/x*y\nallow read /k\n", RD, "/k/id_rsa", NO, BY, 1,
	 "deny read /k/id_*", 2},
	{"deny read /k/id_*\ndeny read /k/*.pem\ndeny read /k/x*y\nallow read /k\n", RD, "/k/cert.pem", NO, BY, 2,
	 "deny read /k/*.pem", 2},
	{"deny read /k/id_*\ndeny read /k/*.pem\ndeny read /k/x*y\nallow read /k\n", RD, "/k/xzzy", NO, BY, 3,
	 "deny read /k/x*y", 2},
	{"deny read /k/id_*\ndeny read /k/*.pem\ndeny read /k/x*y\nallow read /k\n", RD, "/k/id", OK, BY, 4,
	 "allow read /k", 1},
	{"allow read /k/ab*\ndeny read /k/abc*\n", RD, "/k/abcd", NO, BY, 2, "deny read /k/abc*", 2},
	{"allow read /k/ab*\ndeny read /k/abc*\n", RD, "/k/abx", OK, BY, 1, "allow read /k/ab*", 2},
	{"allow read /k/ab*\n", RD, "/k/ab", OK, BY, 1, "allow read /k/ab*", 2},
	{"deny read /k/*.pem\ndeny read /k/*x\nallow read /k\n", RD, "/k/a.pem", NO, BY, 1, "deny read /k/*.pem", 2},
	{"deny read /k/*.pem\ndeny read /k/*x\nallow read /k\n", RD, "/k/box", NO, BY, 2, "deny read /k/*x", 2},
	{"deny read /k/*.pem\ndeny read /k/*x\nallow read /k\n", RD, "/k/a.pe", OK, BY, 3, "allow read /k", 1},
	/* an escaped ']' inside a class is a member of it */
	{"allow read /a/[\\]x]\n", RD, "/a/]", OK, BY, 1, "allow read /a/[\\]x]", 2},
	{"allow read /a/[\\]x]\n", RD, "/a/x", OK, BY, 1, "allow read /a/[\\]x]", 2},
	{"allow read /a/[\\]x]\n", RD, "/a/y", NO, NR, 0, NULL, ANY_SPEC},

	/* ---- ** in the middle matches zero or more components ---- */
	{"allow read /a/**/b\n", RD, "/a/b", OK, BY, 1, "allow read /a/**/b", 2},
	{"allow read /a/**/b\n", RD, "/a/x/y/b", OK, BY, 1, "allow read /a/**/b", 4},
	{"allow read /a/**/b\n", RD, "/a/x/b/c", OK, BY, 1, "allow read /a/**/b", 3},
	{"allow read /a/**/b\n", RD, "/a/x/c", NO, NR, 0, NULL, ANY_SPEC},
	{"allow read /a/**/b\n", RD, "/ab", NO, NR, 0, NULL, ANY_SPEC},
	{"allow read /a/**/b\n", RD, "/x/a/b", NO, NR, 0, NULL, ANY_SPEC},
	{"allow read /**/x/**/y\n", RD, "/p/x/q/y/z", OK, BY, 1, "allow read /**/x/**/y", 4},
	{"allow read /a/**/x\n", RD, "/a/.hidden/x", OK, BY, 1, "allow read /a/**/x", 3},
	/* when ** can match several ways, the deepest match is the specificity */
	{"allow read /a/x\ndeny read **/a\n", RD, "/a/x/a/y", NO, BY, 2, "deny read **/a", 3},
	{"deny read /a/x\nallow read **/a\n", RD, "/a/x/a", OK, BY, 2, "allow read **/a", 3},
	{"deny read /a/x\nallow read **/a\n", RD, "/a/x/b", NO, BY, 1, "deny read /a/x", 2},
	/* ---- leading **: anywhere ---- */
	{"deny read **/.env\nallow read /\n", RD, "/x/app/.env", NO, BY, 1, "deny read **/.env", 3},
	{"deny read **/.env\nallow read /\n", RD, "/.env", NO, BY, 1, "deny read **/.env", 1},
	{"deny read **/.env\nallow read /\n", RD, "/x/.env/y", NO, BY, 1, "deny read **/.env", 2},
	{"deny read **/.env\nallow read /\n", RD, "/x/app/.envrc", OK, BY, 2, "allow read /", 0},
	{"deny read **/.env\nallow read /\n", RD, "/x/app/a.env", OK, BY, 2, "allow read /", 0},
	/* ---- a trailing slash-star-star adds nothing: same coverage, same specificity ---- */
	{"allow read /a/**\n", RD, "/a", OK, BY, 1, "allow read /a/**", 1},
	{"allow read /a/**\n", RD, "/a/b/c", OK, BY, 1, "allow read /a/**", 1},
	{"allow read /a/**\n", RD, "/ab", NO, NR, 0, NULL, ANY_SPEC},
	{"allow read /a/**\ndeny read /a\n", RD, "/a/x", NO, BY, 2, "deny read /a", 1},
	{"deny read /a\nallow read /a/**\n", RD, "/a/x", NO, BY, 1, "deny read /a", 1},
	{"deny read /a/**\nallow read /a/b\n", RD, "/a/b/c", OK, BY, 2, "allow read /a/b", 2},
	/* ---- **\/NAME against a literal rule ---- */
	{"deny read **/secrets\nallow read /work/p/secrets/public\n", RD, "/work/p/secrets/public/x", OK, BY, 2,
	 "allow read /work/p/secrets/public", 4},
	{"deny read **/secrets\nallow read /work/p/secrets/public\n", RD, "/work/p/secrets/x", NO, BY, 1,
	 "deny read **/secrets", 3},
	{"allow read /work/p/app/.env\ndeny read **/.env\n", RD, "/work/p/app/.env", NO, BY, 2, "deny read **/.env", 4},
	{"allow read {cwd}\ndeny read **/.env\n", RD, "/work/p/.env", NO, BY, 2, "deny read **/.env", 3},

	/* ---- the root ---- */
	{"allow read /\n", RD, "/", OK, BY, 1, "allow read /", 0},
	{"allow read /\n", RD, "/any/deep/path", OK, BY, 1, "allow read /", 0},
	{"allow read /\ndeny read /\n", RD, "/x", NO, BY, 2, "deny read /", 0},
	{"deny read /\nallow read /etc\n", RD, "/etc/hosts", OK, BY, 2, "allow read /etc", 1},
	{"allow read /a\n", RD, "/", NO, NR, 0, NULL, ANY_SPEC},

	/* ---- quoting, several patterns, normalization, variables ---- */
	{"allow read \"/a b/c d\"\n", RD, "/a b/c d/e", OK, BY, 1, "allow read \"/a b/c d\"", 2},
	{"allow read \"/a b/c d\"\n", RD, "/a", NO, NR, 0, NULL, ANY_SPEC},
	{"deny read /a /b\nallow read /\n", RD, "/b/x", NO, BY, 1, "deny read /b", 1},
	{"deny read /a /b\nallow read /\n", RD, "/a", NO, BY, 1, "deny read /a", 1},
	{"allow read /a/./b//c/../d\n", RD, "/a/b/d/x", OK, BY, 1, "allow read /a/./b//c/../d", 3},
	{"allow read /a/./b//c/../d\n", RD, "/a/b/c", NO, NR, 0, NULL, ANY_SPEC},
	{"allow read ~\n", RD, "/home/u", OK, BY, 1, "allow read ~", 2},
	{"allow read ~\n", RD, "/home/uu", NO, NR, 0, NULL, ANY_SPEC},
	{"allow write {home}/w\n", WR, "/home/u/w/f", OK, BY, 1, "allow write {home}/w", 3},
	{"allow write {cwd}\n", WR, "/work/p/f", OK, BY, 1, "allow write {cwd}", 2},
	{"allow write {tmp}\n", WR, "/tmp/x", OK, BY, 1, "allow write {tmp}", 1},
	{"allow write {tmp}\n", WR, "/tmpx", NO, NR, 0, NULL, ANY_SPEC},
	{"# comment\n\nallow read /a # trailing\n", RD, "/a", OK, BY, 3, "allow read /a", 1},

	/* ---- metadata: allowed unless a read deny covers the path ---- */
	{"allow write /a\n", MT, "/b", OK, MND, 0, NULL, ANY_SPEC},
	{"deny write /a\n", MT, "/a/x", OK, MND, 0, NULL, ANY_SPEC},
	{"deny exec /a\n", MT, "/a", OK, MND, 0, NULL, ANY_SPEC},
	{"deny all /a\n", MT, "/a/x", NO, BY, 1, "deny all /a", 1},
	{"deny read /a\nallow read /a/b\n", MT, "/a/b/c", OK, BY, 2, "allow read /a/b", 2},
	{"deny read /a\nallow read /a/b\n", MT, "/a/c", NO, BY, 1, "deny read /a", 1},
	{"", MT, "/x", OK, MND, 0, NULL, ANY_SPEC},

	/* ---- no rule, bad path ---- */
	{"allow read /a\n", RD, "/b", NO, NR, 0, NULL, ANY_SPEC},
	{"", RD, "/x", NO, NR, 0, NULL, ANY_SPEC},
	{"# only a comment\n", WR, "/x", NO, NR, 0, NULL, ANY_SPEC},
	{"allow read /\n", RD, "relative/x", NO, BAD, 0, NULL, ANY_SPEC},
	{"allow read /\n", RD, "", NO, BAD, 0, NULL, ANY_SPEC},
	{"allow read /\n", MT, "x", NO, BAD, 0, NULL, ANY_SPEC},
};

#define NDROWS ((int)(sizeof(drows) / sizeof(drows[0])))

/* Describes a decision for failure messages. */
static void show(const struct jail_policy *p, struct jail_decision d, char *buf, size_t n)
{
	char rule[512];
	jail_rule_describe(p, d.rule, rule, sizeof(rule));
	snprintf(buf, n, "%s (%s) rule=%d [%s] spec=%u", jail_effect_name(d.verdict), jail_reason_name(d.reason),
	         (int)d.rule, rule, (unsigned)d.specificity);
}

static void check_row(const struct drow *r, int i)
{
	struct jail_policy *p = test_load(r->policy);
	struct jail_decision d = jail_decide(p, r->access, r->path);
	char got[1024], want[1024], desc[512];

	show(p, d, got, sizeof(got));
	if (r->line)
		snprintf(desc, sizeof(desc), "test.policy:%u: %s", r->line, r->text ? r->text : "(any)");
	else
		snprintf(desc, sizeof(desc), "no rule");
	snprintf(want, sizeof(want), "%s (%s) [%s] spec=%d", jail_effect_name(r->verdict), jail_reason_name(r->reason),
	         desc, r->spec);

	int ok = d.verdict == r->verdict && d.reason == r->reason;
	if (r->line == 0) {
		ok = ok && d.rule == -1;
	} else {
		ok = ok && d.rule >= 0 && jail_rule_line(p, d.rule) == r->line;
		if (r->text) {
			char rule[512];
			jail_rule_describe(p, d.rule, rule, sizeof(rule));
			ok = ok && strcmp(rule, desc) == 0;
		}
	}
	if (r->spec != ANY_SPEC)
		ok = ok && d.specificity == (uint32_t)r->spec;
	ck_assert_msg(ok, "row %d: policy:\n%s---\n%s %s\n  expected: %s\n  got:      %s", i, r->policy,
	              jail_access_name(r->access), r->path, want, got);
	jail_policy_free(p);
}

START_TEST(decide_table)
{
	check_row(&drows[_i], _i);
}
END_TEST

/* The rule text is the directive as written, per pattern; "no rule" for -1. */
START_TEST(describe_rules)
{
	struct jail_policy *p = test_load("\n  deny   read\t~/.ssh  \"/a b\"\n");
	char buf[256];

	ck_assert_uint_eq(jail_rule_count(p), 2);
	jail_rule_describe(p, 0, buf, sizeof(buf));
	ck_assert_str_eq(buf, "test.policy:2: deny read ~/.ssh");
	jail_rule_describe(p, 1, buf, sizeof(buf));
	ck_assert_str_eq(buf, "test.policy:2: deny read \"/a b\"");
	jail_rule_describe(p, -1, buf, sizeof(buf));
	ck_assert_str_eq(buf, "no rule");
	/* out of range is "no rule" too, never a read past the table */
	jail_rule_describe(p, 2, buf, sizeof(buf));
	ck_assert_str_eq(buf, "no rule");
	/* a short buffer is truncated, never overrun, and stays terminated */
	memset(buf, 'X', sizeof(buf));
	jail_rule_describe(p, 0, buf, 8);
	ck_assert_str_eq(buf, "test.po");
	ck_assert_int_eq(buf[8], 'X');
	jail_policy_free(p);
}
END_TEST

/* Paths longer than PATH_MAX are refused, not walked. */
START_TEST(too_long_path)
{
	struct jail_policy *p = test_load("allow read /\n");
	size_t n = 5000;
	char *path = malloc(n + 1);
	ck_assert_ptr_nonnull(path);
	for (size_t i = 0; i < n; i++)
		path[i] = (i % 2 == 0) ? '/' : 'a';
	path[n] = '\0';
	struct jail_decision d = jail_decide(p, JAIL_READ, path);
	ck_assert_int_eq(d.verdict, JAIL_DENY);
	ck_assert_int_eq(d.reason, JAIL_BAD_PATH);
	ck_assert_int_eq(d.rule, -1);
	free(path);
	jail_policy_free(p);
}
END_TEST

/* ---- jail_decide2: the given path can only take away ---- */

struct d2row {
	const char *policy;
	enum jail_access access;
	const char *given, *resolved;
	enum jail_effect verdict;
	enum jail_reason reason;
	char which;
	unsigned line; /* 0 = no rule */
};

static const struct d2row d2rows[] = {
	/* a symlink in the project pointing at a key: the resolved path decides */
	{"allow write {cwd}\nallow read /\ndeny read ~/.ssh\n", RD, "/work/p/link", "/home/u/.ssh/id_rsa", NO, BY, 'r', 3},
	{"allow write {cwd}\nallow read /\ndeny read ~/.ssh\n", WR, "/work/p/link", "/home/u/.ssh/id_rsa", NO, BY, 'r', 3},
	/* reached through a denied directory: the given path's deny wins */
	{"allow read /\ndeny read ~/.ssh\n", RD, "/home/u/.ssh/link", "/etc/hosts", NO, BY, 'g', 2},
	{"allow write /\ndeny write /ro\n", WR, "/ro/link", "/rw/f", NO, BY, 'g', 2},
	/* the given path's deny counts only for the asked access */
	{"allow write /\ndeny write /ro\n", RD, "/ro/link", "/rw/f", OK, BY, 'r', 1},
	/* no rule on the given path does not deny: only a rule can take away */
	{"allow read /work/p\n", RD, "/nowhere/link", "/work/p/f", OK, BY, 'r', 1},
	/* no rule anywhere: deny, by the resolved path */
	{"allow read /a\n", RD, "/b/link", "/c/f", NO, NR, 'r', 0},
	/* the given path's allow does not rescue a denied resolved path */
	{"allow read /a\ndeny read /b\n", RD, "/a/link", "/b/f", NO, BY, 'r', 2},
	/* same path both ways */
	{"allow read /a\n", RD, "/a/f", "/a/f", OK, BY, 'r', 1},
	/* only one path known */
	{"allow read /a\ndeny read /a/s\n", RD, NULL, "/a/s/f", NO, BY, 'r', 2},
	{"allow read /a\ndeny read /a/s\n", RD, "/a/s/f", NULL, NO, BY, 'g', 2},
	{"allow read /a\ndeny read /a/s\n", RD, "/a/f", NULL, OK, BY, 'g', 1},
};

#define ND2ROWS ((int)(sizeof(d2rows) / sizeof(d2rows[0])))

START_TEST(decide2_table)
{
	const struct d2row *r = &d2rows[_i];
	struct jail_policy *p = test_load(r->policy);
	char which = '?', got[1024];
	struct jail_decision d = jail_decide2(p, r->access, r->given, r->resolved, &which);
	int ok = d.verdict == r->verdict && d.reason == r->reason && which == r->which &&
	         (r->line ? d.rule >= 0 && jail_rule_line(p, d.rule) == r->line : d.rule == -1);
	show(p, d, got, sizeof(got));
	ck_assert_msg(ok,
	              "row %d: policy:\n%s---\n%s given=%s resolved=%s\n  expected: %s (%s) which=%c line=%u\n"
	              "  got:      %s which=%c",
	              _i, r->policy, jail_access_name(r->access), r->given ? r->given : "(null)",
	              r->resolved ? r->resolved : "(null)", jail_effect_name(r->verdict), jail_reason_name(r->reason),
	              r->which, r->line, got, which);
	jail_policy_free(p);
}
END_TEST

/* ---- the built-in default policy ---- */

struct defrow {
	enum jail_access access;
	const char *path;
	enum jail_effect verdict;
	const char *rule; /* expected jail_rule_describe(), or NULL to skip */
};

static const struct defrow defrows[] = {
	{RD, "/home/u/.ssh/id_rsa", NO, "deny read ~/.ssh"},
	{MT, "/home/u/.ssh/id_rsa", NO, "deny read ~/.ssh"},
	{MT, "/home/u/.ssh", NO, "deny read ~/.ssh"},
	{RD, "/home/u/.ssh/known_hosts", OK, "allow read ~/.ssh/known_hosts"},
	{RD, "/home/u/.ssh/config", OK, "allow read ~/.ssh/config"},
	{WR, "/home/u/.ssh/config", NO, "deny read ~/.ssh"},
	{RD, "/home/u/.aws/credentials", NO, "deny read ~/.aws"},
	{RD, "/home/u/.config/gcloud/credentials.db", NO, "deny read ~/.config/gcloud"},
	{RD, "/home/u/.kube/config", NO, "deny read ~/.kube"},
	{RD, "/home/u/.docker/config.json", NO, "deny read ~/.docker"},
	{RD, "/home/u/.netrc", NO, "deny read ~/.netrc"},
	{RD, "/home/u/.npmrc", NO, "deny read ~/.npmrc"},
	{RD, "/home/u/.pypirc", NO, "deny read ~/.pypirc"},
	{RD, "/home/u/.git-credentials", NO, "deny read ~/.git-credentials"},
	{RD, "/home/u/.gnupg/private-keys-v1.d/x.key", NO, "deny read ~/.gnupg"},
	{RD, "/home/u/.password-store/bank.gpg", NO, "deny read ~/.password-store"},
	{RD, "/home/u/.local/share/keyrings/login.keyring", NO, "deny read ~/.local/share/keyrings"},
	{RD, "/etc/shadow", NO, "deny read /etc/shadow"},
	{MT, "/etc/shadow", NO, "deny read /etc/shadow"},
	{RD, "/etc/sudoers.d/admins", NO, "deny read /etc/sudoers*"},
	{RD, "/etc/sudoers", NO, "deny read /etc/sudoers*"},
	{RD, "/etc/hosts", OK, "allow read /"},
	{WR, "/work/p/src/main.c", OK, "allow write {cwd}"},
	{WR, "/work/p", OK, "allow write {cwd}"},
	{WR, "/work/p/.git/hooks/x", NO, "deny write **/.git/hooks"},
	{WR, "/work/p/.git/hooks", NO, "deny write **/.git/hooks"},
	{WR, "/work/p/.git/config", NO, "deny write **/.git/config"},
	{WR, "/work/p/vendor/lib/.git/hooks/pre-commit", NO, "deny write **/.git/hooks"},
	{WR, "/work/p/.git/modules/sub/hooks/pre-commit", NO, "deny write **/.git/modules/**/hooks"},
	{WR, "/work/p/.git/HEAD", OK, "allow write {cwd}"},
	{WR, "/home/u/.bashrc", NO, "deny write ~/.bashrc"},
	{WR, "/home/u/.zshrc", NO, "deny write ~/.zshrc"},
	{WR, "/home/u/.profile", NO, "deny write ~/.profile"},
	{RD, "/home/u/.bashrc", OK, "allow read /"},
	{WR, "/home/u/.cache/pip/http/x", OK, "allow write ~/.cache"},
	{WR, "/home/u/.npm/_cacache/x", OK, "allow write ~/.npm"},
	{WR, "/home/u/.cargo/registry/cache/x", OK, "allow write ~/.cargo/registry"},
	{WR, "/home/u/.cargo/bin/cargo", NO, "no rule"},
	{WR, "/home/u/.claude/projects/x.jsonl", OK, "allow write ~/.claude"},
	{WR, "/home/u/.claude.json", OK, "allow write ~/.claude.json*"},
	{WR, "/home/u/.claude/settings.json", NO, "deny write ~/.claude/settings.json"},
	{WR, "/work/p/.claude/settings.local.json", NO, "deny write {cwd}/.claude/settings.local.json"},
	{WR, "/home/u/.codex/config.toml", NO, "deny write ~/.codex/config.toml"},
	{WR, "/home/u/.codex/sessions/s.jsonl", OK, "allow write ~/.codex"},
	{WR, "/home/u/.config/jail/policy", NO, "deny write ~/.config/jail"},
	{EX, "/usr/bin/gcc", OK, "allow exec /usr"},
	{EX, "/home/u/.cargo/bin/cargo", OK, "allow exec ~/.cargo/bin"},
	{EX, "/home/u/.nvm/versions/node/v20/bin/node", OK, "allow exec ~/.nvm"},
	{EX, "/work/p/node_modules/.bin/tsc", OK, "allow exec {cwd}"},
	{WR, "/usr/bin/gcc", NO, "no rule"},
	{EX, "/home/u/Downloads/tool", NO, "no rule"},
	{WR, "/home/u/other/file", NO, "no rule"},
	{WR, "/work/p-evil/x", NO, "no rule"},
	{RD, "/work/p/x/.env", NO, "deny read **/.env"},
	{WR, "/work/p/x/.env", NO, "deny read **/.env"},
	{RD, "/work/p/.env.local", NO, "deny read **/.env.local"},
	{RD, "/work/p/.env.example", OK, "allow write {cwd}"},
	{WR, "/tmp/scratch", OK, "allow write {tmp}"},
	{WR, "/dev/null", OK, "allow write /dev/null"},
	{WR, "/dev/pts/3", OK, "allow write /dev/pts"},
	{WR, "/var/run/docker.sock", NO, "deny write /var/run/docker.sock"},
	{WR, "/run/containerd/containerd.sock", NO, "deny write /run/containerd"},
	{MT, "/home/u/other/file", OK, "allow read /"},
};

#define NDEFROWS ((int)(sizeof(defrows) / sizeof(defrows[0])))

START_TEST(default_table)
{
	/* Rows name the deciding rule by its text; its line must hold that text,
	 * so the table survives edits of the default elsewhere in the file. */
	const struct defrow *r = &defrows[_i];
	struct jail_policy *p = test_load("include default\n");
	struct jail_decision d = jail_decide(p, r->access, r->path);
	char got[1024];
	const char *text = d.rule >= 0 ? jail_rule_text(p, d.rule) : "no rule";
	show(p, d, got, sizeof(got));
	ck_assert_msg(d.verdict == r->verdict && strcmp(text, r->rule) == 0,
	              "row %d: include default\n%s %s\n  expected: %s [%s]\n  got:      %s", _i,
	              jail_access_name(r->access), r->path, jail_effect_name(r->verdict), r->rule, got);
	if (d.rule >= 0) {
		ck_assert_str_eq(jail_rule_file(p, d.rule), "<default>");
		const char *line = jail_default_policy_text;
		for (uint32_t n = 1; n < jail_rule_line(p, d.rule) && line; n++) {
			line = strchr(line, '\n');
			line = line ? line + 1 : NULL;
		}
		ck_assert_ptr_nonnull(line);
		const char *pat = jail_rule_text(p, d.rule) + strlen(jail_effect_name(jail_rule_effect(p, d.rule))) + 1;
		pat = strchr(pat, ' ') + 1;
		ck_assert_msg(strncmp(line, jail_effect_name(jail_rule_effect(p, d.rule)), 4) == 0 &&
		                  strstr(line, pat) != NULL && (size_t)(strstr(line, pat) - line) < strcspn(line, "\n"),
		              "row %d: line %u of the default does not hold \"%s\"", _i, jail_rule_line(p, d.rule), text);
	}
	jail_policy_free(p);
}
END_TEST

/* ---- blobs: position independent, checked on adoption ---- */

static const char blob_policy[] = "mode audit\n"
                                  "log ~/jail.log\n"
                                  "allow read /\n"
                                  "deny read ~/.ssh **/.env /k/id_* /k/*.pem\n"
                                  "allow read ~/.ssh/known_hosts\n"
                                  "allow write {cwd} {tmp}\n"
                                  "deny write {cwd}/.git/hooks\n"
                                  "allow exec /usr /a/**/bin\n"
                                  "deny exec /usr/bin/s[u]do\n";

static const struct {
	enum jail_access a;
	const char *path;
} blob_queries[] = {
	{RD, "/"},
	{RD, "/home/u/.ssh/id_rsa"},
	{RD, "/home/u/.ssh/known_hosts"},
	{MT, "/home/u/.ssh/id_rsa"},
	{RD, "/x/y/.env"},
	{RD, "/k/id_ed25519"},
	{RD, "/k/server.pem"},
	{RD, "/k/other"},
	{WR, "/work/p/a.c"},
	{WR, "/work/p/.git/hooks/pre-push"},
	{WR, "/tmp/f"},
	{WR, "/etc/passwd"},
	{EX, "/usr/bin/cc"},
	{EX, "/usr/bin/sudo"},
	{EX, "/a/x/y/bin/tool"},
	{EX, "/a/bin"},
	{EX, "/b/bin"},
	{RD, "relative"},
};

#define NBLOBQ ((int)(sizeof(blob_queries) / sizeof(blob_queries[0])))

/* A copy of the blob in fresh malloc memory (malloc is suitably aligned). */
static void *copy_blob(const struct jail_policy *p, size_t *size)
{
	const void *b = jail_policy_blob(p, size);
	ck_assert_ptr_nonnull(b);
	ck_assert_uint_gt(*size, sizeof(struct jail_blob_hdr));
	void *c = malloc(*size);
	ck_assert_ptr_nonnull(c);
	memcpy(c, b, *size);
	return c;
}

START_TEST(blob_round_trip)
{
	struct jail_policy *p = test_load(blob_policy);
	size_t size;
	void *copy = copy_blob(p, &size);
	const struct jail_policy *q = jail_policy_from_blob(copy, size);
	ck_assert_ptr_nonnull(q);

	ck_assert_int_eq(jail_policy_mode(q), JAIL_MODE_AUDIT);
	ck_assert_str_eq(jail_policy_log(q), "/home/u/jail.log");
	ck_assert_uint_eq(jail_rule_count(q), jail_rule_count(p));
	for (int i = 0; i < NBLOBQ; i++) {
		struct jail_decision a = jail_decide(p, blob_queries[i].a, blob_queries[i].path);
		struct jail_decision b = jail_decide(q, blob_queries[i].a, blob_queries[i].path);
		char da[512], db[512];
		jail_rule_describe(p, a.rule, da, sizeof(da));
		jail_rule_describe(q, b.rule, db, sizeof(db));
		ck_assert_msg(a.verdict == b.verdict && a.reason == b.reason && a.rule == b.rule &&
		                  a.specificity == b.specificity && strcmp(da, db) == 0,
		              "query %d (%s %s): original %s [%s], adopted %s [%s]", i,
		              jail_access_name(blob_queries[i].a), blob_queries[i].path, jail_effect_name(a.verdict), da,
		              jail_effect_name(b.verdict), db);
	}
	/* the original may go away: the copy stands alone */
	jail_policy_free(p);
	struct jail_decision d = jail_decide(q, JAIL_READ, "/home/u/.ssh/id_rsa");
	char buf[256];
	jail_rule_describe(q, d.rule, buf, sizeof(buf));
	ck_assert_int_eq(d.verdict, JAIL_DENY);
	ck_assert_str_eq(buf, "test.policy:4: deny read ~/.ssh");
	free(copy);
}
END_TEST

/* Every single-byte change after the header is caught by the checksum. */
START_TEST(blob_flipped_byte)
{
	struct jail_policy *p = test_load(blob_policy);
	size_t size;
	unsigned char *copy = copy_blob(p, &size);
	ck_assert_ptr_nonnull(jail_policy_from_blob(copy, size));
	for (size_t i = sizeof(struct jail_blob_hdr); i < size; i++) {
		static const unsigned char masks[] = {0x01, 0x80, 0xff};
		for (size_t m = 0; m < sizeof(masks); m++) {
			copy[i] ^= masks[m];
			const struct jail_policy *q = jail_policy_from_blob(copy, size);
			copy[i] ^= masks[m];
			ck_assert_msg(q == NULL, "byte %zu of %zu flipped with 0x%02x was accepted", i, size, masks[m]);
		}
	}
	/* and the restored copy is valid again: the loop really restored it */
	ck_assert_ptr_nonnull(jail_policy_from_blob(copy, size));
	free(copy);
	jail_policy_free(p);
}
END_TEST

START_TEST(blob_truncated)
{
	struct jail_policy *p = test_load(blob_policy);
	size_t size;
	void *copy = copy_blob(p, &size);
	const size_t cuts[] = {size - 1, size - 4, size / 2, sizeof(struct jail_blob_hdr),
	                       sizeof(struct jail_blob_hdr) - 1, 8, 0};
	for (size_t i = 0; i < sizeof(cuts) / sizeof(cuts[0]); i++)
		ck_assert_msg(jail_policy_from_blob(copy, cuts[i]) == NULL, "blob truncated to %zu of %zu was accepted",
		              cuts[i], size);
	/* a larger size than the blob says is refused too */
	void *big = calloc(1, size + 4);
	ck_assert_ptr_nonnull(big);
	memcpy(big, copy, size);
	ck_assert_ptr_null(jail_policy_from_blob(big, size + 4));
	ck_assert_ptr_null(jail_policy_from_blob(NULL, size));
	ck_assert_ptr_nonnull(jail_policy_from_blob(copy, size));
	free(big);
	free(copy);
	jail_policy_free(p);
}
END_TEST

/* ---- a large policy: correctness only ---- */

#define BIG_RULES 10000

/* Line 1 allows reading everything; line n+1 (n = 1..9999) is one of three
 * kinds by n % 3, so the trie gets many literal, ** and glob edges. */
static char *big_policy_text(void)
{
	size_t cap = (size_t)BIG_RULES * 48 + 64, len = 0;
	char *t = malloc(cap);
	ck_assert_ptr_nonnull(t);
	len += (size_t)snprintf(t + len, cap - len, "allow read /\n");
	for (int n = 1; n < BIG_RULES; n++) {
		switch (n % 3) {
		case 0:
			len += (size_t)snprintf(t + len, cap - len, "deny read /data/d%d\n", n);
			break;
		case 1:
			len += (size_t)snprintf(t + len, cap - len, "deny read **/n%d\n", n);
			break;
		default:
			len += (size_t)snprintf(t + len, cap - len, "allow write /data/w%d/*.txt\n", n);
			break;
		}
		ck_assert_uint_lt(len, cap);
	}
	return t;
}

START_TEST(big_policy)
{
	static const struct {
		enum jail_access a;
		const char *path;
		enum jail_effect verdict;
		unsigned line; /* 0 = no rule */
	} q[] = {
		{RD, "/data/d3/x", NO, 4},          /* n = 3 */
		{RD, "/data/d9999", NO, 10000},     /* n = 9999, the last rule */
		{RD, "/data/d3x", OK, 1},           /* no component match */
		{RD, "/data/d10002", OK, 1},        /* no such rule */
		{RD, "/a/b/n4", NO, 5},             /* n = 4: **\/n4 */
		{RD, "/x/n9997/y", NO, 9998},       /* n = 9997: **\/n9997, beneath */
		{RD, "/a/b/n3", OK, 1},             /* n = 3 is a /data rule, not ** */
		{WR, "/data/w5/a.txt", OK, 6},      /* n = 5 */
		{RD, "/data/w5/a.txt", OK, 6},      /* allow write gives read, deeper */
		{WR, "/data/w5/a.md", NO, 0},
		{WR, "/data/w9998/z.txt", OK, 9999},
		{WR, "/data/w9999/z.txt", NO, 0},
	};
	char *text = big_policy_text();
	struct jail_policy *p = test_load(text);
	ck_assert_uint_eq(jail_rule_count(p), BIG_RULES);
	for (size_t i = 0; i < sizeof(q) / sizeof(q[0]); i++) {
		struct jail_decision d = jail_decide(p, q[i].a, q[i].path);
		char got[1024];
		show(p, d, got, sizeof(got));
		ck_assert_msg(d.verdict == q[i].verdict &&
		                  (q[i].line ? d.rule >= 0 && jail_rule_line(p, d.rule) == q[i].line : d.rule == -1),
		              "big policy, %s %s: expected %s line %u, got %s", jail_access_name(q[i].a), q[i].path,
		              jail_effect_name(q[i].verdict), q[i].line, got);
	}
	jail_policy_free(p);
	free(text);
}
END_TEST

/* ---- jail_path_normalize ---- */

static const struct {
	const char *in;
	size_t outsz;
	long ret;
	const char *out; /* when ret >= 0 */
} norm_rows[] = {
	{"/a//b/./c/../d", 64, 6, "/a/b/d"},
	{"/..", 64, 1, "/"},
	{"/a/..", 64, 1, "/"},
	{"/", 64, 1, "/"},
	{"//", 64, 1, "/"},
	{"/a/b/", 64, 4, "/a/b"},
	{"/../a", 64, 2, "/a"},
	{"/a/../../b", 64, 2, "/b"},
	{"/a/b/../../..", 64, 1, "/"},
	{"/...", 64, 4, "/..."},
	{"/.a/..b", 64, 7, "/.a/..b"},
	{"/abc", 5, 4, "/abc"},  /* exactly fits, with its NUL */
	{"/abc", 4, -1, NULL},   /* one byte short */
	{"/a/b", 1, -1, NULL},
	{"relative/a", 64, -1, NULL},
	{"", 64, -1, NULL},
	{"./a", 64, -1, NULL},
};

#define NNORM ((int)(sizeof(norm_rows) / sizeof(norm_rows[0])))

START_TEST(normalize_table)
{
	char out[64];
	memset(out, 0, sizeof(out));
	long r = jail_path_normalize(norm_rows[_i].in, out, norm_rows[_i].outsz);
	ck_assert_msg(r == norm_rows[_i].ret && (r < 0 || strcmp(out, norm_rows[_i].out) == 0),
	              "normalize(\"%s\", outsz %zu): expected %ld \"%s\", got %ld \"%s\"", norm_rows[_i].in,
	              norm_rows[_i].outsz, norm_rows[_i].ret, norm_rows[_i].out ? norm_rows[_i].out : "", r,
	              r >= 0 ? out : "");
}
END_TEST

/* out may equal in */
START_TEST(normalize_in_place)
{
	char buf[] = "/x/./y//z/../w";
	ck_assert_int_eq(jail_path_normalize(buf, buf, sizeof(buf)), 6);
	ck_assert_str_eq(buf, "/x/y/w");
}
END_TEST

static Suite *decide_suite(void)
{
	Suite *s = suite_create("decide");
	TCase *tc;

	tc = tcase_create("table");
	tcase_add_loop_test(tc, decide_table, 0, NDROWS);
	tcase_add_test(tc, describe_rules);
	tcase_add_test(tc, too_long_path);
	suite_add_tcase(s, tc);

	tc = tcase_create("decide2");
	tcase_add_loop_test(tc, decide2_table, 0, ND2ROWS);
	suite_add_tcase(s, tc);

	tc = tcase_create("default");
	tcase_add_loop_test(tc, default_table, 0, NDEFROWS);
	suite_add_tcase(s, tc);

	tc = tcase_create("blob");
	tcase_add_test(tc, blob_round_trip);
	tcase_add_test(tc, blob_flipped_byte);
	tcase_add_test(tc, blob_truncated);
	suite_add_tcase(s, tc);

	tc = tcase_create("big");
	tcase_add_test(tc, big_policy);
	suite_add_tcase(s, tc);

	tc = tcase_create("normalize");
	tcase_add_loop_test(tc, normalize_table, 0, NNORM);
	tcase_add_test(tc, normalize_in_place);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return test_run(decide_suite());
}
