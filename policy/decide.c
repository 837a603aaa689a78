/*
 * decide.c — answering "may ACCESS happen to PATH, and which rule says so?"
 *
 * Invariants (this file runs inside hooks):
 *  1. No allocation, no locks, no libc calls that may touch errno or take
 *     locks; only reads of the immutable blob and of the caller's path.
 *  2. Cost follows the path, not the policy: one hashed lookup per component
 *     on the literal trie, plus the glob edges of the nodes actually visited.
 *  3. The deciding rule is the most specific one that matches; at equal
 *     specificity deny wins; with no matching rule the answer is deny.
 *  4. Every walk is bounded (JAIL_STEP_BUDGET); a walk that runs out denies.
 */
#include "policy.h"
#include "blob.h"

#include <string.h>

#define JAIL_STEP_BUDGET 200000u

struct jail_policy {
	struct jail_blob_hdr hdr;
};

static const struct jail_blob_node *nodes(const struct jail_policy *p)
{
	return (const void *)((const char *)p + p->hdr.nodes_off);
}
static const struct jail_blob_slot *slots(const struct jail_policy *p)
{
	return (const void *)((const char *)p + p->hdr.slots_off);
}
static const struct jail_blob_glob *globs(const struct jail_policy *p)
{
	return (const void *)((const char *)p + p->hdr.globs_off);
}
static const struct jail_blob_gslot *gslots(const struct jail_policy *p)
{
	return (const void *)((const char *)p + p->hdr.gslots_off);
}
static const struct jail_blob_rule *rules(const struct jail_policy *p)
{
	return (const void *)((const char *)p + p->hdr.rules_off);
}
static const char *str(const struct jail_policy *p, uint32_t off)
{
	return (const char *)p + p->hdr.strings_off + off;
}

/* ---- the walk ---- */

struct walk {
	const struct jail_policy *p;
	const char *path;
	unsigned ax;       /* JAIL_AX_* */
	uint32_t steps;
	int exhausted;
	enum jail_effect best_eff;
	int32_t best_rule;
	uint32_t best_spec;
	/* component hashes by start offset: "**" revisits the same components
	 * from many nodes; a direct-mapped cache keeps that to one hash each */
	struct {
		uint32_t start, hash;
	} hc[8];
};

static uint32_t comp_hash(struct walk *w, uint32_t start, uint32_t len)
{
	unsigned slot = start % 8;
	if (w->hc[slot].start != start + 1) {
		w->hc[slot].start = start + 1;
		w->hc[slot].hash = jail_fnv1a(w->path + start, len, JAIL_FNV_INIT);
	}
	return w->hc[slot].hash;
}

static void consider(struct walk *w, const struct jail_blob_node *n, uint32_t spec)
{
	enum jail_effect e = n->term_eff[w->ax];
	int32_t r = n->term_rule[w->ax];
	if (e == JAIL_EFFECT_NONE)
		return;
	if (w->best_eff == JAIL_EFFECT_NONE || spec > w->best_spec ||
	    (spec == w->best_spec && e == JAIL_DENY && w->best_eff == JAIL_ALLOW) ||
	    (spec == w->best_spec && e == w->best_eff && r < w->best_rule)) {
		w->best_eff = e;
		w->best_rule = r;
		w->best_spec = spec;
	}
}

/* The component after the '/' at path[pos]; returns its length, 0 at the end. */
static uint32_t component(const char *path, uint32_t pos, uint32_t *start)
{
	if (path[pos] != '/')
		return 0;
	uint32_t s = pos + 1, e = s;
	while (path[e] != '\0' && path[e] != '/')
		e++;
	*start = s;
	return e - s;
}

