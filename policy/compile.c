/*
 * compile.c — rule list → immutable trie blob (see blob.h for the layout).
 *
 * Invariants:
 *  1. Each rule's written access is widened here, once, to the accesses it
 *     decides: `write` implies `read` for an allow; a `read` deny also denies
 *     write and exec (what cannot be read cannot be changed or run).
 *  2. At one node, a deny beats an allow for the same access; among equal
 *     effects the earliest rule is the one reported.
 *  3. A trailing "**" adds nothing (every pattern already covers what is
 *     beneath it), so it is dropped and does not raise specificity.
 *  4. Identical glob edges from one node share a child, so 10,000 `**\/NAME`
 *     rules cost one "**" edge and one hashed lookup, not 10,000 edges.
 */
#include "build.h"
#include "blob.h"

#include <stdlib.h>
#include <string.h>

struct bedge {
	const char *name; /* literal (unescaped) or glob text */
	uint32_t len;
	uint32_t child;
	uint32_t starstar;
};

struct bnode {
	struct bedge *lit, *glob;
	uint32_t nlit, caplit, nglob, capglob;
	int32_t term_rule[JAIL_AX_COUNT];
	uint8_t term_eff[JAIL_AX_COUNT];
};

/* (parent, literal name) → child, for building in linear time */
struct bindex {
	uint32_t *slot; /* node index + 1; 0 empty */
	uint32_t cap, used;
};

struct btrie {
	struct bnode *n;
	uint32_t count, cap;
	struct bindex idx;
	uint32_t *lit_parent; /* per node: parent and its literal edge index, for the index */
};

struct pool {
	char *buf;
	size_t len, cap;
};

static int grow(void **p, uint32_t *cap, uint32_t need, size_t elem)
{
	if (need <= *cap)
		return 0;
	uint32_t nc = *cap ? *cap : 8;
	while (nc < need)
		nc *= 2;
	void *q = realloc(*p, (size_t)nc * elem);
	if (!q)
		return -1;
	*p = q;
	*cap = nc;
	return 0;
}

static int32_t new_node(struct btrie *t)
{
	uint32_t cap = t->cap;
	if (grow((void **)&t->n, &t->cap, t->count + 1, sizeof(*t->n)))
		return -1;
	if (cap != t->cap) {
		uint32_t *lp = realloc(t->lit_parent, (size_t)t->cap * 2 * sizeof(uint32_t));
		if (!lp)
			return -1;
		t->lit_parent = lp;
	}
	struct bnode *n = &t->n[t->count];
	memset(n, 0, sizeof(*n));
	for (int a = 0; a < JAIL_AX_COUNT; a++)
		n->term_rule[a] = -1;
	return (int32_t)t->count++;
}

static uint32_t index_hash(uint32_t parent, const char *name, uint32_t len)
{
	return jail_fnv1a(name, len, JAIL_FNV_INIT ^ (parent * 2654435761u));
}

static int index_grow(struct btrie *t);

static uint32_t *index_find(struct btrie *t, uint32_t parent, const char *name, uint32_t len)
{
	uint32_t mask = t->idx.cap - 1;
	for (uint32_t i = index_hash(parent, name, len) & mask;; i = (i + 1) & mask) {
		uint32_t *s = &t->idx.slot[i];
		if (*s == 0)
			return s;
		uint32_t c = *s - 1;
		const struct bedge *e = &t->n[t->lit_parent[2 * c]].lit[t->lit_parent[2 * c + 1]];
		if (t->lit_parent[2 * c] == parent && e->len == len && memcmp(e->name, name, len) == 0)
			return s;
	}
}

