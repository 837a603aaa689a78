/*
 * learn.c — jailrun --learn: turn an audit run's log into a policy that
 * would have allowed what the run did.
 *
 * Invariants:
 *  1. Never a grant on a credential location: a path, or a directory
 *     holding one, that the built-in default (or the base policy) denies by
 *     rule is not granted; the file says so in a comment instead.
 *  2. Grants are grouped into directories a person can review: the
 *     directory of each file used, and a parent when three or more of its
 *     directories are used, as long as the wider grant stays clear of every
 *     denied location.
 *  3. Every rule is commented with what needed it.
 */
#define _GNU_SOURCE
#include "learn.h"
#include "policy.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#define MAX_ENTRIES 100000

struct use {
	enum jail_access access; /* read, write or exec (meta counts as read) */
	char *path;
	char *dir;   /* what to grant: a directory, or the path itself */
	int count;   /* uses folded into this grant */
	int dropped; /* folded into a wider grant, or refused */
	char why[PATH_MAX + 128];
};

/* The value of "key":"..." in a JSON line written by the shim (check.c). */
static int json_string(const char *line, const char *key, char *out, size_t outsz)
{
	char pat[64];
	snprintf(pat, sizeof(pat), "\"%s\":\"", key);
	const char *p = strstr(line, pat);
	size_t n = 0;
	if (!p)
		return -1;
	for (p += strlen(pat); *p && *p != '"' && n + 1 < outsz; p++) {
		if (*p == '\\' && p[1] == 'u' && p[2] && p[3] && p[4] && p[5]) {
			out[n++] = (char)strtol((char[]){p[4], p[5], 0}, NULL, 16);
			p += 5;
		} else if (*p == '\\' && p[1]) {
			out[n++] = *++p;
		} else {
			out[n++] = *p;
		}
	}
	out[n] = '\0';
	return 0;
}

static enum jail_access access_of(const char *word)
{
	enum jail_access a = jail_access_parse(word);
	return a == JAIL_META ? JAIL_READ : a;
}

static void parent_of(const char *path, char *out, size_t outsz)
{
	snprintf(out, outsz, "%s", path);
	char *slash = strrchr(out, '/');
	if (slash == out)
		out[1] = '\0';
	else if (slash)
		*slash = '\0';
}

/* The access whose denies also refuse `a` (a read deny refuses everything). */
static int deny_covers(unsigned rule_access, enum jail_access a)
{
	return (rule_access & JAIL_READ) || (rule_access & (unsigned)a);
}

/* A reason not to grant `a` on `path` and beneath it: a deny rule of `p`
 * decides it, or lies beneath it. NULL when the grant is clear. */
const char *jail_grant_refusal(const struct jail_policy *p, enum jail_access a, const char *path, char *buf,
                               size_t bufsz)
{
	struct jail_decision d = jail_decide(p, a, path);
	if (d.verdict == JAIL_DENY && d.reason == JAIL_BY_RULE) {
		jail_rule_describe(p, d.rule, buf, bufsz);
		return buf;
	}
	size_t n = strlen(path);
	for (uint32_t i = 0; i < jail_rule_count(p); i++) {
		int32_t r = (int32_t)i;
		const char *pat = jail_rule_pattern(p, r);
		if (jail_rule_effect(p, r) != JAIL_DENY || !deny_covers(jail_rule_access(p, r), a))
			continue;
		/* Anywhere-rules (**) keep applying beneath any grant: they are more
		 * specific than it. A deny rooted beneath the grant would lose to
		 * nothing, but a person reading "allow DIR" would not see it. */
		if (strncmp(pat, "/**/", 4) == 0)
			continue;
		if (strncmp(pat, path, n) == 0 && (pat[n] == '/' || n == 1)) {
			jail_rule_describe(p, r, buf, bufsz);
			return buf;
		}
	}
	return NULL;
}

static const char *refused_by(const struct jail_policy *const *checks, size_t nchecks, enum jail_access a,
                              const char *path, char *buf, size_t bufsz)
{
	for (size_t i = 0; i < nchecks; i++) {
		const char *why = jail_grant_refusal(checks[i], a, path, buf, bufsz);
		if (why)
			return why;
	}
	return NULL;
}

static int cmp_use(const void *x, const void *y)
{
	const struct use *a = x, *b = y;
	if (a->access != b->access)
		return (int)a->access - (int)b->access;
	return strcmp(a->dir, b->dir);
}

