/*
 * early.c — a library whose constructor opens a file before libjail's own
 * constructor has run (glibc initializes the program's libraries before a
 * preloaded one that nothing depends on). hookprobe-early links it and
 * reports what that open got: the jail must already hold.
 * With "early-thread", the constructor instead starts a thread that calls
 * poll() without pause for the rest of the process's life: libjail's
 * constructor then runs with another thread in the C library's code.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <string.h>
#include <unistd.h>

static int early_result = -1;

static void *poll_forever(void *arg)
{
	(void)arg;
	for (;;)
		poll(NULL, 0, 0);
	return NULL;
}

/* glibc passes argc, argv and envp to ELF constructors */
__attribute__((constructor)) static void early_open(int argc, char **argv, char **envp)
{
	(void)envp;
	pthread_t t;
	if (argc > 1 && strcmp(argv[1], "early-thread") == 0 && pthread_create(&t, NULL, poll_forever, NULL) == 0)
		pthread_detach(t);
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
