/* learn.h — jailrun --learn (learn.c). */
#ifndef JAIL_LEARN_H
#define JAIL_LEARN_H

#include "policy.h"

#include <stddef.h>

/* Writes to `out` a policy that includes `includes` (or the default when
 * there are none) and grants what the audit log `log` shows the run needed,
 * short of any location that `base` or the built-in default `defp` denies by
 * rule (credentials, protected files). 0, or -1 with a message. */
int jail_learn(const struct jail_policy *base, const struct jail_policy *defp, const char *log, const char *out,
               const char *const *includes, size_t nincludes, const char *command);

/* A reason not to grant `a` on `path` and beneath it: a deny rule of `p`
 * decides it, or a deny rule lies beneath it (a credential location, say);
 * described into buf. NULL when such a grant is clear. */
const char *jail_grant_refusal(const struct jail_policy *p, enum jail_access a, const char *path, char *buf,
                               size_t bufsz);

#endif