static const struct jail_blob_node *literal_child(struct walk *w, const struct jail_blob_node *n, uint32_t start,
                                                  uint32_t len)
{
	const struct jail_policy *p = w->p;
	const char *name = w->path + start;
	if (n->slot_count == 0)
		return NULL;
	uint32_t h = comp_hash(w, start, len);
	uint32_t mask = n->slot_count - 1;
	const struct jail_blob_slot *tab = slots(p) + n->slot_first;
	for (uint32_t i = h & mask, probes = 0; probes <= mask; i = (i + 1) & mask, probes++) {
		const struct jail_blob_slot *s = &tab[i];
		if (s->child == 0)
			return NULL;
		if (s->hash == h && s->len == len && memcmp(str(p, s->name), name, len) == 0)
			return nodes(p) + s->child;
	}
	return NULL;
}

static void visit(struct walk *w, const struct jail_blob_node *n, uint32_t pos, uint32_t spec);

/* Tries the globs of one keyed table whose key hashes like `key`. */
static void keyed_globs(struct walk *w, uint32_t first, uint32_t count, const char *key, uint32_t k,
                        const char *comp, uint32_t len, uint32_t spec)
{
	if (count == 0 || len < k)
		return;
	uint32_t h = jail_fnv1a(key, k, JAIL_FNV_INIT), mask = count - 1;
	const struct jail_blob_gslot *tab = gslots(w->p) + first;
	for (uint32_t i = h & mask, probes = 0; probes <= mask; i = (i + 1) & mask, probes++) {
		if (tab[i].glob == 0)
			return;
		const struct jail_blob_glob *g = globs(w->p) + (tab[i].glob - 1);
		if (tab[i].hash == h && jail_glob_match(str(w->p, g->pat), g->len, comp, len))
			visit(w, nodes(w->p) + g->child, (uint32_t)(comp + len - w->path), spec + 1);
	}
}

/* Visits node n having consumed `spec` components; path[pos] is '/' or NUL. */
static void visit(struct walk *w, const struct jail_blob_node *n, uint32_t pos, uint32_t spec)
{
	if (w->exhausted || ++w->steps > JAIL_STEP_BUDGET) {
		w->exhausted = 1;
		return;
	}
	consider(w, n, spec);

	uint32_t start = 0;
	uint32_t len = component(w->path, pos, &start);

	if (len > 0) {
		const char *comp = w->path + start;
		const struct jail_blob_node *c = literal_child(w, n, start, len);
		if (c)
			visit(w, c, start + len, spec + 1);
		keyed_globs(w, n->pre_first, n->pre_count, comp, n->pre_k, comp, len, spec);
		keyed_globs(w, n->suf_first, n->suf_count, comp + len - (len >= n->suf_k ? n->suf_k : 0), n->suf_k,
		            comp, len, spec);
	}
	const struct jail_blob_glob *g = globs(w->p) + n->glob_first;
	for (uint32_t i = 0; i < n->glob_count; i++, g++) {
		const struct jail_blob_node *c = nodes(w->p) + g->child;
		if (g->starstar) {
			/* consume 0, 1, ... components */
			uint32_t q = pos, k = 0, s2 = 0;
			for (;;) {
				visit(w, c, q, spec + k);
				uint32_t l2 = component(w->path, q, &s2);
				if (l2 == 0 || w->exhausted)
					break;
				q = s2 + l2;
				k++;
			}
		} else if (len > 0 && jail_glob_match(str(w->p, g->pat), g->len, w->path + start, len)) {
			visit(w, c, start + len, spec + 1);
		}
	}
}

static struct jail_decision walk_decide(const struct jail_policy *p, unsigned ax, const char *path)
{
	struct walk w = {.p = p, .path = path, .ax = ax, .best_rule = -1};
	struct jail_decision d = {.verdict = JAIL_DENY, .reason = JAIL_NO_RULE, .rule = -1};
	/* "/" is the root node itself; the walk starts at the root's '/'. */
	visit(&w, nodes(p), path[1] == '\0' ? 1 : 0, 0);
	if (w.exhausted) {
		d.reason = JAIL_TOO_COMPLEX;
		return d;
	}
	if (w.best_eff != JAIL_EFFECT_NONE) {
		d.verdict = w.best_eff;
		d.reason = JAIL_BY_RULE;
		d.rule = w.best_rule;
		d.specificity = w.best_spec;
	}
	return d;
}