static int is_dir(const char *path)
{
	struct stat st;
	return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

/* Writes a pattern for a literal path: quoted, glob characters escaped. */
static void put_pattern(FILE *f, const char *path)
{
	fputc('"', f);
	for (const char *c = path; *c; c++) {
		if (*c == '"')
			fputs("\\\"", f);
		else if (*c == '\\')
			fputs("\\\\\\\\", f); /* a literal backslash: escaped for the glob, then for the quotes */
		else if (*c == '*' || *c == '?' || *c == '[') {
			fputs("\\\\", f);
			fputc(*c, f);
		} else
			fputc(*c, f);
	}
	fputc('"', f);
}

static size_t read_log(const char *log, struct use *uses)
{
	FILE *f = fopen(log, "r");
	char *line = NULL, word[32], path[PATH_MAX];
	size_t cap = 0, n = 0;
	if (!f)
		return 0;
	while (getline(&line, &cap, f) > 0 && n < MAX_ENTRIES) {
		if (json_string(line, "access", word, sizeof(word)) != 0 ||
		    (json_string(line, "resolved", path, sizeof(path)) != 0 || path[0] != '/'))
			continue;
		enum jail_access a = access_of(word);
		if (a == 0)
			continue;
		int dup = 0;
		for (size_t i = 0; i < n && !dup; i++)
			dup = uses[i].access == a && strcmp(uses[i].path, path) == 0;
		if (dup)
			continue;
		uses[n].access = a;
		uses[n].path = strdup(path);
		uses[n].count = 1;
		n++;
	}
	free(line);
	fclose(f);
	return n;
}

/* Folds three or more grants under one parent into the parent, when clear. */
static void fold_siblings(struct use *u, size_t n, const struct jail_policy *const *checks, size_t nchecks)
{
	char parent[PATH_MAX], buf[PATH_MAX];
	for (size_t i = 0; i < n; i++) {
		if (u[i].dropped)
			continue;
		parent_of(u[i].dir, parent, sizeof(parent));
		size_t same = 0;
		for (size_t k = 0; k < n; k++)
			if (!u[k].dropped && u[k].access == u[i].access) {
				char pk[PATH_MAX];
				parent_of(u[k].dir, pk, sizeof(pk));
				same += strcmp(pk, parent) == 0 && strcmp(u[k].dir, parent) != 0;
			}
		if (same < 3 || strcmp(parent, "/") == 0 || refused_by(checks, nchecks, u[i].access, parent, buf, sizeof(buf)))
			continue;
		for (size_t k = 0; k < n; k++) {
			char pk[PATH_MAX];
			parent_of(u[k].dir, pk, sizeof(pk));
			if (k != i && !u[k].dropped && u[k].access == u[i].access && strcmp(pk, parent) == 0) {
				u[i].count += u[k].count;
				u[k].dropped = 1;
			}
		}
		free(u[i].dir);
		u[i].dir = strdup(parent);
	}
}

/* Drops grants already covered by a wider grant of the same access. */
static void drop_covered(struct use *u, size_t n)
{
	for (size_t i = 0; i < n; i++)
		for (size_t k = 0; k < n; k++) {
			if (i == k || u[i].dropped || u[k].dropped || u[i].access != u[k].access)
				continue;
			size_t l = strlen(u[k].dir);
			if (strncmp(u[i].dir, u[k].dir, l) == 0 &&
			    (u[i].dir[l] == '\0' ? i > k : (u[i].dir[l] == '/' || l == 1))) {
				u[k].count += u[i].count;
				u[i].dropped = 1;
			}
		}
}

int jail_learn(const struct jail_policy *base, const struct jail_policy *defp, const char *log, const char *out,
               const char *const *includes, size_t nincludes, const char *command)
{
	struct use *u = calloc(MAX_ENTRIES, sizeof(*u));
	char buf[PATH_MAX];
	if (!u)
		return -1;
	const struct jail_policy *checks[2] = {defp, base};
	size_t n = read_log(log, u);

	/* what to grant for each use: the directory of a file, or a directory itself */
	for (size_t i = 0; i < n; i++) {
		const char *why = refused_by(checks, 2, u[i].access, u[i].path, buf, sizeof(buf));
		if (why) {
			snprintf(u[i].why, sizeof(u[i].why), "%s", why);
			u[i].dropped = 2;
			u[i].dir = strdup(u[i].path);
			continue;
		}
		char parent[PATH_MAX];
		parent_of(u[i].path, parent, sizeof(parent));
		int use_parent = !is_dir(u[i].path) && u[i].access != JAIL_EXEC &&
		                 !refused_by(checks, 2, u[i].access, parent, buf, sizeof(buf)) && strcmp(parent, "/") != 0;
		u[i].dir = strdup(use_parent ? parent : u[i].path);
	}
	fold_siblings(u, n, checks, 2);
	drop_covered(u, n);
	qsort(u, n, sizeof(*u), cmp_use);

	FILE *f = fopen(out, "w");
	if (!f) {
		fprintf(stderr, "jailrun: cannot write %s: %s\n", out, strerror(errno));
		return -1;
	}
	time_t now = time(NULL);
	char when[64];
	strftime(when, sizeof(when), "%Y-%m-%d %H:%M:%S", localtime(&now));
	fprintf(f, "# policy learned by jailrun --learn on %s\n# from: ", when);
	for (const char *c = command; *c; c++)
		fputc(*c == '\n' || *c == '\r' ? ' ' : *c, f);
	fputc('\n', f);
	fprintf(f, "# Review it before use: each grant says what needed it.\n\n");
	if (nincludes == 0)
		fprintf(f, "include default\n");
	for (size_t i = 0; i < nincludes; i++) {
		fputs("include ", f);
		put_pattern(f, includes[i]);
		fputc('\n', f);
	}
	size_t grants = 0, refused = 0;
	for (size_t i = 0; i < n; i++) {
		if (u[i].dropped == 2) {
			fprintf(f, "\n# not granted: %s %s\n#   (a credential or protected location: %s)\n",
			        jail_access_name(u[i].access), u[i].path, u[i].why);
			refused++;
		} else if (!u[i].dropped) {
			fprintf(f, "\n# %s: %d path%s, e.g. %s\nallow %s ", jail_access_name(u[i].access), u[i].count,
			        u[i].count == 1 ? "" : "s", u[i].path, jail_access_name(u[i].access));
			put_pattern(f, u[i].dir);
			fputc('\n', f);
			grants++;
		}
	}
	fclose(f);
	fprintf(stderr, "jailrun: learned %zu grant%s (%zu refused as credential or protected locations) into %s\n",
	        grants, grants == 1 ? "" : "s", refused, out);
	for (size_t i = 0; i < n; i++) {
		free(u[i].path);
		free(u[i].dir);
	}
	free(u);
	return 0;
}
