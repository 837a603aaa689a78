/*
 * hooks_env.c — the jail's variables stay in the process's own environment.
 *
 * The exec hooks give every child the jail whatever environment it is
 * passed, but glibc also starts programs through internal calls no preload
 * sees (wordexp's command substitution, for one), and those pass the
 * process's environ as it is. So a jailed program cannot remove or change
 * LD_PRELOAD's first entry or the JAIL_* variables: setenv and putenv of
 * them keep the jail's values (LD_PRELOAD may gain entries after the shim,
 * JAIL_BLOB layers after the jail's own: a nested jail only narrows),
 * unsetenv of them does nothing, and clearenv puts them back. Not
 * async-signal-safe, like the functions they replace.
 */
#define _GNU_SOURCE
#include "shim.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

static int is_jail_var(const char *name, size_t n)
{
	return (n == 10 && strncmp(name, "LD_PRELOAD", 10) == 0) || (n > 5 && strncmp(name, "JAIL_", 5) == 0);
}

/* Under net rules the resolver's variables cannot be set (exec.c). */
static int resolver_locked(const char *name, size_t n)
{
	return jail_config()->net_rules && jail_resolver_var(name, n);
}

typedef int (*setenv_fn)(const char *, const char *, int);

/* LD_PRELOAD=VALUE: kept with the shim first. */
static int set_preload(const char *value, int overwrite)
{
	const struct jail_config *c = jail_config();
	char buf[8192];
	size_t sl = strlen(c->shim_path), vl = value ? strlen(value) : 0;
	if (sl + vl + 2 > sizeof(buf))
		return 0;
	memcpy(buf, c->shim_path, sl + 1);
	if (vl && !(strncmp(value, c->shim_path, sl) == 0 && (value[sl] == '\0' || value[sl] == ':'))) {
		buf[sl] = ':';
		memcpy(buf + sl + 1, value, vl + 1);
	} else if (vl) {
		memcpy(buf, value, vl + 1);
	}
	return ((setenv_fn)jail_real(JAIL_ID_setenv))("LD_PRELOAD", buf, overwrite);
}

/* JAIL_BLOB may only grow: a nested jail appends its layers. */
static int extends_blob(const char *value)
{
	const struct jail_config *c = jail_config();
	size_t n = c->blob_list ? strlen(c->blob_list) : 0;
	return n && value && strncmp(value, c->blob_list, n) == 0 && value[n] == ':' && value[n + 1] != '\0';
}

JAIL_EXPORT int setenv(const char *name, const char *value, int overwrite)
{
	if (jail_launder(name) && resolver_locked(name, strlen(name)))
		return 0;
	if (jail_launder(name) && is_jail_var(name, strlen(name))) {
		if (strcmp(name, JAIL_ENV_BLOB) == 0 && extends_blob(value))
			return ((setenv_fn)jail_real(JAIL_ID_setenv))(name, value, overwrite);
		return strcmp(name, "LD_PRELOAD") == 0 ? set_preload(value, overwrite) : 0;
	}
	return ((setenv_fn)jail_real(JAIL_ID_setenv))(name, value, overwrite);
}

JAIL_EXPORT int unsetenv(const char *name)
{
	if (jail_launder(name) && is_jail_var(name, strlen(name)))
		return 0;
	return ((int (*)(const char *))jail_real(JAIL_ID_unsetenv))(name);
}

JAIL_EXPORT int putenv(char *string)
{
	const char *s = jail_launder(string);
	const char *eq = s ? strchr(s, '=') : NULL;
	size_t n = eq ? (size_t)(eq - s) : (s ? strlen(s) : 0);
	if (s && resolver_locked(s, n))
		return 0;
	if (s && is_jail_var(s, n)) {
		if (eq && n == strlen(JAIL_ENV_BLOB) && strncmp(s, JAIL_ENV_BLOB, n) == 0 && extends_blob(eq + 1))
			return ((int (*)(char *))jail_real(JAIL_ID_putenv))(string);
		return (eq && n == 10 && strncmp(s, "LD_PRELOAD", 10) == 0) ? set_preload(eq + 1, 1) : 0;
	}
	return ((int (*)(char *))jail_real(JAIL_ID_putenv))(string);
}

/* The jail's "NAME=value" strings, put back after the rest is cleared. */
static void restore(const char *entry)
{
	const char *eq = entry ? strchr(entry, '=') : NULL;
	char name[64];
	if (!eq || (size_t)(eq - entry) >= sizeof(name))
		return;
	memcpy(name, entry, (size_t)(eq - entry));
	name[eq - entry] = '\0';
	((setenv_fn)jail_real(JAIL_ID_setenv))(name, eq + 1, 1);
}

JAIL_EXPORT int clearenv(void)
{
	const struct jail_config *c = jail_config();
	int rc = ((int (*)(void))jail_real(JAIL_ID_clearenv))();
	set_preload(NULL, 1);
	const char *keep[JAIL_MAX_FORCED];
	size_t n = jail_forced_env(c, keep);
	for (size_t i = 0; i < n; i++)
		restore(keep[i]);
	return rc;
}
