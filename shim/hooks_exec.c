/*
 * hooks_exec.c — every way glibc starts a program. Each checks the program
 * (exec access, its #! interpreter, that the preload can follow it) and
 * passes on an environment that keeps the child in the jail (exec.c).
 *
 * glibc's execvp, execl*, system and popen reach the kernel through internal
 * symbols a preload never sees, so they are reimplemented here on top of the
 * checked execve/posix_spawn, with glibc's documented behaviour: PATH search
 * with the EACCES rule, ENOEXEC files run by /bin/sh, system() ignoring
 * SIGINT/SIGQUIT and blocking SIGCHLD while it waits.
 */
#define _GNU_SOURCE
#include "shim.h"
#include "os.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <spawn.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/ptrace.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

#define SHELL "/bin/sh"

typedef int (*execve_fn)(const char *, char *const[], char *const[]);
typedef int (*execveat_fn)(int, const char *, char *const[], char *const[], int);
typedef int (*spawn_fn)(pid_t *, const char *, const posix_spawn_file_actions_t *, const posix_spawnattr_t *,
                        char *const[], char *const[]);

/* Replaces the process with `path`; returns only on failure, with -errno.
 * The jailed command re-executing itself keeps its secrets; when it was
 * reached through a symlink it is executed by the path it was recognised
 * by, so that a link swapped in between cannot carry them to another
 * program (ps then shows the real file's name). */
static int run(int dirfd, const char *path, char *const argv[], char *const envp[], int flags, const char *op)
{
	struct jail_env e;
	char prog[PATH_MAX];
	int rc = jail_check_exec(dirfd, path, flags, op, prog);
	int agent = rc == 0 && jail_is_agent(prog);
	if (rc || (rc = jail_env_build(envp, agent || jail_is_agent_process(), &e)) != 0)
		return rc;
	if (agent && !(flags & AT_EMPTY_PATH) && strcmp(prog, path) != 0)
		((execve_fn)jail_real(JAIL_ID_execve))(prog, argv, e.envp);
	else if (dirfd == AT_FDCWD && flags == 0)
		((execve_fn)jail_real(JAIL_ID_execve))(path, argv, e.envp);
	else
		((execveat_fn)jail_real(JAIL_ID_execveat))(dirfd, path, argv, e.envp, flags);
	rc = -errno;
	jail_env_free(&e);
	return rc;
}

static int fail(int rc)
{
	errno = -rc;
	return -1;
}

