/* landlock.h — the kernel layer (landlock_linux.c), used by jailrun's launcher. */
#ifndef JAIL_LANDLOCK_H
#define JAIL_LANDLOCK_H

#include "policy.h"

#include <stddef.h>

struct jail_landlock_stats {
	int abi;      /* the Landlock ABI used */
	int rules;    /* path-beneath rules added, all layers */
	int expanded; /* directories expanded around read denies (and, strict, write carve-outs) */
	int carveouts; /* write carve-outs held by the kernel (strict) */
	int net_bounded; /* layers whose TCP connects the kernel bounds by port */
	int net_unbounded; /* layers with net allow rules it cannot bound (a rule without a port, or ABI < 4) */
};

/* The kernel's Landlock ABI version, 0 when unavailable. The environment
 * variable JAIL_TEST_LANDLOCK_ABI overrides it (tests of the fallbacks). */
int jail_landlock_abi(void);

/* What the jail itself needs of the kernel layer besides its policy. */
struct jail_landlock_extra {
	const char *const *write; /* writable: its tally and log files */
	size_t nwrite;
	const char *const *read; /* readable and executable: its library, blobs and helper */
	size_t nread;
	const char *const *hold; /* refused to every access, whatever the policy grants
	                          * (ask mode: the user's terminal): the trees around
	                          * them are expanded, as for a carve-out */
	size_t nhold;
	unsigned connect_port; /* its proxy's port, 0 for none */
};

/* Restricts this process (and everything it starts) with one Landlock
 * layer per policy layer, plus what x says. A layer with `net allow` or
 * `net none` whose allow rules all name ports also bounds TCP connect
 * (ABI 4) to those ports and x->connect_port: the kernel cannot tell
 * addresses apart, so a port a rule names is open on every address.
 * Sets no_new_privs. 0, or -1 with a message in err. */
int jail_landlock_apply(const struct jail_policy *const *layers, size_t nlayers, const struct jail_landlock_extra *x,
                        unsigned opts, struct jail_landlock_stats *stats, char *err, size_t errsz);

/* opts: read denies are held elsewhere, exactly (a supervisor decides every
 * open and stat of the jail): grant readable trees whole instead of
 * expanding them, so that files created in them later stay readable. */
#define JAIL_LANDLOCK_READ_DENIES_ELSEWHERE 1u

/* opts (kernel strict): writable trees are expanded around the entries the
 * layer denies writing by a rule (literal or glob) that exist at start,
 * found within CARVE_DEPTH levels of each writable tree's top. The
 * directories along the way keep no right to make or remove entries in
 * them. */
#define JAIL_LANDLOCK_WRITE_CARVEOUTS 2u

/* 1 when the Landlock layer built from p (with opts) lets `a` (read, write
 * or exec) reach path: a grant made later, in the shim, cannot widen it. */
int jail_landlock_grants(const struct jail_policy *p, enum jail_access a, const char *path, unsigned opts);

/* Which layers enforce a rule: "kernel+shim", "kernel (its literal
 * directory)+shim" or "shim only". */
const char *jail_landlock_rule_scope(const struct jail_policy *p, int32_t rule);

#endif
