/*
 * parse.c — policy text → rule list, then compile.
 *
 * The language (see jail.policy(5)):
 *     allow ACCESS PATTERN...      deny ACCESS PATTERN...
 *     include default | include PATH
 *     mode enforce | mode audit | mode ask
 *     log PATH
 *     net allow|deny HOST[:PORT]...   net none          (net.c)
 *     env scrub|keep PATTERN...                         (env.c)
 * `#` at the start of a token begins a comment; a token may be written in
 * double quotes (with \" and \\ inside) when it contains blanks.
 *
 * Invariants:
 *  1. Every error names FILE:LINE:COLUMN (1-based, in bytes) of the token at
 *     fault, says what was expected, and loads nothing.
 *  2. The only OS calls are those that read policy files (open, fstat, read,
 *     close); canonicalization is the caller's function (opts->canon).
 *  3. Patterns are stored absolute and lexically normalized; the variables
 *     ~ {home} {cwd} {tmp} are expanded once, here, and never at decide time.
 */
#include "build.h"
#include "blob.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define MAX_INCLUDE_DEPTH 16
#define MAX_POLICY_BYTES (64u << 20)
#define MAX_STARSTAR 8
#define DEFAULT_NAME "<default>"

struct token {
	char *text;      /* unquoted */
	const char *raw; /* as written, within the line */
	uint32_t rawlen;
	uint32_t col;
	int quoted;
};

struct frame {
	unsigned long long id[2]; /* device, inode */
	int is_default;
};

struct parser {
	const struct jail_load_opts *opts;
	struct jail_build *b;
	struct jail_error *err;
	struct frame stack[MAX_INCLUDE_DEPTH];
	int depth;
	/* where we are */
	const char *file;
	uint32_t file_idx;
	uint32_t line;
};

