/* jsonout.h — JSON strings for the log lines the helper programs write
 * (jail-netproxy, jail-broker), in the format the shim writes (check.c). */
#ifndef JAIL_JSONOUT_H
#define JAIL_JSONOUT_H

#include <stdio.h>

/* Writes s to f as a JSON string: quotes and backslashes escaped, bytes
 * outside printable ASCII as \u00XX (one per byte, as the shim does). */
void jail_json_string(FILE *f, const char *s);

/* Opens the log for appending, created 0600 as the shim creates it; NULL
 * when path is NULL or it cannot be opened. Starts the line: the time,
 * the pid and the program, as the shim's lines begin. */
FILE *jail_log_begin(const char *path, long pid, const char *program);

#endif