/* An argv array in mapped memory: n slots plus the terminating NULL. */
static char **argv_map(size_t n, size_t *len)
{
	*len = ((n + 1) * sizeof(char *) + 4095) & ~(size_t)4095;
	void *m = jail_os_mmap(NULL, *len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	return m == MAP_FAILED ? NULL : m;
}

/* execvp's fallback for a file the kernel will not run: /bin/sh FILE ARGS. */
static int run_as_script(const char *path, char *const argv[], char *const envp[], const char *op)
{
	size_t argc = 0, len;
	while (argv && argv[argc])
		argc++;
	char **v = argv_map(argc + 2, &len);
	if (!v)
		return -ENOMEM;
	v[0] = (char *)SHELL;
	v[1] = (char *)path;
	for (size_t i = 1; i < argc; i++)
		v[i + 1] = argv[i];
	v[argc < 1 ? 2 : argc + 1] = NULL;
	int rc = run(AT_FDCWD, SHELL, v, envp, 0, op);
	jail_os_munmap(v, len);
	return rc;
}

struct search {
	char *const *argv;
	char *const *envp;
	const char *op;
};

static int try_exec(const char *path, void *ctx)
{
	const struct search *s = ctx;
	int rc = run(AT_FDCWD, path, s->argv, s->envp, 0, s->op);
	return rc == -ENOEXEC ? run_as_script(path, s->argv, s->envp, s->op) : rc;
}

static int execvpe_common(const char *file, char *const argv[], char *const envp[], const char *op)
{
	struct search s = {argv, envp, op};
	char path[PATH_MAX];
	if (!file || !*file)
		return fail(-ENOENT);
	if (strchr(file, '/'))
		return fail(try_exec(file, &s));
	return fail(jail_path_search(file, path, sizeof(path), try_exec, &s));
}

JAIL_EXPORT int execve(const char *path, char *const argv[], char *const envp[])
{
	return fail(run(AT_FDCWD, path, argv, envp, 0, "execve"));
}

JAIL_EXPORT int execveat(int dirfd, const char *path, char *const argv[], char *const envp[], int flags)
{
	return fail(run(dirfd, path, argv, envp, flags, "execveat"));
}

JAIL_EXPORT int fexecve(int fd, char *const argv[], char *const envp[])
{
	return fail(run(fd, "", argv, envp, AT_EMPTY_PATH, "fexecve"));
}

JAIL_EXPORT int execv(const char *path, char *const argv[])
{
	return fail(run(AT_FDCWD, path, argv, environ, 0, "execv"));
}

JAIL_EXPORT int execvp(const char *file, char *const argv[])
{
	return execvpe_common(file, argv, environ, "execvp");
}

JAIL_EXPORT int execvpe(const char *file, char *const argv[], char *const envp[])
{
	return execvpe_common(file, argv, envp, "execvpe");
}

/* The execl family: collect the variadic arguments, then as execv*. */
#define COLLECT_ARGS(arg, ap_start, v, len, extra)                                                            \
	size_t n_ = 0;                                                                                         \
	va_list ap_;                                                                                           \
	va_start(ap_, ap_start);                                                                               \
	if ((arg) != NULL)                                                                                     \
		for (n_ = 1; va_arg(ap_, char *) != NULL; n_++)                                               \
			;                                                                                      \
	va_end(ap_);                                                                                           \
	char **v = argv_map(n_, &len);                                                                         \
	if (!v)                                                                                                \
		return fail(-ENOMEM);                                                                          \
	v[0] = (char *)(arg);                                                                                  \
	va_start(ap_, ap_start);                                                                               \
	for (size_t i_ = 1; i_ <= n_; i_++)                                                                    \
		v[i_] = va_arg(ap_, char *);                                                                   \
	extra;                                                                                                 \
	va_end(ap_)

JAIL_EXPORT int execl(const char *path, const char *arg, ...)
{
	size_t len;
	COLLECT_ARGS(arg, arg, v, len, (void)0);
	int rc = run(AT_FDCWD, path, v, environ, 0, "execl");
	jail_os_munmap(v, len);
	return fail(rc);
}

JAIL_EXPORT int execle(const char *path, const char *arg, ...)
{
	size_t len;
	char **envp;
	COLLECT_ARGS(arg, arg, v, len, envp = va_arg(ap_, char **));
	int rc = run(AT_FDCWD, path, v, envp, 0, "execle");
	jail_os_munmap(v, len);
	return fail(rc);
}

JAIL_EXPORT int execlp(const char *file, const char *arg, ...)
{
	size_t len;
	COLLECT_ARGS(arg, arg, v, len, (void)0);
	int rc = execvpe_common(file, v, environ, "execlp");
	int e = errno;
	jail_os_munmap(v, len);
	errno = e;
	return rc;
}

/* ---- posix_spawn ---- */

__thread long jail_spawner;

static int recheck_actions(const posix_spawn_file_actions_t *fa, const char *path, const char *op);

static int spawn_checked(pid_t *pid, const char *path, const posix_spawn_file_actions_t *fa,
                         const posix_spawnattr_t *attr, char *const argv[], char *const envp[], const char *op)
{
	struct jail_env e;
	int rc = recheck_actions(fa, path, op);
	if (rc)
		return rc;
	char prog[PATH_MAX];
	rc = jail_check_exec(AT_FDCWD, path, 0, op, prog);
	int agent = rc == 0 && jail_is_agent(prog);
	if (rc || (rc = jail_env_build(envp, agent, &e)) != 0)
		return -rc;
	long outer = jail_spawner; /* a spawn from a signal handler, inside another */
	jail_spawner = jail_os_gettid(); /* the child shares this thread's TLS: see jail_libc_open */
	rc = ((spawn_fn)jail_real(JAIL_ID_posix_spawn))(pid, agent ? prog : path, fa, attr, argv, e.envp); /* as run() */
	jail_spawner = outer;
	jail_env_free(&e);
	return rc;
}

JAIL_EXPORT int posix_spawn(pid_t *pid, const char *path, const posix_spawn_file_actions_t *fa,
                            const posix_spawnattr_t *attr, char *const argv[], char *const envp[])
{
	return spawn_checked(pid, path, fa, attr, argv, envp, "posix_spawn");
}

/* posix_spawnp: search PATH here, so the program checked is the one run. */
static int spawnable(const char *path, void *ctx)
{
	struct stat st;
	(void)ctx;
	long rc = jail_os_fstatat(AT_FDCWD, path, &st, 0);
	if (rc)
		return (int)rc;
	if (!S_ISREG(st.st_mode) || !(st.st_mode & 0111))
		return -EACCES;
	return jail_check_exec(AT_FDCWD, path, 0, "posix_spawnp", NULL);
}

JAIL_EXPORT int posix_spawnp(pid_t *pid, const char *file, const posix_spawn_file_actions_t *fa,
                             const posix_spawnattr_t *attr, char *const argv[], char *const envp[])
{
	char path[PATH_MAX];
	if (*file == '\0')
		return ENOENT;
	if (strchr(file, '/'))
		return spawn_checked(pid, file, fa, attr, argv, envp, "posix_spawnp");
	int rc = jail_path_search(file, path, sizeof(path), spawnable, NULL);
	if (rc)
		return -rc;
	return spawn_checked(pid, path, fa, attr, argv, envp, "posix_spawnp");
}

/* ---- posix_spawn file actions ----
 * The spawned child opens files and changes directory inside glibc, before
 * exec and past every hook. So the actions are noted as they are added: an
 * open is decided then, and again just before the spawn (a directory on its
 * path may have become a symlink meanwhile); after a chdir action, relative
 * opens and a relative program cannot be checked and are refused. What the
 * child does between the second check and its open is the window that
 * remains. */
#define MAX_FA 64
#define MAX_FA_OPENS 16

struct fa_open {
	int flags;
	char path[PATH_MAX];
};

static struct fa_note {
	_Atomic(const posix_spawn_file_actions_t *) fa;
	int chdir;
	int nopens;
	struct fa_open *opens; /* mapped: MAX_FA_OPENS entries */
} notes[MAX_FA];

static struct fa_note *note_of(const posix_spawn_file_actions_t *fa, int create)
{
	for (int i = 0; fa && i < MAX_FA; i++)
		if (atomic_load(&notes[i].fa) == fa)
			return &notes[i];
	for (int i = 0; create && fa && i < MAX_FA; i++) {
		const posix_spawn_file_actions_t *expected = NULL;
		if (atomic_compare_exchange_strong(&notes[i].fa, &expected, fa)) {
			notes[i].chdir = notes[i].nopens = 0;
			return &notes[i];
		}
	}
	return NULL;
}

static void note_drop(const posix_spawn_file_actions_t *fa)
{
	struct fa_note *n = note_of(fa, 0);
	if (!n)
		return;
	if (n->opens)
		jail_os_munmap(n->opens, MAX_FA_OPENS * sizeof(struct fa_open));
	n->opens = NULL;
	n->nopens = n->chdir = 0;
	atomic_store(&n->fa, NULL);
}

static int check_spawn_open(const char *path, int flags)
{
	int rc = jail_check_path(AT_FDCWD, path, jail_open_access(flags), (flags & O_NOFOLLOW) ? JAIL_RES_NOFOLLOW : 0,
	                         "posix_spawn_file_actions_addopen", NULL);
	return rc == -EACCES ? EACCES : 0; /* other errors are the child's to meet when it opens the path */
}

/* The file actions' opens, decided again just before the spawn. */
static int recheck_actions(const posix_spawn_file_actions_t *fa, const char *path, const char *op)
{
	struct fa_note *n = note_of(fa, 0);
	if (!n)
		return 0;
	if (n->chdir && path[0] != '/') {
		jail_refuse(op, path, "a relative program after a chdir in the spawn's file actions cannot be checked");
		return EACCES;
	}
	for (int i = 0; i < n->nopens; i++) {
		int rc = check_spawn_open(n->opens[i].path, n->opens[i].flags);
		if (rc)
			return rc;
	}
	return 0;
}

JAIL_EXPORT int posix_spawn_file_actions_addopen(posix_spawn_file_actions_t *fa, int fd, const char *path, int flags,
                                                 mode_t mode)
{
	struct fa_note *n = note_of(fa, 1);
	if (!n || (n->chdir && path[0] != '/') || n->nopens == MAX_FA_OPENS) {
		jail_refuse("posix_spawn_file_actions_addopen", path,
		            n ? "a relative path after a chdir action, or too many opens, cannot be checked"
		              : "too many file actions in use to check");
		return EACCES;
	}
	int rc = check_spawn_open(path, flags);
	if (rc)
		return rc;
	if (!n->opens) {
		void *m = jail_os_mmap(NULL, MAX_FA_OPENS * sizeof(struct fa_open), PROT_READ | PROT_WRITE,
		                       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (m == MAP_FAILED)
			return ENOMEM;
		n->opens = m;
	}
	if (strlen(path) >= PATH_MAX)
		return ENAMETOOLONG;
	n->opens[n->nopens].flags = flags;
	memcpy(n->opens[n->nopens].path, path, strlen(path) + 1);
	n->nopens++;
	return ((int (*)(posix_spawn_file_actions_t *, int, const char *, int, mode_t))jail_real(
	    JAIL_ID_posix_spawn_file_actions_addopen))(fa, fd, path, flags, mode);
}

JAIL_EXPORT int posix_spawn_file_actions_addchdir_np(posix_spawn_file_actions_t *fa, const char *path)
{
	struct fa_note *n = note_of(fa, 1);
	if (!n)
		return EACCES;
	n->chdir = 1;
	return ((int (*)(posix_spawn_file_actions_t *, const char *))jail_real(
	    JAIL_ID_posix_spawn_file_actions_addchdir_np))(fa, path);
}

JAIL_EXPORT int posix_spawn_file_actions_addfchdir_np(posix_spawn_file_actions_t *fa, int fd)
{
	struct fa_note *n = note_of(fa, 1);
	if (!n)
		return EACCES;
	n->chdir = 1;
	return ((int (*)(posix_spawn_file_actions_t *, int))jail_real(JAIL_ID_posix_spawn_file_actions_addfchdir_np))(
	    fa, fd);
}

JAIL_EXPORT int posix_spawn_file_actions_init(posix_spawn_file_actions_t *fa)
{
	note_drop(fa); /* memory reused without destroy must not inherit old notes */
	return ((int (*)(posix_spawn_file_actions_t *))jail_real(JAIL_ID_posix_spawn_file_actions_init))(fa);
}

JAIL_EXPORT int posix_spawn_file_actions_destroy(posix_spawn_file_actions_t *fa)
{
	note_drop(fa);
	return ((int (*)(posix_spawn_file_actions_t *))jail_real(JAIL_ID_posix_spawn_file_actions_destroy))(fa);
}

/* Attaching to a process (strace -p, gdb -p) reaches out of the jail: the
 * process may not be jailed, or may be the user's shell. A debugger that
 * starts its own child (PTRACE_TRACEME in the child) still works. */
JAIL_EXPORT long ptrace(enum __ptrace_request request, ...)
{
	va_list ap;
	va_start(ap, request);
	pid_t pid = va_arg(ap, pid_t);
	void *addr = va_arg(ap, void *), *data = va_arg(ap, void *);
	va_end(ap);
	if (request == PTRACE_ATTACH || request == PTRACE_SEIZE) {
		errno = EPERM;
		jail_refuse("ptrace", "(another process)", "attaching to a process reaches out of the jail");
		return -1;
	}
	return ((long (*)(enum __ptrace_request, ...))jail_real(JAIL_ID_ptrace))(request, pid, addr, data);
}

/* ---- system and popen: /bin/sh -c COMMAND through the checked spawn ---- */

static int spawn_shell(pid_t *pid, const char *command, const posix_spawn_file_actions_t *fa,
                       const posix_spawnattr_t *attr, const char *op)
{
	char *argv[] = {(char *)"sh", (char *)"-c", (char *)command, NULL};
	return spawn_checked(pid, SHELL, fa, attr, argv, environ, op);
}

/* Concurrent system() calls share one saving of SIGINT and SIGQUIT: the
 * first ignores them, the last restores them (as glibc does). */
static pthread_mutex_t system_lock = PTHREAD_MUTEX_INITIALIZER;
static int system_users;
static struct sigaction saved_int, saved_quit;

static void system_enter(void)
{
	struct sigaction ign = {.sa_handler = SIG_IGN};
	sigemptyset(&ign.sa_mask);
	pthread_mutex_lock(&system_lock);
	if (system_users++ == 0) {
		sigaction(SIGINT, &ign, &saved_int);
		sigaction(SIGQUIT, &ign, &saved_quit);
	}
	pthread_mutex_unlock(&system_lock);
}

static void system_leave(void)
{
	pthread_mutex_lock(&system_lock);
	if (--system_users == 0) {
		sigaction(SIGINT, &saved_int, NULL);
		sigaction(SIGQUIT, &saved_quit, NULL);
	}
	pthread_mutex_unlock(&system_lock);
}

JAIL_EXPORT int system(const char *command)
{
	struct sigaction old_int, old_quit;
	sigset_t chld, old_mask, defaults;
	posix_spawnattr_t attr;
	pid_t pid;
	int status = -1, rc;

	if (command == NULL) /* is a shell available? */
		return jail_check_exec(AT_FDCWD, SHELL, 0, "system", NULL) == 0;
	system_enter();
	old_int = saved_int;
	old_quit = saved_quit;
	sigemptyset(&chld);
	sigaddset(&chld, SIGCHLD);
	sigprocmask(SIG_BLOCK, &chld, &old_mask);
	sigemptyset(&defaults);
	if (old_int.sa_handler != SIG_IGN)
		sigaddset(&defaults, SIGINT);
	if (old_quit.sa_handler != SIG_IGN)
		sigaddset(&defaults, SIGQUIT);
	posix_spawnattr_init(&attr);
	posix_spawnattr_setsigmask(&attr, &old_mask);
	posix_spawnattr_setsigdefault(&attr, &defaults);
	posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK);
	rc = spawn_shell(&pid, command, NULL, &attr, "system");
	posix_spawnattr_destroy(&attr);
	if (rc == 0) {
		while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
			;
	} else {
		status = 127 << 8; /* as if the shell could not run: what glibc reports */
	}
	system_leave();
	sigprocmask(SIG_SETMASK, &old_mask, NULL);
	if (rc != 0)
		errno = rc;
	return status;
}

/* popen'd streams and their children, for pclose: a fixed table claimed
 * and released with atomic exchanges (popen is not async-signal-safe, but
 * threads call it concurrently). */
#define MAX_POPEN 64
static struct {
	_Atomic(FILE *) f;
	pid_t pid;
} popened[MAX_POPEN];

JAIL_EXPORT FILE *popen(const char *command, const char *type)
{
	int fds[2], cloexec = type && strchr(type, 'e') != NULL;
	posix_spawn_file_actions_t fa;
	pid_t pid;
	if (!command || !type || (type[0] != 'r' && type[0] != 'w')) {
		errno = EINVAL;
		return NULL;
	}
	if (pipe2(fds, O_CLOEXEC) != 0)
		return NULL;
	int reading = type[0] == 'r';
	int parent_end = reading ? fds[0] : fds[1], child_end = reading ? fds[1] : fds[0];
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_adddup2(&fa, child_end, reading ? 1 : 0);
	/* as POSIX asks: a popen child does not keep earlier popen streams open */
	for (int i = 0; i < MAX_POPEN; i++) {
		FILE *other = atomic_load(&popened[i].f);
		if (other)
			posix_spawn_file_actions_addclose(&fa, fileno(other));
	}
	int rc = spawn_shell(&pid, command, &fa, NULL, "popen");
	posix_spawn_file_actions_destroy(&fa);
	close(child_end);
	if (rc != 0) {
		close(parent_end);
		errno = rc;
		return NULL;
	}
	if (!cloexec)
		fcntl(parent_end, F_SETFD, 0);
	FILE *f = fdopen(parent_end, reading ? "r" : "w");
	for (int i = 0; f && i < MAX_POPEN; i++) {
		FILE *expected = NULL;
		if (atomic_compare_exchange_strong(&popened[i].f, &expected, f)) {
			popened[i].pid = pid; /* read only by pclose(f), after popen returns f */
			return f;
		}
	}
	/* no stream, or no room to remember the child: undo */
	if (f)
		fclose(f);
	else
		close(parent_end);
	while (waitpid(pid, NULL, 0) < 0 && errno == EINTR)
		;
	errno = EMFILE;
	return NULL;
}

JAIL_EXPORT int pclose(FILE *f)
{
	for (int i = 0; i < MAX_POPEN; i++) {
		if (atomic_load(&popened[i].f) != f)
			continue;
		pid_t pid = popened[i].pid;
		int status;
		atomic_store(&popened[i].f, NULL);
		fclose(f);
		while (waitpid(pid, &status, 0) < 0)
			if (errno != EINTR)
				return -1;
		return status;
	}
	return ((int (*)(FILE *))jail_real(JAIL_ID_pclose))(f);
}