static int index_grow(struct btrie *t)
{
	if ((t->idx.used + 1) * 2 <= t->idx.cap)
		return 0;
	struct bindex old = t->idx;
	t->idx.cap = old.cap ? old.cap * 2 : 64;
	t->idx.slot = calloc(t->idx.cap, sizeof(uint32_t));
	if (!t->idx.slot) {
		t->idx = old;
		return -1;
	}
	for (uint32_t i = 0; i < old.cap; i++) {
		if (old.slot[i] == 0)
			continue;
		uint32_t c = old.slot[i] - 1;
		const struct bedge *e = &t->n[t->lit_parent[2 * c]].lit[t->lit_parent[2 * c + 1]];
		*index_find(t, t->lit_parent[2 * c], e->name, e->len) = old.slot[i];
	}
	free(old.slot);
	return 0;
}

/* Returns the child of `parent` along a literal (already unescaped) name. */
static int32_t literal_edge(struct btrie *t, uint32_t parent, const char *name, uint32_t len)
{
	if (index_grow(t))
		return -1;
	uint32_t *s = index_find(t, parent, name, len);
	if (*s)
		return (int32_t)(*s - 1);
	int32_t c = new_node(t);
	if (c < 0)
		return -1;
	struct bnode *p = &t->n[parent];
	if (grow((void **)&p->lit, &p->caplit, p->nlit + 1, sizeof(*p->lit)))
		return -1;
	p->lit[p->nlit] = (struct bedge){.name = name, .len = len, .child = (uint32_t)c};
	t->lit_parent[2 * c] = parent;
	t->lit_parent[2 * c + 1] = p->nlit++;
	*index_find(t, parent, name, len) = (uint32_t)c + 1;
	t->idx.used++;
	return c;
}

static int32_t glob_edge(struct btrie *t, uint32_t parent, const char *pat, uint32_t len, int starstar)
{
	struct bnode *p = &t->n[parent];
	for (uint32_t i = 0; i < p->nglob; i++)
		if (p->glob[i].starstar == (uint32_t)starstar && p->glob[i].len == len &&
		    memcmp(p->glob[i].name, pat, len) == 0)
			return (int32_t)p->glob[i].child;
	int32_t c = new_node(t);
	if (c < 0)
		return -1;
	p = &t->n[parent];
	if (grow((void **)&p->glob, &p->capglob, p->nglob + 1, sizeof(*p->glob)))
		return -1;
	p->glob[p->nglob++] = (struct bedge){.name = pat, .len = len, .child = (uint32_t)c, .starstar = (uint32_t)starstar};
	return c;
}

/* A literal component without its backslash escapes, in its own allocation
 * (edges point at it until the trie is freed). */
static char *unescape(const char *s, uint32_t len, uint32_t *outlen)
{
	char *o = malloc(len + 1);
	uint32_t n = 0;
	if (!o)
		return NULL;
	for (uint32_t i = 0; i < len; i++) {
		if (s[i] == '\\' && i + 1 < len)
			i++;
		o[n++] = s[i];
	}
	o[n] = '\0';
	*outlen = n;
	return o;
}

static void widen(enum jail_effect e, unsigned access, uint8_t out[JAIL_AX_COUNT])
{
	memset(out, 0, JAIL_AX_COUNT);
	if (e == JAIL_ALLOW) {
		if (access & (JAIL_READ | JAIL_WRITE))
			out[JAIL_AX_READ] = 1;
		if (access & JAIL_WRITE)
			out[JAIL_AX_WRITE] = 1;
		if (access & JAIL_EXEC)
			out[JAIL_AX_EXEC] = 1;
	} else {
		if (access & JAIL_READ)
			out[JAIL_AX_READ] = out[JAIL_AX_WRITE] = out[JAIL_AX_EXEC] = 1;
		if (access & JAIL_WRITE)
			out[JAIL_AX_WRITE] = 1;
		if (access & JAIL_EXEC)
			out[JAIL_AX_EXEC] = 1;
	}
}

static void set_term(struct bnode *n, const struct jail_brule *r, int32_t ri)
{
	uint8_t ax[JAIL_AX_COUNT];
	widen(r->effect, r->access, ax);
	for (int a = 0; a < JAIL_AX_COUNT; a++) {
		if (!ax[a])
			continue;
		if (n->term_eff[a] == JAIL_EFFECT_NONE || (n->term_eff[a] == JAIL_ALLOW && r->effect == JAIL_DENY)) {
			n->term_eff[a] = (uint8_t)r->effect;
			n->term_rule[a] = ri;
		}
	}
}

