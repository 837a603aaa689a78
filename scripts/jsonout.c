/* jsonout.c — see jsonout.h. */
#include "jsonout.h"

#include <fcntl.h>
#include <time.h>
#include <unistd.h>

void jail_json_string(FILE *f, const char *s)
{
	fputc('"', f);
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;
		if (c == '"' || c == '\\')
			fprintf(f, "\\%c", c);
		else if (c < 0x20 || c >= 0x7f)
			fprintf(f, "\\u%04x", c);
		else
			fputc(c, f);
	}
	fputc('"', f);
}

FILE *jail_log_begin(const char *path, long pid, const char *program)
{
	int fd = path ? open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC | O_NOCTTY, 0600) : -1;
	FILE *f = fd >= 0 ? fdopen(fd, "a") : NULL;
	if (!f) {
		if (fd >= 0)
			close(fd);
		return NULL;
	}
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	fprintf(f, "{\"time\":%lld.%03ld,\"pid\":%ld,\"program\":", (long long)ts.tv_sec, ts.tv_nsec / 1000000, pid);
	jail_json_string(f, program);
	return f;
}
