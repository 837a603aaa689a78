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

struct jail_build {
	struct jail_brule *rules;
	uint32_t nrules, caprules;
	char **files;
	uint32_t nfiles, capfiles;
	enum jail_mode mode;
	enum jail_kernel kernel;
	char *log;
};

void jail_build_free(struct jail_build *b);

/* compile.c: builds the blob. Returns NULL when out of memory or too large. */
struct jail_policy *jail_compile(const struct jail_build *b, struct jail_error *err);

#endif