/* Owned strings created while inserting (unescaped literal names). */
struct owned {
	char **v;
	uint32_t n, cap;
};

static int insert(struct btrie *t, struct owned *own, const char *pattern, const struct jail_brule *r, int32_t ri)
{
	/* Drop trailing "**" components: they add nothing (invariant 3). */
	size_t plen = strlen(pattern);
	while (plen >= 3 && memcmp(pattern + plen - 3, "/**", 3) == 0)
		plen -= 3;
	uint32_t node = 0;
	size_t i = 0;
	while (i < plen) {
		while (i < plen && pattern[i] == '/')
			i++;
		size_t s = i;
		while (i < plen && pattern[i] != '/')
			i++;
		uint32_t len = (uint32_t)(i - s);
		if (len == 0)
			break;
		int32_t c;
		if (len == 2 && pattern[s] == '*' && pattern[s + 1] == '*') {
			c = glob_edge(t, node, pattern + s, len, 1);
		} else if (jail_glob_has_magic(pattern + s, len)) {
			c = glob_edge(t, node, pattern + s, len, 0);
		} else {
			uint32_t ulen;
			char *u = unescape(pattern + s, len, &ulen);
			if (!u || grow((void **)&own->v, &own->cap, own->n + 1, sizeof(char *))) {
				free(u);
				return -1;
			}
			own->v[own->n++] = u;
			c = literal_edge(t, node, u, ulen);
		}
		if (c < 0)
			return -1;
		node = (uint32_t)c;
	}
	set_term(&t->n[node], r, ri);
	return 0;
}

/* ---- flattening ---- */

static uint32_t pool_add(struct pool *p, const char *s, size_t len, int *oom)
{
	if (p->len + len + 1 > p->cap) {
		size_t nc = p->cap ? p->cap : 256;
		while (nc < p->len + len + 1)
			nc *= 2;
		char *b = realloc(p->buf, nc);
		if (!b) {
			*oom = 1;
			return 0;
		}
		p->buf = b;
		p->cap = nc;
	}
	uint32_t off = (uint32_t)p->len;
	memcpy(p->buf + p->len, s, len);
	p->buf[p->len + len] = '\0';
	p->len += len + 1;
	return off;
}

static uint32_t pow2_at_least(uint32_t n)
{
	uint32_t c = 2;
	while (c < n)
		c *= 2;
	return c;
}

static size_t align4(size_t n)
{
	return (n + 3) & ~(size_t)3;
}

struct flat {
	struct jail_blob_rule *rules;
	struct jail_blob_xrule *xrules;
	struct jail_blob_node *nodes;
	struct jail_blob_slot *slots;
	struct jail_blob_glob *globs;
	struct jail_blob_gslot *gslots;
	uint32_t *files;
	uint32_t nslots, nglobs, ngslots;
	struct pool strings;
};

/* How a glob edge is found: 'l' tried in order, 'p' keyed by its literal
 * prefix, 's' by its literal suffix; *klen is that literal's length. */
static char glob_kind(const struct bedge *e, uint32_t *klen)
{
	uint32_t p = 0, s = 0;
	if (e->starstar)
		return 'l';
	while (p < e->len && !strchr("*?[\\", e->name[p]))
		p++;
	while (s < e->len && !strchr("*?[]\\", e->name[e->len - 1 - s]))
		s++;
	*klen = p ? p : s;
	return p ? 'p' : s ? 's' : 'l';
}

#define MAX_KEY 16u

struct keyed {
	uint32_t count, k;
};

/* Counts the keyed globs of a node and the shortest key of each kind. */
static void count_keyed(const struct bnode *b, struct keyed *pre, struct keyed *suf)
{
	*pre = (struct keyed){0, MAX_KEY};
	*suf = (struct keyed){0, MAX_KEY};
	for (uint32_t k = 0; k < b->nglob; k++) {
		uint32_t kl = 0;
		char kind = glob_kind(&b->glob[k], &kl);
		struct keyed *t = kind == 'p' ? pre : kind == 's' ? suf : NULL;
		if (!t)
			continue;
		t->count++;
		if (kl < t->k)
			t->k = kl;
	}
}