static int fail(struct parser *ps, uint32_t col, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

static int fail(struct parser *ps, uint32_t col, const char *fmt, ...)
{
	va_list ap;
	snprintf(ps->err->file, sizeof(ps->err->file), "%s", ps->file);
	ps->err->line = ps->line;
	ps->err->col = col;
	va_start(ap, fmt);
	vsnprintf(ps->err->msg, sizeof(ps->err->msg), fmt, ap);
	va_end(ap);
	return -1;
}

static int oom(struct parser *ps)
{
	return fail(ps, 1, "out of memory");
}

void jail_error_format(const struct jail_error *err, char *buf, size_t bufsz)
{
	snprintf(buf, bufsz, "%s:%u:%u: %s", err->file, err->line, err->col, err->msg);
}

/* ---- tokens ---- */

static int is_blank(char c)
{
	return c == ' ' || c == '\t';
}

static void free_tokens(struct token *t, uint32_t n)
{
	for (uint32_t i = 0; i < n; i++)
		free(t[i].text);
	free(t);
}

/* Reads a quoted token starting at line[i] == '"'. */
static int quoted_token(struct parser *ps, const char *line, size_t len, size_t *i, struct token *t)
{
	size_t j = *i + 1, n = 0;
	char *o = malloc(len + 1);
	if (!o)
		return oom(ps);
	while (j < len && line[j] != '"') {
		if (line[j] == '\\' && j + 1 < len && (line[j + 1] == '"' || line[j + 1] == '\\'))
			j++;
		o[n++] = line[j++];
	}
	o[n] = '\0';
	t->text = o;
	if (j >= len)
		return fail(ps, t->col, "unterminated quote: expected a closing '\"'");
	j++;
	if (j < len && !is_blank(line[j]))
		return fail(ps, (uint32_t)j + 1, "expected a blank after the closing quote");
	t->quoted = 1;
	*i = j;
	return 0;
}

static int plain_token(struct parser *ps, const char *line, size_t len, size_t *i, struct token *t)
{
	size_t j = *i;
	while (j < len && !is_blank(line[j])) {
		if (line[j] == '"') {
			free(t->text);
			t->text = NULL;
			return fail(ps, (uint32_t)j + 1, "unexpected '\"' inside a word: quote the whole pattern");
		}
		j++;
	}
	t->text = strndup(line + *i, j - *i);
	if (!t->text)
		return oom(ps);
	*i = j;
	return 0;
}

/* Control characters (but tab) have no place in a policy line: a stray
 * carriage return would otherwise become part of a pattern. Comments may
 * hold anything. */
static int check_controls(struct parser *ps, const char *line, size_t len)
{
	int quoted = 0;
	for (size_t i = 0; i < len; i++) {
		unsigned char c = (unsigned char)line[i];
		if (c == '"' && (i == 0 || line[i - 1] != '\\'))
			quoted = !quoted;
		if (!quoted && c == '#' && (i == 0 || line[i - 1] == ' ' || line[i - 1] == '\t'))
			return 0;
		if (c < 0x20 && c != '\t')
			return fail(ps, (uint32_t)i + 1, "unexpected control character 0x%02x: expected text", c);
	}
	return 0;
}

/* Splits one line (without its newline) into tokens; stops at a comment. */
static int tokenize(struct parser *ps, const char *line, size_t len, struct token **out, uint32_t *nout)
{
	struct token *v = NULL;
	uint32_t n = 0, cap = 0;
	size_t i = 0;
	if (check_controls(ps, line, len))
		return -1;
	for (;;) {
		while (i < len && is_blank(line[i]))
			i++;
		if (i >= len || line[i] == '#')
			break;
		if (n == cap) {
			cap = cap ? cap * 2 : 8;
			struct token *nv = realloc(v, cap * sizeof(*v));
			if (!nv)
				goto nomem;
			v = nv;
		}
		struct token *t = &v[n++];
		memset(t, 0, sizeof(*t));
		t->col = (uint32_t)i + 1;
		t->raw = line + i;
		int rc = line[i] == '"' ? quoted_token(ps, line, len, &i, t) : plain_token(ps, line, len, &i, t);
		if (rc) {
			free_tokens(v, n);
			return -1;
		}
		t->rawlen = (uint32_t)(line + i - t->raw);
	}
	*out = v;
	*nout = n;
	return 0;
nomem:
	free_tokens(v, n);
	return oom(ps);
}

/* ---- patterns ---- */

/* Expands a leading ~ / {var} / ** and checks the result is absolute. */
static int expand(struct parser *ps, const struct token *t, const char *what, char *out, size_t outsz)
{
	const char *s = t->text, *var = NULL, *rest = s, *vname = NULL;
	if (s[0] == '~') {
		if (s[1] != '\0' && s[1] != '/')
			return fail(ps, t->col, "'~user' is not supported: expected '~' or '~/...'");
		var = ps->opts->vars.home;
		vname = "~ ($HOME)";
		rest = s + 1;
	} else if (s[0] == '{') {
		const char *close = strchr(s, '}');
		size_t vl = close ? (size_t)(close - s + 1) : 0;
		if (vl == 6 && strncmp(s, "{home}", 6) == 0)
			var = ps->opts->vars.home, vname = "{home} ($HOME)";
		else if (vl == 5 && strncmp(s, "{cwd}", 5) == 0)
			var = ps->opts->vars.cwd, vname = "{cwd}";
		else if (vl == 5 && strncmp(s, "{tmp}", 5) == 0)
			var = ps->opts->vars.tmp, vname = "{tmp}";
		else
			return fail(ps, t->col, "unknown variable '%.*s': expected {home}, {cwd} or {tmp}",
			            close ? (int)vl : (int)strlen(s), s);
		rest = s + vl;
		if (*rest != '\0' && *rest != '/')
			return fail(ps, t->col + (uint32_t)vl, "expected '/' after %.*s", (int)vl, s);
	} else if (s[0] == '*' && s[1] == '*' && (s[2] == '\0' || s[2] == '/')) {
		var = "/";
		vname = "**";
	} else if (s[0] != '/') {
		return fail(ps, t->col,
		            "relative %s '%s': expected an absolute path, or one beginning with ~, {home}, {cwd}, "
		            "{tmp} or **",
		            what, s);
	}
	if (var == NULL && vname != NULL)
		return fail(ps, t->col, "%s is not set, so '%s' cannot be expanded", vname, s);
	if (var != NULL && var[0] != '/')
		return fail(ps, t->col, "%s is '%s', which is not an absolute path", vname, var);
	char joined[PATH_MAX * 2];
	int jn = snprintf(joined, sizeof(joined), "%s%s%s", var ? var : "", var && rest[0] ? "/" : "", rest);
	if (jn < 0 || (size_t)jn >= sizeof(joined) || jail_path_normalize(joined, out, outsz) < 0)
		return fail(ps, t->col, "%s too long: at most %d bytes", what, PATH_MAX - 1);
	return 0;
}

/* Checks glob syntax and the number of ** per pattern. */
static int check_globs(struct parser *ps, const struct token *t, const char *pat)
{
	unsigned starstar = 0;
	for (const char *c = pat; *c;) {
		while (*c == '/')
			c++;
		const char *s = c;
		while (*c && *c != '/')
			c++;
		uint32_t len = (uint32_t)(c - s);
		if (len == 2 && s[0] == '*' && s[1] == '*')
			starstar++;
		else if (len && jail_glob_check(s, len))
			return fail(ps, t->col, "unterminated character class in '%s': expected ']'", t->text);
	}
	if (starstar > MAX_STARSTAR)
		return fail(ps, t->col, "too many '**' in one pattern: at most %d", MAX_STARSTAR);
	return 0;
}

/* Escapes glob characters of a literal path so it can head a pattern. */
static int escape_into(const char *s, char *out, size_t outsz)
{
	size_t n = 0;
	for (; *s; s++) {
		if (n + 3 > outsz)
			return -1;
		if (*s == '*' || *s == '?' || *s == '[' || *s == '\\')
			out[n++] = '\\';
		out[n++] = *s;
	}
	out[n] = '\0';
	return 0;
}

/* The pattern with its existing leading directories canonicalized, or NULL
 * when canonicalization changes nothing (or is unavailable). */
static char *canonical_of(struct parser *ps, const char *pat)
{
	if (!ps->opts->canon)
		return NULL;
	char lit[PATH_MAX], canon[PATH_MAX], esc[PATH_MAX * 2];
	size_t n = 0;
	const char *c = pat, *rest = pat + strlen(pat);
	/* literal prefix: the components before the first glob one, unescaped */
	while (*c) {
		const char *slash = c;
		while (*c == '/')
			c++;
		const char *s = c;
		while (*c && *c != '/')
			c++;
		uint32_t len = (uint32_t)(c - s);
		if (len == 0)
			break;
		if ((len == 2 && s[0] == '*' && s[1] == '*') || jail_glob_has_magic(s, len)) {
			rest = slash;
			break;
		}
		if (n + len + 2 >= sizeof(lit))
			return NULL;
		lit[n++] = '/';
		for (uint32_t i = 0; i < len; i++) {
			if (s[i] == '\\' && i + 1 < len)
				i++;
			lit[n++] = s[i];
		}
	}
	if (n == 0)
		lit[n++] = '/';
	lit[n] = '\0';
	if (ps->opts->canon(lit, canon, sizeof(canon), ps->opts->canon_ctx) != 0 || strcmp(canon, lit) == 0)
		return NULL;
	if (escape_into(strcmp(canon, "/") == 0 && *rest ? "" : canon, esc, sizeof(esc)))
		return NULL;
	char *r = malloc(strlen(esc) + strlen(rest) + 1);
	if (r) {
		strcpy(r, esc);
		strcat(r, rest);
	}
	return r;
}

/* ---- directives ---- */

static int add_rule(struct parser *ps, enum jail_effect e, unsigned access, const struct token *kw,
                    const struct token *acc, const struct token *pat)
{
	char expanded[PATH_MAX];
	if (expand(ps, pat, "pattern", expanded, sizeof(expanded)) || check_globs(ps, pat, expanded))
		return -1;
	struct jail_build *b = ps->b;
	if (b->nrules == b->caprules) {
		uint32_t cap = b->caprules ? b->caprules * 2 : 32;
		struct jail_brule *v = realloc(b->rules, cap * sizeof(*v));
		if (!v)
			return oom(ps);
		b->rules = v;
		b->caprules = cap;
	}
	struct jail_brule *r = &b->rules[b->nrules];
	memset(r, 0, sizeof(*r));
	r->effect = e;
	r->access = access;
	r->file = ps->file_idx;
	r->line = ps->line;
	r->col = pat->col;
	r->pattern = strdup(expanded);
	r->canonical = canonical_of(ps, expanded);
	size_t tl = kw->rawlen + acc->rawlen + pat->rawlen + 3;
	r->text = malloc(tl);
	if (r->text)
		snprintf(r->text, tl, "%.*s %.*s %.*s", (int)kw->rawlen, kw->raw, (int)acc->rawlen, acc->raw,
		         (int)pat->rawlen, pat->raw);
	b->nrules++; /* counted even when incomplete, so jail_build_free() frees it */
	if (!r->pattern || !r->text)
		return oom(ps);
	return 0;
}

static int parse_access(struct parser *ps, const struct token *t, unsigned *out)
{
	static const struct {
		const char *w;
		unsigned bits;
	} words[] = {{"read", JAIL_READ}, {"write", JAIL_WRITE}, {"exec", JAIL_EXEC}, {"all", JAIL_ACCESS_ALL}};
	const char *s = t->text;
	*out = 0;
	for (;;) {
		const char *e = strchr(s, ',');
		size_t len = e ? (size_t)(e - s) : strlen(s);
		uint32_t col = t->col + (uint32_t)(s - t->text) + (uint32_t)t->quoted;
		unsigned i;
		if (len == 0)
			return fail(ps, col, "expected an access (read, write, exec or all)");
		for (i = 0; i < sizeof(words) / sizeof(words[0]); i++)
			if (strlen(words[i].w) == len && strncmp(words[i].w, s, len) == 0)
				break;
		if (i == sizeof(words) / sizeof(words[0]))
			return fail(ps, col, "unknown access '%.*s': expected read, write, exec or all", (int)len, s);
		*out |= words[i].bits;
		if (!e)
			return 0;
		s = e + 1;
	}
}

static int end_col(const struct token *t, uint32_t n)
{
	return (int)(t[n - 1].col + t[n - 1].rawlen + 1);
}

static int do_rule(struct parser *ps, enum jail_effect e, const struct token *t, uint32_t n)
{
	unsigned access;
	if (n < 2)
		return fail(ps, (uint32_t)end_col(t, n), "expected an access (read, write, exec or all) after '%s'",
		            t[0].text);
	if (parse_access(ps, &t[1], &access))
		return -1;
	if (n < 3)
		return fail(ps, (uint32_t)end_col(t, n), "expected a pattern after '%s %s'", t[0].text, t[1].text);
	for (uint32_t i = 2; i < n; i++)
		if (add_rule(ps, e, access, &t[0], &t[1], &t[i]))
			return -1;
	return 0;
}

static int one_argument(struct parser *ps, const struct token *t, uint32_t n, const char *expected)
{
	if (n < 2)
		return fail(ps, (uint32_t)end_col(t, n), "expected %s after '%s'", expected, t[0].text);
	if (n > 2)
		return fail(ps, t[2].col, "unexpected '%s': '%s' takes one argument", t[2].text, t[0].text);
	return 0;
}

static int do_mode(struct parser *ps, const struct token *t, uint32_t n)
{
	if (one_argument(ps, t, n, "'enforce', 'audit' or 'ask'"))
		return -1;
	if (strcmp(t[1].text, "enforce") == 0)
		ps->b->mode = JAIL_MODE_ENFORCE;
	else if (strcmp(t[1].text, "audit") == 0)
		ps->b->mode = JAIL_MODE_AUDIT;
	else if (strcmp(t[1].text, "ask") == 0)
		ps->b->mode = JAIL_MODE_ASK;
	else
		return fail(ps, t[1].col, "unknown mode '%s': expected 'enforce', 'audit' or 'ask'", t[1].text);
	return 0;
}

static int do_kernel(struct parser *ps, const struct token *t, uint32_t n)
{
	static const char *const words[] = {"auto", "require", "off", "strict"}; /* enum jail_kernel's order */
	if (one_argument(ps, t, n, "'auto', 'require', 'strict' or 'off'"))
		return -1;
	for (int i = 0; i < 4; i++)
		if (strcmp(t[1].text, words[i]) == 0) {
			ps->b->kernel = (enum jail_kernel)i;
			return 0;
		}
	return fail(ps, t[1].col, "unknown kernel setting '%s': expected 'auto', 'require', 'strict' or 'off'",
	            t[1].text);
}

static int do_log(struct parser *ps, const struct token *t, uint32_t n)
{
	char path[PATH_MAX];
	if (one_argument(ps, t, n, "a log file path") || expand(ps, &t[1], "log path", path, sizeof(path)))
		return -1;
	free(ps->b->log);
	ps->b->log = strdup(path);
	return ps->b->log ? 0 : oom(ps);
}

/* ---- net and env ---- */

static struct jail_bxrule *new_xrule(struct parser *ps, const struct token *t, uint32_t nt, uint32_t arg)
{
	struct jail_build *b = ps->b;
	if (b->nxrules == b->capxrules) {
		uint32_t cap = b->capxrules ? b->capxrules * 2 : 32;
		struct jail_bxrule *v = realloc(b->xrules, cap * sizeof(*v));
		if (!v)
			return oom(ps), NULL;
		b->xrules = v;
		b->capxrules = cap;
	}
	struct jail_bxrule *r = &b->xrules[b->nxrules++]; /* counted now, so jail_build_free() frees it */
	memset(r, 0, sizeof(*r));
	r->file = ps->file_idx;
	r->line = ps->line;
	r->col = nt > arg ? t[arg].col : t[0].col;
	size_t tl = t[0].rawlen + t[1].rawlen + (nt > arg ? t[arg].rawlen : 0) + 3;
	r->text = malloc(tl);
	if (!r->text)
		return oom(ps), NULL;
	if (nt > arg)
		snprintf(r->text, tl, "%.*s %.*s %.*s", (int)t[0].rawlen, t[0].raw, (int)t[1].rawlen, t[1].raw,
		         (int)t[arg].rawlen, t[arg].raw);
	else
		snprintf(r->text, tl, "%.*s %.*s", (int)t[0].rawlen, t[0].raw, (int)t[1].rawlen, t[1].raw);
	return r;
}

static int do_net(struct parser *ps, const struct token *t, uint32_t n)
{
	if (n < 2)
		return fail(ps, (uint32_t)end_col(t, n), "expected 'allow', 'deny' or 'none' after 'net'");
	if (strcmp(t[1].text, "none") == 0) {
		if (n > 2)
			return fail(ps, t[2].col, "unexpected '%s': 'net none' takes no argument", t[2].text);
		struct jail_bxrule *r = new_xrule(ps, t, n, 2);
		if (!r)
			return -1;
		r->kind = JAIL_X_NET;
		r->effect = JAIL_DENY;
		r->host = JAIL_HOST_ADDR; /* prefix 0: every address, the catch-all */
		r->port_hi = 65535;
		ps->b->net = JAIL_NET_MODE_NONE;
		return 0;
	}
	enum jail_effect e;
	if (strcmp(t[1].text, "allow") == 0)
		e = JAIL_ALLOW;
	else if (strcmp(t[1].text, "deny") == 0)
		e = JAIL_DENY;
	else
		return fail(ps, t[1].col, "unknown net rule '%s': expected 'allow', 'deny' or 'none'", t[1].text);
	if (n < 3)
		return fail(ps, (uint32_t)end_col(t, n), "expected a host (name, *.name, address, range, loopback, "
		                                         "private or *) after 'net %s'", t[1].text);
	for (uint32_t i = 2; i < n; i++) {
		struct jail_bxrule parsed[JAIL_NET_MAX_EXPAND];
		unsigned np = 0;
		const char *why = NULL;
		uint32_t at = 0;
		if (jail_net_parse(t[i].text, parsed, &np, &why, &at))
			return fail(ps, t[i].col + at + (uint32_t)t[i].quoted, "%s in '%s'", why, t[i].text);
		for (unsigned k = 0; k < np; k++) {
			struct jail_bxrule *r = new_xrule(ps, t, n, i);
			if (!r) {
				for (unsigned j = k; j < np; j++)
					free(parsed[j].pat);
				return -1;
			}
			char *text = r->text;
			*r = parsed[k];
			r->text = text;
			r->file = ps->file_idx;
			r->line = ps->line;
			r->col = t[i].col;
			r->kind = JAIL_X_NET;
			r->effect = (uint8_t)e;
		}
		if (e == JAIL_ALLOW && ps->b->net == JAIL_NET_MODE_OPEN)
			ps->b->net = JAIL_NET_MODE_ALLOWLIST;
	}
	return 0;
}

static int do_env(struct parser *ps, const struct token *t, uint32_t n)
{
	int kind;
	if (n < 2)
		return fail(ps, (uint32_t)end_col(t, n), "expected 'scrub' or 'keep' after 'env'");
	if (strcmp(t[1].text, "scrub") == 0)
		kind = JAIL_X_ENV_SCRUB;
	else if (strcmp(t[1].text, "keep") == 0)
		kind = JAIL_X_ENV_KEEP;
	else
		return fail(ps, t[1].col, "unknown env rule '%s': expected 'scrub' or 'keep'", t[1].text);
	if (n < 3)
		return fail(ps, (uint32_t)end_col(t, n), "expected a variable name or pattern after 'env %s'", t[1].text);
	for (uint32_t i = 2; i < n; i++) {
		const char *s = t[i].text;
		size_t len = strlen(s);
		for (size_t k = 0; k < len; k++)
			if (s[k] == '=' || s[k] == ' ' || s[k] == '\t')
				return fail(ps, t[i].col + (uint32_t)k + (uint32_t)t[i].quoted,
				            "unexpected '%c' in a variable name pattern", s[k]);
		if (len == 0)
			return fail(ps, t[i].col, "expected a variable name or pattern");
		if (jail_glob_check(s, (uint32_t)len))
			return fail(ps, t[i].col, "unterminated character class in '%s': expected ']'", s);
		struct jail_bxrule *r = new_xrule(ps, t, n, i);
		if (!r)
			return -1;
		r->kind = (uint8_t)kind;
		r->pat = strdup(s);
		if (!r->pat)
			return oom(ps);
		for (char *c = r->pat; *c; c++)
			if (*c >= 'A' && *c <= 'Z')
				*c = (char)(*c - 'A' + 'a');
	}
	return 0;
}

static int parse_text(struct parser *ps, const char *name, const char *text, size_t len, int is_file);
static int parse_file(struct parser *ps, const char *path, uint32_t col);

static int do_include(struct parser *ps, const struct token *t, uint32_t n, const char *cur, int cur_is_file)
{
	if (one_argument(ps, t, n, "'default' or a policy file path"))
		return -1;
	if (!t[1].quoted && strcmp(t[1].text, "default") == 0) {
		for (int i = 0; i < ps->depth; i++)
			if (ps->stack[i].is_default)
				return fail(ps, t[1].col, "include cycle: the default policy is already being read");
		return parse_text(ps, DEFAULT_NAME, jail_default_policy_text, strlen(jail_default_policy_text), 0);
	}
	char path[PATH_MAX];
	const char *s = t[1].text;
	if (s[0] == '/' || s[0] == '~' || s[0] == '{') {
		if (expand(ps, &t[1], "include path", path, sizeof(path)))
			return -1;
	} else {
		if (!cur_is_file)
			return fail(ps, t[1].col, "relative include '%s' in a policy that is not a file: expected an "
			                          "absolute path", s);
		const char *slash = strrchr(cur, '/');
		int dl = slash ? (int)(slash - cur) : 1;
		const char *dir = slash ? cur : ".";
		int pn = snprintf(path, sizeof(path), "%.*s/%s", dl, dir, s);
		if (pn < 0 || (size_t)pn >= sizeof(path))
			return fail(ps, t[1].col, "include path too long");
	}
	return parse_file(ps, path, t[1].col);
}

static int directive(struct parser *ps, const struct token *t, uint32_t n, const char *cur, int cur_is_file)
{
	const char *k = t[0].text;
	if (t[0].quoted)
		return fail(ps, t[0].col,
		            "expected a keyword (allow, deny, include, mode, log, kernel, net or env), not a quoted word");
	if (strcmp(k, "allow") == 0)
		return do_rule(ps, JAIL_ALLOW, t, n);
	if (strcmp(k, "deny") == 0)
		return do_rule(ps, JAIL_DENY, t, n);
	if (strcmp(k, "include") == 0)
		return do_include(ps, t, n, cur, cur_is_file);
	if (strcmp(k, "mode") == 0)
		return do_mode(ps, t, n);
	if (strcmp(k, "log") == 0)
		return do_log(ps, t, n);
	if (strcmp(k, "kernel") == 0)
		return do_kernel(ps, t, n);
	if (strcmp(k, "net") == 0)
		return do_net(ps, t, n);
	if (strcmp(k, "env") == 0)
		return do_env(ps, t, n);
	return fail(ps, t[0].col, "unknown keyword '%s': expected allow, deny, include, mode, log, kernel, net or env",
	            k);
}

static int add_file_name(struct parser *ps, const char *name)
{
	struct jail_build *b = ps->b;
	for (uint32_t i = 0; i < b->nfiles; i++)
		if (strcmp(b->files[i], name) == 0) {
			ps->file_idx = i;
			return 0;
		}
	if (b->nfiles == b->capfiles) {
		uint32_t cap = b->capfiles ? b->capfiles * 2 : 8;
		char **v = realloc(b->files, cap * sizeof(*v));
		if (!v)
			return oom(ps);
		b->files = v;
		b->capfiles = cap;
	}
	b->files[b->nfiles] = strdup(name);
	if (!b->files[b->nfiles])
		return oom(ps);
	ps->file_idx = b->nfiles++;
	return 0;
}

/* Parses one source. Saves and restores the parser's position so that an
 * include returns to its includer's file and line. */
static int parse_text(struct parser *ps, const char *name, const char *text, size_t len, int is_file)
{
	const char *saved_file = ps->file;
	uint32_t saved_idx = ps->file_idx, saved_line = ps->line;
	int rc = 0;

	if (!is_file) {
		if (ps->depth == MAX_INCLUDE_DEPTH)
			return fail(ps, 1, "includes nested more than %d deep", MAX_INCLUDE_DEPTH);
		ps->stack[ps->depth++] = (struct frame){.is_default = strcmp(name, DEFAULT_NAME) == 0};
	}
	ps->file = name;
	ps->line = 0;
	if (add_file_name(ps, name)) {
		rc = -1;
		goto out;
	}
	for (size_t pos = 0; pos <= len && rc == 0;) {
		const char *nl = memchr(text + pos, '\n', len - pos);
		size_t ll = nl ? (size_t)(nl - (text + pos)) : len - pos;
		ps->line++;
		const char *nul = memchr(text + pos, '\0', ll);
		if (nul) {
			rc = fail(ps, (uint32_t)(nul - (text + pos)) + 1, "unexpected NUL byte: expected text");
			break;
		}
		size_t eff = ll;
		if (eff && text[pos + eff - 1] == '\r')
			eff--;
		struct token *t = NULL;
		uint32_t n = 0;
		rc = tokenize(ps, text + pos, eff, &t, &n);
		if (rc == 0 && n > 0)
			rc = directive(ps, t, n, name, is_file);
		if (t)
			free_tokens(t, n);
		if (!nl)
			break;
		pos += ll + 1;
	}
out:
	if (!is_file)
		ps->depth--;
	if (rc == 0) {
		ps->file = saved_file;
		ps->file_idx = saved_idx;
		ps->line = saved_line;
	}
	return rc;
}

static int read_all(int fd, char **out, size_t *len)
{
	size_t cap = 4096, n = 0;
	char *buf = malloc(cap);
	if (!buf)
		return -ENOMEM;
	for (;;) {
		if (n + 1 >= cap) {
			if (cap > MAX_POLICY_BYTES) {
				free(buf);
				return -EFBIG;
			}
			char *nb = realloc(buf, cap * 2);
			if (!nb) {
				free(buf);
				return -ENOMEM;
			}
			buf = nb;
			cap *= 2;
		}
		ssize_t r = read(fd, buf + n, cap - n - 1);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			int e = errno;
			free(buf);
			return -e;
		}
		if (r == 0)
			break;
		n += (size_t)r;
	}
	buf[n] = '\0';
	*out = buf;
	*len = n;
	return 0;
}

