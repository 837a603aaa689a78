/* jsonout.h — JSON strings for the log lines the helper programs write
 * (jail-netproxy, jail-broker), in the format the shim writes (check.c). */
#ifndef JAIL_JSONOUT_H
#define JAIL_JSONOUT_H

#include <stdio.h>

/* Writes s to f as a JSON string: quotes and backslashes escaped, bytes
 * outside printable ASCII as \u00XX (one per byte, as the shim does). */
void jail_json_string(FILE *f, const char *s);

#endif