static uint32_t table_size(uint32_t n)
{
	return n ? pow2_at_least(n * 2) : 0;
}

static void put_gslot(struct jail_blob_gslot *tab, uint32_t size, uint32_t hash, uint32_t glob)
{
	uint32_t mask = size - 1, j = hash & mask;
	while (tab[j].glob != 0)
		j = (j + 1) & mask;
	tab[j] = (struct jail_blob_gslot){.hash = hash, .glob = glob + 1};
}

static void flatten_literals(const struct bnode *b, struct jail_blob_node *n, struct flat *f, uint32_t so,
                             int *oom)
{
	n->slot_first = so;
	n->slot_count = table_size(b->nlit);
	for (uint32_t k = 0; k < b->nlit; k++) {
		uint32_t h = jail_fnv1a(b->lit[k].name, b->lit[k].len, JAIL_FNV_INIT);
		uint32_t mask = n->slot_count - 1, j = h & mask;
		while (f->slots[so + j].child != 0)
			j = (j + 1) & mask;
		f->slots[so + j] = (struct jail_blob_slot){
		    .hash = h, .name = pool_add(&f->strings, b->lit[k].name, b->lit[k].len, oom),
		    .len = b->lit[k].len, .child = b->lit[k].child};
	}
}

/* Lays out a node's globs: the in-order ones first, then the keyed ones,
 * each entered in its table. Returns the next free glob index. */
static uint32_t flatten_globs(const struct bnode *b, struct jail_blob_node *n, struct flat *f, uint32_t go,
                              uint32_t *gso, int *oom)
{
	struct keyed pre, suf;
	count_keyed(b, &pre, &suf);
	n->pre_first = *gso;
	n->pre_count = table_size(pre.count);
	n->pre_k = pre.count ? pre.k : 0;
	n->suf_first = *gso + n->pre_count;
	n->suf_count = table_size(suf.count);
	n->suf_k = suf.count ? suf.k : 0;
	*gso += n->pre_count + n->suf_count;
	n->glob_first = go;
	for (int pass = 0; pass < 2; pass++) {
		for (uint32_t k = 0; k < b->nglob; k++) {
			const struct bedge *e = &b->glob[k];
			uint32_t kl = 0;
			char kind = glob_kind(e, &kl);
			if ((pass == 0) != (kind == 'l'))
				continue;
			f->globs[go] = (struct jail_blob_glob){.pat = pool_add(&f->strings, e->name, e->len, oom),
			                                       .len = e->len, .child = e->child, .starstar = e->starstar};
			if (kind == 'p')
				put_gslot(f->gslots + n->pre_first, n->pre_count, jail_fnv1a(e->name, n->pre_k, JAIL_FNV_INIT), go);
			else if (kind == 's')
				put_gslot(f->gslots + n->suf_first, n->suf_count,
				          jail_fnv1a(e->name + e->len - n->suf_k, n->suf_k, JAIL_FNV_INIT), go);
			go++;
		}
		if (pass == 0)
			n->glob_count = go - n->glob_first;
	}
	return go;
}

