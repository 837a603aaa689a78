/*
 * env.c — the `env` directive: which variables the programs a jail starts
 * do not inherit.
 *
 *     env scrub PATTERN...    env keep PATTERN...
 *
 * A pattern is a glob over the variable's name (* ? [...]), compared
 * without regard to case (stored lower case). `keep` is an exception to
 * `scrub` wherever it is written in the same policy.
 *
 * Invariants: deciding reads the blob and the name only (no allocation,
 * locks or errno); a name too long to compare is scrubbed when the policy
 * scrubs anything (fail closed).
 */
#include "policy.h"
#include "blob.h"

#include <string.h>

struct jail_policy {
	struct jail_blob_hdr hdr;
};

#define MAX_NAME 1024

struct jail_decision jail_decide_env(const struct jail_policy *p, const char *name, size_t len)
{
	const struct jail_blob_xrule *x = jail_blob_xrules(&p->hdr);
	struct jail_decision d = {JAIL_ALLOW, JAIL_NO_RULE, -1, 0};
	char lower[MAX_NAME];
	if (len > sizeof(lower)) {
		for (uint32_t i = 0; i < p->hdr.nxrules; i++)
			if (x[i].kind == JAIL_X_ENV_SCRUB)
				return (struct jail_decision){JAIL_DENY, JAIL_TOO_COMPLEX, (int32_t)(p->hdr.nrules + i), 0};
		return d;
	}
	for (size_t i = 0; i < len; i++)
		lower[i] = (name[i] >= 'A' && name[i] <= 'Z') ? (char)(name[i] - 'A' + 'a') : name[i];
	for (uint32_t i = 0; i < p->hdr.nxrules; i++) {
		if (x[i].kind != JAIL_X_ENV_SCRUB && x[i].kind != JAIL_X_ENV_KEEP)
			continue;
		if (!jail_glob_match(jail_blob_str(&p->hdr, x[i].pat), x[i].len, lower, (uint32_t)len))
			continue;
		if (x[i].kind == JAIL_X_ENV_KEEP)
			return (struct jail_decision){JAIL_ALLOW, JAIL_BY_RULE, (int32_t)(p->hdr.nrules + i), 0};
		if (d.verdict == JAIL_ALLOW)
			d = (struct jail_decision){JAIL_DENY, JAIL_BY_RULE, (int32_t)(p->hdr.nrules + i), 0};
	}
	return d;
}

int jail_policy_scrubs(const struct jail_policy *p)
{
	const struct jail_blob_xrule *x = jail_blob_xrules(&p->hdr);
	for (uint32_t i = 0; i < p->hdr.nxrules; i++)
		if (x[i].kind == JAIL_X_ENV_SCRUB)
			return 1;
	return 0;
}
