/*
 * build.h — the parser's output, the compiler's input (private to policy/).
 * Build-time only: everything here may allocate.
 */
#ifndef JAIL_BUILD_H
#define JAIL_BUILD_H

#include "policy.h"

#include <stdint.h>

/* One pattern of one allow/deny directive. */
struct jail_brule {
	enum jail_effect effect;
	unsigned access;  /* JAIL_READ|JAIL_WRITE|JAIL_EXEC as written */
	uint32_t file;    /* index into jail_build.files */
	uint32_t line, col;
	char *text;       /* "deny read ~/.ssh": the directive for this pattern */
	char *pattern;    /* expanded, normalized, absolute */
	char *canonical;  /* the same with existing leading dirs canonicalized, or NULL */
};

/* One argument of a net or env directive (see blob.h's jail_blob_xrule). */
struct jail_bxrule {
	uint8_t kind, effect, host, prefix;
	uint8_t addr[16];
	uint16_t port_lo, port_hi;
	uint32_t file, line, col;
	char *text; /* "net allow api.example.com:443" */
	char *pat;  /* env glob, or host name; NULL for addresses */
};

struct jail_build {
	struct jail_brule *rules;
	uint32_t nrules, caprules;
	char **files;
	uint32_t nfiles, capfiles;
	enum jail_mode mode;
	enum jail_kernel kernel;
	char *log;
	struct jail_bxrule *xrules;
	uint32_t nxrules, capxrules;
	enum jail_net_mode net;
};

void jail_build_free(struct jail_build *b);

/* compile.c: builds the blob. Returns NULL when out of memory or too large. */
struct jail_policy *jail_compile(const struct jail_build *b, struct jail_error *err);

/* net.c: parses one host argument of a net directive into r (kind,
 * effect and origin are the caller's). Returns 0; or -1 with *why set and
 * *at the byte offset of the fault. `private` and `loopback` stand for
 * several ranges: r[0..*n) receive them (at most JAIL_NET_MAX_EXPAND). */
#define JAIL_NET_MAX_EXPAND 16
int jail_net_parse(const char *arg, struct jail_bxrule r[JAIL_NET_MAX_EXPAND], unsigned *n, const char **why,
                   uint32_t *at);

#endif