static int flatten_nodes(const struct btrie *t, struct flat *f, int *oom)
{
	uint32_t nslots = 0, nglobs = 0, ngslots = 0;
	for (uint32_t i = 0; i < t->count; i++) {
		struct keyed pre, suf;
		count_keyed(&t->n[i], &pre, &suf);
		nslots += table_size(t->n[i].nlit);
		nglobs += t->n[i].nglob;
		ngslots += table_size(pre.count) + table_size(suf.count);
	}
	f->nodes = calloc(t->count, sizeof(*f->nodes));
	f->slots = calloc(nslots ? nslots : 1, sizeof(*f->slots));
	f->globs = calloc(nglobs ? nglobs : 1, sizeof(*f->globs));
	f->gslots = calloc(ngslots ? ngslots : 1, sizeof(*f->gslots));
	if (!f->nodes || !f->slots || !f->globs || !f->gslots)
		return -1;
	uint32_t so = 0, go = 0, gso = 0;
	for (uint32_t i = 0; i < t->count; i++) {
		const struct bnode *b = &t->n[i];
		struct jail_blob_node *n = &f->nodes[i];
		memcpy(n->term_rule, b->term_rule, sizeof(n->term_rule));
		memcpy(n->term_eff, b->term_eff, sizeof(n->term_eff));
		flatten_literals(b, n, f, so, oom);
		so += n->slot_count;
		go = flatten_globs(b, n, f, go, &gso, oom);
	}
	f->nslots = nslots;
	f->nglobs = nglobs;
	f->ngslots = ngslots;
	return *oom ? -1 : 0;
}

static struct jail_policy *assemble(const struct jail_build *b, const struct btrie *t, struct flat *f, int *oom)
{
	struct jail_blob_hdr h;
	memset(&h, 0, sizeof(h));
	memcpy(h.magic, JAIL_BLOB_MAGIC, sizeof(JAIL_BLOB_MAGIC));
	h.version = JAIL_BLOB_VERSION;
	h.mode = b->mode;
	h.kernel = b->kernel;
	h.log = b->log ? pool_add(&f->strings, b->log, strlen(b->log), oom) : 0;
	h.nrules = b->nrules;
	h.nnodes = t->count;
	h.nslots = f->nslots;
	h.nglobs = f->nglobs;
	h.ngslots = f->ngslots;
	h.nfiles = b->nfiles;
	h.net = b->net;
	h.nxrules = b->nxrules;
	if (*oom)
		return NULL;

	size_t off = align4(sizeof(h));
	h.rules_off = (uint32_t)off;
	off = align4(off + (size_t)h.nrules * sizeof(struct jail_blob_rule));
	h.nodes_off = (uint32_t)off;
	off = align4(off + (size_t)h.nnodes * sizeof(struct jail_blob_node));
	h.slots_off = (uint32_t)off;
	off = align4(off + (size_t)h.nslots * sizeof(struct jail_blob_slot));
	h.globs_off = (uint32_t)off;
	off = align4(off + (size_t)h.nglobs * sizeof(struct jail_blob_glob));
	h.gslots_off = (uint32_t)off;
	off = align4(off + (size_t)h.ngslots * sizeof(struct jail_blob_gslot));
	h.files_off = (uint32_t)off;
	off = align4(off + (size_t)h.nfiles * sizeof(uint32_t));
	h.xrules_off = (uint32_t)off;
	off = align4(off + (size_t)h.nxrules * sizeof(struct jail_blob_xrule));
	h.strings_off = (uint32_t)off;
	h.strings_size = (uint32_t)f->strings.len;
	off = align4(off + f->strings.len);
	if (off > (1u << 30))
		return NULL;
	h.size = (uint32_t)off;

	char *blob = calloc(1, off);
	if (!blob)
		return NULL;
	memcpy(blob + h.rules_off, f->rules, (size_t)h.nrules * sizeof(struct jail_blob_rule));
	memcpy(blob + h.nodes_off, f->nodes, (size_t)h.nnodes * sizeof(struct jail_blob_node));
	memcpy(blob + h.slots_off, f->slots, (size_t)h.nslots * sizeof(struct jail_blob_slot));
	memcpy(blob + h.globs_off, f->globs, (size_t)h.nglobs * sizeof(struct jail_blob_glob));
	memcpy(blob + h.gslots_off, f->gslots, (size_t)h.ngslots * sizeof(struct jail_blob_gslot));
	memcpy(blob + h.files_off, f->files, (size_t)h.nfiles * sizeof(uint32_t));
	memcpy(blob + h.xrules_off, f->xrules, (size_t)h.nxrules * sizeof(struct jail_blob_xrule));
	memcpy(blob + h.strings_off, f->strings.buf, f->strings.len);
	h.checksum = jail_fnv1a(blob + sizeof(h), (uint32_t)(off - sizeof(h)), JAIL_FNV_INIT);
	memcpy(blob, &h, sizeof(h));
	return (struct jail_policy *)blob;
}

