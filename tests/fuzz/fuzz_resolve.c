/*
 * fuzz_resolve — libFuzzer target: the resolver against realpath(3) and the
 * kernel, on trees the input describes.
 *
 * The input builds a small tree under a scratch directory — directories,
 * files and symlinks (relative, absolute, dangling, looping, through ..) —
 * then names paths in it. For every path that exists, jail_resolve (both
 * routes) must agree with realpath(3) and with where the kernel's own O_PATH
 * open lands; for every path at all, it must not crash or overrun.
 */
#define _GNU_SOURCE
#include "resolve.h"

#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static char root[64];
static const char *const names[] = {"a", "b", "c", "..", ".", "l", "m", "d"};

static int rm_one(const char *p, const struct stat *st, int f, struct FTW *w)
{
	(void)st, (void)f, (void)w;
	return remove(p);
}

/* Reads a path of up to 6 components from the input into out. */
static size_t take_path(const uint8_t *d, size_t n, char *out, size_t outsz, int absolute)
{
	size_t used = 0, len = 0;
	if (absolute)
		len += (size_t)snprintf(out, outsz, "%s", root);
	unsigned k = n ? (d[0] % 6) + 1 : 1;
	used++;
	for (unsigned i = 0; i < k && used < n; i++, used++)
		len += (size_t)snprintf(out + len, outsz - len, "%s%s", (len || absolute) ? "/" : "", names[d[used] % 8]);
	if (used < n && (d[used] & 0x80)) /* a trailing slash now and then */
		len += (size_t)snprintf(out + len, outsz - len, "/");
	return used < n ? used + 1 : n;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct jail_resolved r;
	char p[1024], t[1024], rp[PATH_MAX], kp[PATH_MAX], link[64];
	if (!root[0]) {
		strcpy(root, "/tmp/jail-fuzz-XXXXXX");
		if (!mkdtemp(root))
			abort();
		char real[PATH_MAX];
		if (!realpath(root, real))
			abort();
		snprintf(root, sizeof(root), "%s", real);
	}
	nftw(root, rm_one, 16, FTW_DEPTH | FTW_PHYS);
	mkdir(root, 0755);
	size_t i = 0;
	/* build: up to 12 entries; 0..3 dir, 4..5 file, 6..7 symlink */
	for (int e = 0; e < 12 && i + 2 < size; e++) {
		unsigned op = data[i++] % 8;
		i += take_path(data + i, size - i, p, sizeof(p), 1);
		if (op < 4) {
			mkdir(p, 0755);
		} else if (op < 6) {
			int fd = open(p, O_CREAT | O_WRONLY | O_CLOEXEC, 0644);
			if (fd >= 0)
				close(fd);
		} else {
			i += take_path(data + i, size - i, t, sizeof(t), op == 7);
			if (symlink(t, p) != 0 && errno == ENOSPC)
				abort();
		}
	}
	/* check: up to 8 paths */
	for (int q = 0; q < 8 && i < size; q++) {
		i += take_path(data + i, size - i, p, sizeof(p), 1);
		for (unsigned flags = 0; flags <= JAIL_RES_SLOW; flags += JAIL_RES_SLOW) {
			int rc = jail_resolve(AT_FDCWD, p, flags, &r);
			if (rc == 0 && r.path[0] != '/' && r.kind == JAIL_OBJ_PATH)
				__builtin_trap();
			if (!realpath(p, rp))
				continue; /* missing or looping: no reference to compare with */
			int fd = open(p, O_PATH | O_CLOEXEC);
			if (fd < 0)
				continue;
			snprintf(link, sizeof(link), "/proc/self/fd/%d", fd);
			ssize_t n = readlink(link, kp, sizeof(kp) - 1);
			close(fd);
			if (n <= 0)
				continue;
			kp[n] = '\0';
			if (rc != 0 || !r.exists || strcmp(r.path, rp) != 0 || strcmp(rp, kp) != 0) {
				fprintf(stderr, "path %s flags %u: resolve rc %d exists %d -> %s; realpath %s; kernel %s\n", p, flags,
				        rc, r.exists, r.path, rp, kp);
				__builtin_trap();
			}
		}
	}
	return 0;
}