int jail_read_file(const char *path, char **text, size_t *len, unsigned long long id[2])
{
	struct stat st;
	int rc, fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY);
	memset(&st, 0, sizeof(st));
	if (fd < 0)
		return -errno;
	if (fstat(fd, &st) != 0)
		rc = -errno;
	else if (!S_ISREG(st.st_mode))
		rc = -EINVAL;
	else if ((unsigned long long)st.st_size > MAX_POLICY_BYTES)
		rc = -EFBIG;
	else
		rc = read_all(fd, text, len);
	close(fd);
	id[0] = (unsigned long long)st.st_dev;
	id[1] = (unsigned long long)st.st_ino;
	return rc;
}

const struct jail_policy *jail_policy_read_blob(const char *path)
{
	char *text = NULL;
	size_t len = 0;
	unsigned long long id[2];
	if (jail_read_file(path, &text, &len, id) != 0)
		return NULL;
	void *copy = aligned_alloc(8, (len + 7) & ~(size_t)7);
	if (copy)
		memcpy(copy, text, len);
	free(text);
	const struct jail_policy *p = copy ? jail_policy_from_blob(copy, len) : NULL;
	if (!p)
		free(copy);
	return p;
}

static const char *read_error(int e)
{
	return e == -EINVAL ? "not a regular file" : e == -EFBIG ? "larger than 64 MiB" : strerror(-e);
}

