/*
 * early.c — a library whose constructor opens a file before libjail's own
 * constructor has run (glibc initializes the program's libraries before a
 * preloaded one that nothing depends on). hookprobe-early links it and
 * reports what that open got: the jail must already hold.
 */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

static int early_result = -1;

/* glibc passes argc, argv and envp to ELF constructors */
__attribute__((constructor)) static void early_open(int argc, char **argv, char **envp)
{
	(void)envp;
	if (argc > 2 && strcmp(argv[1], "early") == 0) {
		int fd = open(argv[2], O_RDONLY | O_CLOEXEC);
		early_result = fd >= 0 ? 0 : errno;
		if (fd >= 0)
			close(fd);
	}
}

__attribute__((visibility("default"))) int early_open_result(void);
int early_open_result(void)
{
	return early_result;
}