static int path_ok(const char *path)
{
	if (path == NULL || path[0] != '/')
		return 0;
	for (size_t i = 0; i < 4096; i++)
		if (path[i] == '\0')
			return 1;
	return 0;
}

struct jail_decision jail_decide(const struct jail_policy *p, enum jail_access a, const char *path)
{
	struct jail_decision d = {.verdict = JAIL_DENY, .reason = JAIL_BAD_PATH, .rule = -1};
	if (!path_ok(path))
		return d;
	switch (a) {
	case JAIL_READ:
		return walk_decide(p, JAIL_AX_READ, path);
	case JAIL_WRITE:
		return walk_decide(p, JAIL_AX_WRITE, path);
	case JAIL_EXEC:
		return walk_decide(p, JAIL_AX_EXEC, path);
	case JAIL_META:
		d = walk_decide(p, JAIL_AX_READ, path);
		if (d.reason == JAIL_NO_RULE) {
			d.verdict = JAIL_ALLOW;
			d.reason = JAIL_META_NO_DENY;
		}
		return d;
	}
	return d;
}

struct jail_decision jail_decide2(const struct jail_policy *p, enum jail_access a, const char *given,
                                  const char *resolved, char *which)
{
	struct jail_decision dr, dg;
	if (resolved == NULL) {
		*which = 'g';
		return jail_decide(p, a, given);
	}
	dr = jail_decide(p, a, resolved);
	*which = 'r';
	if (given == NULL || strcmp(given, resolved) == 0 || dr.verdict == JAIL_DENY)
		return dr;
	/* The given path only ever takes away: a deny rule matching it wins. */
	dg = jail_decide(p, a, given);
	if (dg.verdict == JAIL_DENY && dg.reason != JAIL_NO_RULE) {
		*which = 'g';
		return dg;
	}
	return dr;
}

/* ---- blob adoption ---- */

static int in_bounds(uint32_t size, uint32_t off, uint32_t count, uint32_t elem)
{
	uint64_t end = (uint64_t)off + (uint64_t)count * elem;
	return off % 4 == 0 && end <= size;
}

static int string_ok(const struct jail_blob_hdr *h, uint32_t off, uint32_t len)
{
	return (uint64_t)off + len < h->strings_size &&
	       ((const char *)h)[h->strings_off + off + len] == '\0';
}

static int nodes_ok(const struct jail_blob_hdr *h)
{
	const struct jail_blob_node *n = (const void *)((const char *)h + h->nodes_off);
	for (uint32_t i = 0; i < h->nnodes; i++) {
		if ((uint64_t)n[i].slot_first + n[i].slot_count > h->nslots ||
		    (n[i].slot_count & (n[i].slot_count - 1)) != 0 ||
		    (uint64_t)n[i].glob_first + n[i].glob_count > h->nglobs ||
		    (uint64_t)n[i].pre_first + n[i].pre_count > h->ngslots ||
		    (n[i].pre_count & (n[i].pre_count - 1)) != 0 ||
		    (uint64_t)n[i].suf_first + n[i].suf_count > h->ngslots ||
		    (n[i].suf_count & (n[i].suf_count - 1)) != 0)
			return 0;
		for (int a = 0; a < JAIL_AX_COUNT; a++)
			if (n[i].term_eff[a] > JAIL_DENY ||
			    (n[i].term_eff[a] != JAIL_EFFECT_NONE && (uint32_t)n[i].term_rule[a] >= h->nrules))
				return 0;
	}
	return 1;
}