/* Reads and parses a policy file; col is where its name was written (an
 * include's argument), 0 for a top-level source. */
static int parse_file(struct parser *ps, const char *path, uint32_t col)
{
	jail_read_fn reader = ps->opts->read ? ps->opts->read : jail_read_file;
	unsigned long long id[2] = {0, 0};
	char *text = NULL;
	size_t len = 0;
	int rc;

	if (ps->depth == MAX_INCLUDE_DEPTH)
		return fail(ps, col ? col : 1, "includes nested more than %d deep", MAX_INCLUDE_DEPTH);
	rc = reader(path, &text, &len, id);
	if (rc) {
		if (col)
			return fail(ps, col, "cannot read included policy '%s': %s", path, read_error(rc));
		ps->file = path;
		ps->line = 1;
		return fail(ps, 1, "cannot read policy file: %s", read_error(rc));
	}
	for (int i = 0; i < ps->depth; i++)
		if (!ps->stack[i].is_default && ps->stack[i].id[0] == id[0] && ps->stack[i].id[1] == id[1]) {
			free(text);
			return fail(ps, col ? col : 1, "include cycle: '%s' is already being read", path);
		}
	ps->stack[ps->depth++] = (struct frame){.id = {id[0], id[1]}};
	rc = parse_text(ps, path, text, len, 1);
	ps->depth--;
	free(text);
	return rc;
}

