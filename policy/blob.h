/*
 * blob.h — layout of a compiled policy (private to policy/).
 *
 * A compiled policy is one contiguous, pointer-free block: a header, then
 * arrays addressed by 32-bit offsets from the block's start. It is built once
 * (compile.c), then only read (decide.c), so it can be shared by threads
 * without locks and mapped read-only from a file.
 *
 * The rules form a trie over path components. Node 0 is "/". A node has
 *  - literal edges: an open-addressed hash table of component names
 *    (slots[slot_first .. slot_first+slot_count), slot_count a power of two);
 *  - glob edges: "**" (any number of components, zero included) and globs
 *    with no literal prefix or suffix are tried in order; a glob with a
 *    literal prefix (`id_*`) or suffix (`*.pem`) is found through a hash of
 *    the first (last) K bytes of the component instead, K being the shortest
 *    such literal at that node — so many globs in one directory cost one
 *    lookup, not one match each;
 *  - for each of read/write/exec, the effect of the rules ending here and the
 *    first of them that decided it (deny beats allow at the same node).
 * A rule ending at a node covers that path and everything beneath it; its
 * specificity is the number of path components consumed to reach the node.
 */
#ifndef JAIL_BLOB_H
#define JAIL_BLOB_H

#include <stdint.h>

#define JAIL_BLOB_MAGIC "JAILPOL"
#define JAIL_BLOB_VERSION 3u

/* access bit index in term[]: read, write, exec */
enum { JAIL_AX_READ = 0, JAIL_AX_WRITE = 1, JAIL_AX_EXEC = 2, JAIL_AX_COUNT = 3 };

struct jail_blob_hdr {
	char magic[8];
	uint32_t version;
	uint32_t size;     /* whole blob, header included */
	uint32_t checksum; /* FNV-1a over the bytes after the header */
	uint32_t mode;     /* enum jail_mode */
	uint32_t kernel;   /* enum jail_kernel */
	uint32_t log;      /* string offset of the log path; 0 = none */
	uint32_t nrules, rules_off;
	uint32_t nnodes, nodes_off;
	uint32_t nslots, slots_off;
	uint32_t nglobs, globs_off;
	uint32_t ngslots, gslots_off;
	uint32_t nfiles, files_off; /* array of string offsets */
	uint32_t strings_size, strings_off; /* strings[0] is "" */
	uint32_t net;                /* enum jail_net_mode */
	uint32_t nxrules, xrules_off; /* net and env rules (below) */
};

struct jail_blob_rule {
	uint32_t file;    /* index into files */
	uint32_t line, col;
	uint32_t text;    /* string offset */
	uint32_t pattern; /* string offset */
	uint8_t effect;   /* enum jail_effect */
	uint8_t access;   /* JAIL_READ|JAIL_WRITE|JAIL_EXEC as written */
	uint16_t pad;
};

/*
 * Rules that name no path: `net` and `env`. They share the path rules'
 * numbering for messages: rule index nrules + i is xrules[i], so
 * jail_rule_describe() and friends serve both.
 */
enum { JAIL_X_NET = 1, JAIL_X_ENV_SCRUB = 2, JAIL_X_ENV_KEEP = 3 };
enum {
	JAIL_HOST_ADDR = 1,   /* addr/prefix (every address: prefix 0) */
	JAIL_HOST_NAME = 2,   /* exactly the name at pat */
	JAIL_HOST_SUFFIX = 3, /* any name ending in "." + the name at pat */
};

struct jail_blob_xrule {
	uint32_t file;      /* index into files */
	uint32_t line, col;
	uint32_t text;      /* string offset: the directive for this argument */
	uint32_t pat, len;  /* env: the name glob; net: the host name (lower case) */
	uint8_t kind;       /* JAIL_X_* */
	uint8_t effect;     /* net: enum jail_effect */
	uint8_t host;       /* net: JAIL_HOST_* */
	uint8_t prefix;     /* JAIL_HOST_ADDR: leading bits of addr that must match */
	uint8_t addr[16];   /* IPv6; IPv4 as ::ffff:a.b.c.d */
	uint16_t port_lo, port_hi; /* 0-65535 for every port */
};

struct jail_blob_node {
	uint32_t slot_first, slot_count; /* slot_count 0 or a power of two */
	uint32_t glob_first, glob_count; /* globs tried in order */
	uint32_t pre_first, pre_count, pre_k; /* gslots keyed by a literal prefix */
	uint32_t suf_first, suf_count, suf_k; /* gslots keyed by a literal suffix */
	int32_t term_rule[JAIL_AX_COUNT];
	uint8_t term_eff[JAIL_AX_COUNT];
	uint8_t pad;
};

struct jail_blob_slot {
	uint32_t hash;
	uint32_t name, len; /* string offset and length of the component */
	uint32_t child;     /* 0 = empty slot (node 0 is never a child) */
};

struct jail_blob_glob {
	uint32_t pat, len; /* string offset, length; for "**" len is 2 */
	uint32_t child;
	uint32_t starstar; /* 1: matches any number of components */
};

struct jail_blob_gslot {
	uint32_t hash;
	uint32_t glob; /* index into globs, plus one; 0 = empty slot */
};

static inline uint32_t jail_fnv1a(const void *data, uint32_t len, uint32_t h)
{
	const unsigned char *p = data;
	for (uint32_t i = 0; i < len; i++) {
		h ^= p[i];
		h *= 16777619u;
	}
	return h;
}
#define JAIL_FNV_INIT 2166136261u

/* The rules that name no path, of a blob whose header is h. */
static inline const struct jail_blob_xrule *jail_blob_xrules(const struct jail_blob_hdr *h)
{
	return (const void *)((const char *)h + h->xrules_off);
}

/* A string of a blob whose header is h. */
static inline const char *jail_blob_str(const struct jail_blob_hdr *h, uint32_t off)
{
	return (const char *)h + h->strings_off + off;
}

/* glob.c: matches one path component against a one-component glob.
 * '*' matches any run (leading dots included), '?' one byte, [...] a class
 * ([!...] or [^...] negated, a-z ranges), '\x' the byte x. */
int jail_glob_match(const char *pat, uint32_t plen, const char *s, uint32_t slen);

/* glob.c: 1 when a pattern component has an unescaped * ? or [. */
int jail_glob_has_magic(const char *s, uint32_t len);

/* glob.c: 0 when the glob is well formed, else the offset of the bad '['+1. */
uint32_t jail_glob_check(const char *s, uint32_t len);

#endif