static int edges_ok(const struct jail_blob_hdr *h)
{
	const struct jail_blob_slot *s = (const void *)((const char *)h + h->slots_off);
	const struct jail_blob_glob *g = (const void *)((const char *)h + h->globs_off);
	for (uint32_t i = 0; i < h->nslots; i++)
		if (s[i].child != 0 && (s[i].child >= h->nnodes || !string_ok(h, s[i].name, s[i].len)))
			return 0;
	const struct jail_blob_gslot *gs = (const void *)((const char *)h + h->gslots_off);
	for (uint32_t i = 0; i < h->nglobs; i++)
		if (g[i].child == 0 || g[i].child >= h->nnodes || !string_ok(h, g[i].pat, g[i].len))
			return 0;
	for (uint32_t i = 0; i < h->ngslots; i++)
		if (gs[i].glob > h->nglobs)
			return 0;
	return 1;
}

static int rules_ok(const struct jail_blob_hdr *h)
{
	const struct jail_blob_rule *r = (const void *)((const char *)h + h->rules_off);
	const uint32_t *f = (const void *)((const char *)h + h->files_off);
	for (uint32_t i = 0; i < h->nfiles; i++)
		if (f[i] >= h->strings_size)
			return 0;
	for (uint32_t i = 0; i < h->nrules; i++)
		if (r[i].file >= h->nfiles || r[i].text >= h->strings_size || r[i].pattern >= h->strings_size)
			return 0;
	const struct jail_blob_xrule *x = jail_blob_xrules(h);
	for (uint32_t i = 0; i < h->nxrules; i++)
		if (x[i].file >= h->nfiles || x[i].text >= h->strings_size || !string_ok(h, x[i].pat, x[i].len) ||
		    x[i].prefix > 128 || x[i].port_lo > x[i].port_hi)
			return 0;
	return 1;
}

const struct jail_policy *jail_policy_from_blob(const void *blob, size_t size)
{
	const struct jail_blob_hdr *h = blob;
	if (blob == NULL || size < sizeof(*h) || ((uintptr_t)blob & 3) != 0)
		return NULL;
	if (memcmp(h->magic, JAIL_BLOB_MAGIC, sizeof(JAIL_BLOB_MAGIC)) != 0 ||
	    h->version != JAIL_BLOB_VERSION || h->size != size || h->nnodes == 0)
		return NULL;
	if (jail_fnv1a((const char *)blob + sizeof(*h), (uint32_t)(size - sizeof(*h)), JAIL_FNV_INIT) != h->checksum)
		return NULL;
	if (!in_bounds(h->size, h->rules_off, h->nrules, sizeof(struct jail_blob_rule)) ||
	    !in_bounds(h->size, h->nodes_off, h->nnodes, sizeof(struct jail_blob_node)) ||
	    !in_bounds(h->size, h->slots_off, h->nslots, sizeof(struct jail_blob_slot)) ||
	    !in_bounds(h->size, h->globs_off, h->nglobs, sizeof(struct jail_blob_glob)) ||
	    !in_bounds(h->size, h->gslots_off, h->ngslots, sizeof(struct jail_blob_gslot)) ||
	    !in_bounds(h->size, h->files_off, h->nfiles, sizeof(uint32_t)) ||
	    !in_bounds(h->size, h->xrules_off, h->nxrules, sizeof(struct jail_blob_xrule)) || h->net > 2 ||
	    (uint64_t)h->strings_off + h->strings_size > h->size || h->strings_size == 0 ||
	    ((const char *)blob)[h->strings_off + h->strings_size - 1] != '\0' || h->log >= h->strings_size)
		return NULL;
	if (!nodes_ok(h) || !edges_ok(h) || !rules_ok(h))
		return NULL;
	return blob;
}

const void *jail_policy_blob(const struct jail_policy *p, size_t *size)
{
	*size = p->hdr.size;
	return p;
}

/* ---- describing ---- */

enum jail_mode jail_policy_mode(const struct jail_policy *p)
{
	return p->hdr.mode == JAIL_MODE_AUDIT ? JAIL_MODE_AUDIT : p->hdr.mode == JAIL_MODE_ASK ? JAIL_MODE_ASK
	                                                                                      : JAIL_MODE_ENFORCE;
}