static int flatten_rules(const struct jail_build *b, struct flat *f, int *oom)
{
	f->rules = calloc(b->nrules ? b->nrules : 1, sizeof(*f->rules));
	f->files = calloc(b->nfiles ? b->nfiles : 1, sizeof(*f->files));
	if (!f->rules || !f->files)
		return -1;
	for (uint32_t i = 0; i < b->nfiles; i++)
		f->files[i] = pool_add(&f->strings, b->files[i], strlen(b->files[i]), oom);
	for (uint32_t i = 0; i < b->nrules; i++) {
		const struct jail_brule *r = &b->rules[i];
		f->rules[i] = (struct jail_blob_rule){
		    .file = r->file, .line = r->line, .col = r->col,
		    .text = pool_add(&f->strings, r->text, strlen(r->text), oom),
		    .pattern = pool_add(&f->strings, r->pattern, strlen(r->pattern), oom),
		    .effect = (uint8_t)r->effect, .access = (uint8_t)r->access};
	}
	f->xrules = calloc(b->nxrules ? b->nxrules : 1, sizeof(*f->xrules));
	if (!f->xrules)
		return -1;
	for (uint32_t i = 0; i < b->nxrules; i++) {
		const struct jail_bxrule *r = &b->xrules[i];
		struct jail_blob_xrule *x = &f->xrules[i];
		*x = (struct jail_blob_xrule){
		    .file = r->file, .line = r->line, .col = r->col,
		    .text = pool_add(&f->strings, r->text, strlen(r->text), oom),
		    .kind = r->kind, .effect = r->effect, .host = r->host, .prefix = r->prefix,
		    .port_lo = r->port_lo, .port_hi = r->port_hi};
		memcpy(x->addr, r->addr, sizeof(x->addr));
		if (r->pat) {
			x->len = (uint32_t)strlen(r->pat);
			x->pat = pool_add(&f->strings, r->pat, x->len, oom);
		}
	}
	return *oom ? -1 : 0;
}

static void free_trie(struct btrie *t, struct owned *own)
{
	for (uint32_t i = 0; i < t->count; i++) {
		free(t->n[i].lit);
		free(t->n[i].glob);
	}
	free(t->n);
	free(t->idx.slot);
	free(t->lit_parent);
	for (uint32_t i = 0; i < own->n; i++)
		free(own->v[i]);
	free(own->v);
}

struct jail_policy *jail_compile(const struct jail_build *b, struct jail_error *err)
{
	struct btrie t = {0};
	struct owned own = {0};
	struct flat f = {0};
	struct jail_policy *p = NULL;
	int oom = 0;

	if (new_node(&t) != 0)
		goto out;
	for (uint32_t i = 0; i < b->nrules; i++) {
		const struct jail_brule *r = &b->rules[i];
		if (insert(&t, &own, r->pattern, r, (int32_t)i) ||
		    (r->canonical && insert(&t, &own, r->canonical, r, (int32_t)i)))
			goto out;
	}
	/* the empty string is offset 0: "no log", "no name" */
	pool_add(&f.strings, "", 0, &oom);
	if (flatten_rules(b, &f, &oom) || flatten_nodes(&t, &f, &oom))
		goto out;
	p = assemble(b, &t, &f, &oom);
out:
	if (!p) {
		memset(err, 0, sizeof(*err));
		strcpy(err->msg, "out of memory, or the compiled policy exceeds 1 GiB");
	}
	free(f.rules);
	free(f.xrules);
	free(f.nodes);
	free(f.slots);
	free(f.globs);
	free(f.gslots);
	free(f.files);
	free(f.strings.buf);
	free_trie(&t, &own);
	return p;
}

void jail_policy_free(struct jail_policy *p)
{
	free(p);
}