void jail_build_free(struct jail_build *b)
{
	for (uint32_t i = 0; i < b->nrules; i++) {
		free(b->rules[i].text);
		free(b->rules[i].pattern);
		free(b->rules[i].canonical);
	}
	free(b->rules);
	for (uint32_t i = 0; i < b->nfiles; i++)
		free(b->files[i]);
	free(b->files);
	free(b->log);
	for (uint32_t i = 0; i < b->nxrules; i++) {
		free(b->xrules[i].text);
		free(b->xrules[i].pat);
	}
	free(b->xrules);
	memset(b, 0, sizeof(*b));
}

int jail_policy_load(const struct jail_load_opts *opts, const struct jail_source *src, size_t nsrc,
                     struct jail_policy **out, struct jail_error *err)
{
	struct jail_build b = {0};
	struct parser ps = {.opts = opts, .b = &b, .err = err, .file = ""};
	int rc = 0;

	*out = NULL;
	memset(err, 0, sizeof(*err));
	for (size_t i = 0; i < nsrc && rc == 0; i++) {
		ps.line = 0;
		if (src[i].text)
			rc = parse_text(&ps, src[i].name, src[i].text, strlen(src[i].text), 0);
		else
			rc = parse_file(&ps, src[i].name, 0);
	}
	if (rc == 0) {
		*out = jail_compile(&b, err);
		rc = *out ? 0 : -1;
	}
	jail_build_free(&b);
	return rc;
}