enum jail_kernel jail_policy_kernel(const struct jail_policy *p)
{
	return p->hdr.kernel <= JAIL_KERNEL_STRICT ? (enum jail_kernel)p->hdr.kernel : JAIL_KERNEL_REQUIRE;
}

const char *jail_policy_log(const struct jail_policy *p)
{
	return p->hdr.log ? str(p, p->hdr.log) : NULL;
}

uint32_t jail_rule_count(const struct jail_policy *p)
{
	return p->hdr.nrules;
}

uint32_t jail_xrule_count(const struct jail_policy *p)
{
	return p->hdr.nxrules;
}

uint32_t jail_policy_file_count(const struct jail_policy *p)
{
	return p->hdr.nfiles;
}

const char *jail_policy_file(const struct jail_policy *p, uint32_t i)
{
	const uint32_t *files = (const void *)((const char *)p + p->hdr.files_off);
	return i < p->hdr.nfiles ? str(p, files[i]) : "";
}

static const struct jail_blob_rule *rule(const struct jail_policy *p, int32_t i)
{
	return (i >= 0 && (uint32_t)i < p->hdr.nrules) ? &rules(p)[i] : NULL;
}

/* A net or env rule: numbered after the path rules. */
static const struct jail_blob_xrule *xrule(const struct jail_policy *p, int32_t i)
{
	if (i < 0 || (uint32_t)i < p->hdr.nrules || (uint32_t)i - p->hdr.nrules >= p->hdr.nxrules)
		return NULL;
	return &jail_blob_xrules(&p->hdr)[(uint32_t)i - p->hdr.nrules];
}

const char *jail_rule_file(const struct jail_policy *p, int32_t i)
{
	const struct jail_blob_rule *r = rule(p, i);
	const struct jail_blob_xrule *x = xrule(p, i);
	const uint32_t *files = (const void *)((const char *)p + p->hdr.files_off);
	return r ? str(p, files[r->file]) : x ? str(p, files[x->file]) : "";
}

uint32_t jail_rule_line(const struct jail_policy *p, int32_t i)
{
	const struct jail_blob_rule *r = rule(p, i);
	const struct jail_blob_xrule *x = xrule(p, i);
	return r ? r->line : x ? x->line : 0;
}

uint32_t jail_rule_col(const struct jail_policy *p, int32_t i)
{
	const struct jail_blob_rule *r = rule(p, i);
	const struct jail_blob_xrule *x = xrule(p, i);
	return r ? r->col : x ? x->col : 0;
}

const char *jail_rule_text(const struct jail_policy *p, int32_t i)
{
	const struct jail_blob_rule *r = rule(p, i);
	const struct jail_blob_xrule *x = xrule(p, i);
	return r ? str(p, r->text) : x ? str(p, x->text) : "";
}

/* A path rule's compiled pattern; a net rule's host name or "" (an
 * address: see its text); an env rule's lower-cased glob. */
const char *jail_rule_pattern(const struct jail_policy *p, int32_t i)
{
	const struct jail_blob_rule *r = rule(p, i);
	const struct jail_blob_xrule *x = xrule(p, i);
	return r ? str(p, r->pattern) : x ? str(p, x->pat) : "";
}

enum jail_effect jail_rule_effect(const struct jail_policy *p, int32_t i)
{
	const struct jail_blob_rule *r = rule(p, i);
	const struct jail_blob_xrule *x = xrule(p, i);
	if (x && x->kind != JAIL_X_NET)
		return x->kind == JAIL_X_ENV_KEEP ? JAIL_ALLOW : JAIL_DENY;
	return r ? (enum jail_effect)r->effect : x ? (enum jail_effect)x->effect : JAIL_EFFECT_NONE;
}

unsigned jail_rule_access(const struct jail_policy *p, int32_t i)
{
	const struct jail_blob_rule *r = rule(p, i);
	return r ? r->access : 0;
}

/* Appends s to buf (always NUL-terminated); returns the new length. */
static size_t append(char *buf, size_t bufsz, size_t n, const char *s)
{
	while (*s && n + 1 < bufsz)
		buf[n++] = *s++;
	if (bufsz)
		buf[n < bufsz ? n : bufsz - 1] = '\0';
	return n;
}

static size_t append_uint(char *buf, size_t bufsz, size_t n, uint32_t v)
{
	char tmp[12];
	int i = (int)sizeof(tmp) - 1;
	tmp[i] = '\0';
	do {
		tmp[--i] = (char)('0' + v % 10);
		v /= 10;
	} while (v && i > 0);
	return append(buf, bufsz, n, tmp + i);
}

size_t jail_rule_describe(const struct jail_policy *p, int32_t i, char *buf, size_t bufsz)
{
	size_t n = 0;
	if (bufsz)
		buf[0] = '\0';
	if (rule(p, i) == NULL && xrule(p, i) == NULL)
		return append(buf, bufsz, 0, "no rule");
	n = append(buf, bufsz, n, jail_rule_file(p, i));
	n = append(buf, bufsz, n, ":");
	n = append_uint(buf, bufsz, n, jail_rule_line(p, i));
	n = append(buf, bufsz, n, ": ");
	return append(buf, bufsz, n, jail_rule_text(p, i));
}

const char *jail_access_name(enum jail_access a)
{
	switch (a) {
	case JAIL_READ: return "read";
	case JAIL_WRITE: return "write";
	case JAIL_EXEC: return "exec";
	case JAIL_META: return "meta";
	}
	return "?";
}

enum jail_access jail_access_parse(const char *w)
{
	static const enum jail_access all[] = {JAIL_READ, JAIL_WRITE, JAIL_EXEC, JAIL_META};
	for (unsigned i = 0; i < sizeof(all) / sizeof(all[0]); i++)
		if (strcmp(w, jail_access_name(all[i])) == 0)
			return all[i];
	return 0;
}

const char *jail_effect_name(enum jail_effect e)
{
	switch (e) {
	case JAIL_ALLOW: return "allow";
	case JAIL_DENY: return "deny";
	case JAIL_EFFECT_NONE: break;
	}
	return "none";
}

const char *jail_reason_name(enum jail_reason r)
{
	switch (r) {
	case JAIL_BY_RULE: return "rule";
	case JAIL_NO_RULE: return "no rule";
	case JAIL_META_NO_DENY: return "metadata, no read deny";
	case JAIL_TOO_COMPLEX: return "match too complex";
	case JAIL_BAD_PATH: return "not an absolute path";
	case JAIL_NET_LOOPBACK: return "loopback, reachable when no rule denies it";
	case JAIL_NET_LOCAL: return "the local network (private, link-local or multicast), reachable only by a rule that names it";
	case JAIL_NET_OPEN: return "no net allow rule: the network is open";
	case JAIL_NET_BAD_NAME: return "not a host name: letters, digits, '-', '_' and '.' only";
	}
	return "?";
}

long jail_path_normalize(const char *in, char *out, size_t outsz)
{
	size_t n = 0;
	if (outsz < 2 || in[0] != '/')
		return -1;
	/* out may alias in: the write position never passes the read position */
	size_t i = 0;
	out[n++] = '/';
	while (in[i] != '\0') {
		while (in[i] == '/')
			i++;
		size_t s = i;
		while (in[i] != '\0' && in[i] != '/')
			i++;
		size_t len = i - s;
		if (len == 0 || (len == 1 && in[s] == '.'))
			continue;
		if (len == 2 && in[s] == '.' && in[s + 1] == '.') {
			while (n > 1 && out[n - 1] != '/')
				n--;
			if (n > 1)
				n--; /* drop the '/' too, unless it is the root */
			continue;
		}
		if (n > 1) {
			if (n + 1 >= outsz)
				return -1;
			out[n++] = '/';
		}
		if (n + len >= outsz)
			return -1;
		memmove(out + n, in + s, len);
		n += len;
	}
	out[n] = '\0';
	return (long)n;
}
