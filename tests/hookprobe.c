/*
 * hookprobe — calls one hooked libc function, the way a program would, and
 * prints what came back: "ok", "ok VALUE", or "err ERRNO_NAME". The test
 * suites run it inside the jail, built three ways: plain, with
 * -D_FORTIFY_SOURCE=2 (so open() becomes __open_2), and statically linked
 * (which the jail must refuse to start).
 *
 *   hookprobe FUNCTION ARG...      (see the table at the bottom)
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <mntent.h>
#include <sys/mman.h>
#include <sys/ptrace.h>
#include <sys/statvfs.h>
#include <wordexp.h>
#include <sys/stat.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <sys/time.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <sys/xattr.h>
#include <unistd.h>
#include <utime.h>

extern char **environ;

#ifdef WITH_EARLY
int early_open_result(void);
#endif
/* __xmknod is a compat symbol old binaries call; found at run time as the
 * dynamic linker would bind it for them */
typedef int (*xmknod_fn)(int ver, const char *path, mode_t mode, dev_t *dev);

/* glibc's fortified entry points, called directly (any compiler) */
int __open_2(const char *path, int flags);
int __openat_2(int dirfd, const char *path, int flags);

/* realpath-thread: a thread with a descriptor table of its own
 * (unshare(CLONE_FILES)) asks for a name while the main thread holds
 * another file at the number the thread's lookup gets */
struct rp_thread {
	const char *name;
	char out[PATH_MAX];
	int ok;
	pthread_barrier_t *turns;
};

static void *rp_thread_main(void *arg)
{
	struct rp_thread *t = arg;
	int shared = unshare(CLONE_FILES);
	pthread_barrier_wait(t->turns); /* its table is its own */
	pthread_barrier_wait(t->turns); /* the main thread opened its file */
	t->ok = shared == 0 && realpath(t->name, t->out) != NULL;
	return NULL;
}

static int report(long rc)
{
	if (rc < 0) {
		const char *n = strerrorname_np(errno);
		printf("err %s\n", n ? n : "?");
		return 0;
	}
	printf("ok\n");
	return 0;
}

/* A thread with a cancellation pending asks for the main thread's
 * attributes: glibc reads /proc/self/maps for them, holding the main
 * thread's lock, through its internal open, which is no cancellation point.
 * Were it one, the thread would end holding the lock, and the main
 * thread's own request below would wait forever (the alarm ends it). */
static pthread_t main_thread;

static void *ask_cancelled(void *arg)
{
	pthread_attr_t at;
	(void)arg;
	pthread_setcancelstate(PTHREAD_CANCEL_DISABLE, NULL);
	pthread_cancel(pthread_self());
	pthread_setcancelstate(PTHREAD_CANCEL_ENABLE, NULL);
	if (pthread_getattr_np(main_thread, &at) == 0)
		pthread_attr_destroy(&at);
	return NULL;
}

static int getattr_cancel(void)
{
	pthread_t t;
	pthread_attr_t at;
	main_thread = pthread_self();
	alarm(10);
	if (pthread_create(&t, NULL, ask_cancelled, NULL) != 0 || pthread_join(t, NULL) != 0)
		return report(-1);
	int rc = pthread_getattr_np(main_thread, &at);
	if (rc == 0)
		pthread_attr_destroy(&at);
	errno = rc;
	return report(rc == 0 ? 0 : -1);
}

/* Processes forked by a signal handler while the thread is inside
 * posix_spawn each try to list A; the count of those that could. The
 * shim's note that the thread is spawning (jail_spawner) must not make
 * them skip the checks of their own calls. */
static const char *fork_target;

static void fork_and_list(int sig)
{
	(void)sig;
	if (fork() == 0) {
		DIR *d = opendir(fork_target);
		_exit(d ? 42 : 1);
	}
}

static int spawn_fork_opendir(const char *dir)
{
	struct sigaction sa = {.sa_handler = fork_and_list, .sa_flags = SA_RESTART};
	struct itimerval every = {{0, 200}, {0, 200}}, stop = {{0, 0}, {0, 0}};
	char *targv[] = {(char *)"true", NULL};
	int forked = 0, listed = 0, st;
	pid_t w, pid;
	fork_target = dir;
	sigaction(SIGALRM, &sa, NULL);
	setitimer(ITIMER_REAL, &every, NULL);
	for (int i = 0; i < 1000; i++)
		if (posix_spawn(&pid, "/bin/true", NULL, NULL, targv, environ) == 0)
			waitpid(pid, &st, 0);
	setitimer(ITIMER_REAL, &stop, NULL);
	while ((w = waitpid(-1, &st, 0)) > 0 || errno == EINTR) {
		if (w <= 0)
			continue;
		forked++;
		listed += WIFEXITED(st) && WEXITSTATUS(st) == 42;
	}
	if (forked == 0 || listed)
		printf("err %d of %d forked children listed it\n", listed, forked);
	else
		printf("ok\n");
	return 0;
}

/* A posix_spawn's result: its error, or the child's exit status. */
static int spawned(int rc, pid_t pid)
{
	if (rc) {
		errno = rc;
		return report(-1);
	}
	int status;
	waitpid(pid, &status, 0);
	printf("exit %d\n", WEXITSTATUS(status));
	return 0;
}

static int report_ptr(const void *p)
{
	return report(p ? 0 : -1);
}

/* "w,creat,excl" → O_WRONLY|O_CREAT|O_EXCL (and O_CLOEXEC) */
static int open_flags(const char *s)
{
	static const struct {
		const char *word;
		int flag;
	} words[] = {{"r", O_RDONLY},       {"w", O_WRONLY},       {"rw", O_RDWR},     {"creat", O_CREAT},
	             {"trunc", O_TRUNC},    {"append", O_APPEND},  {"excl", O_EXCL},   {"nofollow", O_NOFOLLOW},
	             {"path", O_PATH},      {"tmpfile", O_TMPFILE}, {"dir", O_DIRECTORY}};
	int f = O_CLOEXEC;
	while (*s) {
		size_t n = strcspn(s, ",");
		for (size_t i = 0; i < sizeof(words) / sizeof(words[0]); i++)
			if (strlen(words[i].word) == n && strncmp(words[i].word, s, n) == 0)
				f |= words[i].flag;
		s += n + (s[n] == ',');
	}
	return f;
}

/* open() as a program writes it: with a mode only when one is needed, so
 * that a fortified build calls __open_2. */
static int open_as_written(const char *path, int flags)
{
	if (flags & (O_CREAT | O_TMPFILE))
		return open(path, flags, 0644);
	return open(path, flags);
}

static int dirfd_of(const char *dir)
{
	int fd = open(dir, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0) {
		printf("setup: cannot open %s: %s\n", dir, strerror(errno));
		exit(2);
	}
	return fd;
}

static int ro_fd(const char *path)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		printf("setup: cannot open %s: %s\n", path, strerror(errno));
		exit(2);
	}
	return fd;
}

/* ---- stress: threads, signals, vfork ---- */

struct hammer {
	const char *allowed, *denied;
	int iters, bad;
};

static void *hammer_thread(void *arg)
{
	struct hammer *h = arg;
	for (int i = 0; i < h->iters; i++) {
		int fd = open(h->allowed, O_RDONLY | O_CLOEXEC);
		if (fd < 0)
			__atomic_add_fetch(&h->bad, 1, __ATOMIC_RELAXED);
		else
			close(fd);
		errno = 0;
		if (open(h->denied, O_RDONLY | O_CLOEXEC) >= 0 || errno != EACCES)
			__atomic_add_fetch(&h->bad, 1, __ATOMIC_RELAXED);
		struct stat st;
		if (stat(h->allowed, &st) != 0)
			__atomic_add_fetch(&h->bad, 1, __ATOMIC_RELAXED);
	}
	return NULL;
}

static int stress_threads(const char *allowed, const char *denied, int nthreads, int iters)
{
	pthread_t t[64];
	struct hammer h = {allowed, denied, iters, 0};
	if (nthreads > 64)
		nthreads = 64;
	for (int i = 0; i < nthreads; i++)
		pthread_create(&t[i], NULL, hammer_thread, &h);
	for (int i = 0; i < nthreads; i++)
		pthread_join(t[i], NULL);
	printf(h.bad ? "bad %d\n" : "ok\n", h.bad);
	return 0;
}

/* Every hook family from 16 threads at once, with a thread that forks (a
 * child that uses hooks and exits) and a timer whose signal handler opens
 * files, all while the others are inside hooks. Allowed calls must succeed
 * and refused ones fail with EACCES, every time. */
struct mix {
	const char *dir, *denied;
	int id, iters, bad;
};

/* SIGALRM is process-directed: handlers run in any thread, concurrently */
static int ticks;
static const char *tick_path;

static void on_tick(int s)
{
	(void)s;
	int saved = errno;
	int fd = open(tick_path, O_RDONLY | O_CLOEXEC);
	if (fd >= 0)
		close(fd);
	__atomic_add_fetch(&ticks, 1, __ATOMIC_RELAXED);
	errno = saved;
}

static void *mix_thread(void *arg)
{
	struct mix *m = arg;
	char a[512], b[512], d[512];
	struct stat st;
	snprintf(a, sizeof(a), "%s/mix-%d-a", m->dir, m->id);
	snprintf(b, sizeof(b), "%s/mix-%d-b", m->dir, m->id);
	snprintf(d, sizeof(d), "%s/mix-%d-d", m->dir, m->id);
	for (int i = 0; i < m->iters; i++) {
		int bad = 0, fd = open(a, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
		bad |= fd < 0;
		if (fd >= 0)
			close(fd);
		bad |= rename(a, b) != 0 || stat(b, &st) != 0 || access(b, F_OK) != 0 || chmod(b, 0600) != 0;
		FILE *f = fopen(b, "r");
		bad |= f == NULL;
		if (f)
			fclose(f);
		bad |= mkdir(d, 0755) != 0 || rmdir(d) != 0 || unlink(b) != 0;
		errno = 0;
		bad |= open(m->denied, O_RDONLY | O_CLOEXEC) >= 0 || errno != EACCES;
		errno = 0;
		bad |= stat(m->denied, &st) == 0 || errno != EACCES;
		if (bad)
			__atomic_add_fetch(&m->bad, 1, __ATOMIC_RELAXED);
	}
	return NULL;
}

static void *fork_thread(void *arg)
{
	struct mix *m = arg;
	for (int i = 0; i < m->iters / 10; i++) {
		pid_t pid = fork();
		if (pid == 0) {
			errno = 0;
			int fd = open(m->denied, O_RDONLY | O_CLOEXEC);
			_exit(fd < 0 && errno == EACCES ? 0 : 1);
		}
		int st;
		if (pid < 0 || waitpid(pid, &st, 0) != pid || !WIFEXITED(st) || WEXITSTATUS(st) != 0)
			__atomic_add_fetch(&m->bad, 1, __ATOMIC_RELAXED);
	}
	return NULL;
}

static int stress_all(const char *dir, const char *denied)
{
	pthread_t t[17];
	struct mix m[17];
	struct sigaction sa = {.sa_handler = on_tick, .sa_flags = SA_RESTART};
	struct itimerval it = {{0, 2000}, {0, 2000}};
	int bad = 0;
	tick_path = denied;
	sigaction(SIGALRM, &sa, NULL);
	setitimer(ITIMER_REAL, &it, NULL);
	for (int i = 0; i < 17; i++) {
		m[i] = (struct mix){dir, denied, i, 300, 0};
		pthread_create(&t[i], NULL, i == 16 ? fork_thread : mix_thread, &m[i]);
	}
	for (int i = 0; i < 17; i++) {
		pthread_join(t[i], NULL);
		bad += m[i].bad;
	}
	setitimer(ITIMER_REAL, &(struct itimerval){{0, 0}, {0, 0}}, NULL);
	if (bad)
		printf("bad %d (ticks %d)\n", bad, __atomic_load_n(&ticks, __ATOMIC_RELAXED));
	else
		printf("ok\n");
	return 0;
}

static const char *sig_path;
static volatile sig_atomic_t sig_result = 99;

static void on_signal(int s)
{
	(void)s;
	int saved = errno;
	int fd = open(sig_path, O_RDONLY | O_CLOEXEC);
	sig_result = fd >= 0 ? 0 : errno;
	if (fd >= 0)
		close(fd);
	errno = saved;
}

static int signal_open(const char *path)
{
	struct sigaction sa = {.sa_handler = on_signal};
	sig_path = path;
	sigaction(SIGUSR1, &sa, NULL);
	raise(SIGUSR1);
	if (sig_result == 0)
		printf("ok\n");
	else
		printf("err %s\n", strerrorname_np((int)sig_result));
	return 0;
}

static int vfork_exec(const char *prog, const char *arg)
{
	pid_t pid = vfork();
	if (pid == 0) {
		char *argv[] = {(char *)prog, (char *)arg, NULL};
		execv(prog, argv);
		_exit(errno == EACCES ? 126 : 127);
	}
	int st;
	waitpid(pid, &st, 0);
	printf("exit %d\n", WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st));
	return 0;
}

/* A child spawned with an empty environment must still be jailed. */
static int spawn_empty_env(const char *prog, const char *arg)
{
	char *argv[] = {(char *)prog, (char *)arg, NULL};
	char *envp[] = {NULL};
	pid_t pid;
	int rc = posix_spawn(&pid, prog, NULL, NULL, argv, envp);
	if (rc) {
		printf("err %s\n", strerrorname_np(rc));
		return 0;
	}
	int st;
	waitpid(pid, &st, 0);
	printf("exit %d\n", WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st));
	return 0;
}

static int exec_result(int rc)
{
	/* reached only when the exec failed */
	return report(rc < 0 ? rc : -1);
}

static int run(int argc, char **argv)
{
	const char *f = argv[1], *a = argc > 2 ? argv[2] : "", *b = argc > 3 ? argv[3] : "",
	           *c = argc > 4 ? argv[4] : "";
	char joined[4096] = ""; /* the arguments as one shell command */
	for (int i = 2; i < argc; i++) {
		strncat(joined, argv[i], sizeof(joined) - strlen(joined) - 2);
		if (i + 1 < argc)
			strcat(joined, " ");
	}
	struct stat st;
	char buf[4096];
	struct timeval tv[2] = {{1, 0}, {2, 0}};
	struct timespec ts[2] = {{1, 0}, {2, 0}};
	char *eargv[] = {(char *)a, (char *)b, NULL};
	pid_t pid = 0;

#define IS(name) (strcmp(f, name) == 0)
	/* open family */
	if (IS("open"))
		return report(open_as_written(a, open_flags(b)));
	if (IS("open64"))
		return report(open64(a, open_flags(b), 0644));
	if (IS("__open_2"))
		return report(__open_2(a, open_flags(b)));
	if (IS("__openat_2"))
		return report(__openat_2(dirfd_of(a), b, open_flags(c)));
	if (IS("openat"))
		return report(openat(dirfd_of(a), b, open_flags(c), 0644));
	if (IS("creat"))
		return report(creat(a, 0644));
	if (IS("fopen"))
		return report_ptr(fopen(a, b));
	if (IS("fopen-write")) {
		FILE *fp = fopen(a, b);
		if (!fp)
			return report(-1);
		fputs(c, fp);
		return report(fclose(fp) == 0 ? 0 : -1);
	}
	if (IS("freopen"))
		return report_ptr(freopen(a, b, stdin));
	if (IS("mkstemp")) {
		strncpy(buf, a, sizeof(buf) - 1);
		return report(mkstemp(buf));
	}
	if (IS("mkdtemp")) {
		strncpy(buf, a, sizeof(buf) - 1);
		return report_ptr(mkdtemp(buf));
	}
	if (IS("mkostemps-cloexec")) { /* ARG: template, B: suffix length; prints the file's mode and FD_CLOEXEC */
		struct stat made_st;
		strncpy(buf, a, sizeof(buf) - 1);
		int fd = mkostemps(buf, b ? atoi(b) : 0, O_CLOEXEC);
		if (fd < 0 || fstat(fd, &made_st) != 0)
			return report(-1);
		size_t n = strlen(buf), s = b ? (size_t)atoi(b) : 0;
		int made = n == strlen(a) && strcmp(buf + n - s, a + n - s) == 0 && strncmp(buf + n - s - 6, "XXXXXX", 6) != 0;
		printf("ok %o cloexec=%d named=%d\n", (unsigned)(made_st.st_mode & 0777), fcntl(fd, F_GETFD) & FD_CLOEXEC,
		       made);
		return 0;
	}
	/* names */
	if (IS("rename"))
		return report(rename(a, b));
	if (IS("renameat"))
		return report(renameat(AT_FDCWD, a, AT_FDCWD, b));
	if (IS("renameat2-exchange"))
		return report(renameat2(AT_FDCWD, a, AT_FDCWD, b, RENAME_EXCHANGE));
	if (IS("link"))
		return report(link(a, b));
	if (IS("linkat-empty"))
		return report(linkat(ro_fd(a), "", AT_FDCWD, b, AT_EMPTY_PATH));
	if (IS("linkat-proc")) {
		snprintf(buf, sizeof(buf), "/proc/self/fd/%d", ro_fd(a));
		return report(linkat(AT_FDCWD, buf, AT_FDCWD, b, AT_SYMLINK_FOLLOW));
	}
	if (IS("symlink"))
		return report(symlink(a, b));
	if (IS("symlinkat"))
		return report(symlinkat(a, AT_FDCWD, b));
	if (IS("unlink"))
		return report(unlink(a));
	if (IS("unlinkat"))
		return report(unlinkat(dirfd_of(a), b, 0));
	if (IS("remove"))
		return report(remove(a));
	if (IS("rmdir"))
		return report(rmdir(a));
	if (IS("mkdir"))
		return report(mkdir(a, 0755));
	if (IS("mkdirat"))
		return report(mkdirat(dirfd_of(a), b, 0755));
	if (IS("mknod"))
		return report(mknod(a, S_IFIFO | 0644, 0));
	if (IS("mkfifo"))
		return report(mkfifo(a, 0644));
	/* metadata writes */
	if (IS("truncate"))
		return report(truncate(a, 0));
	if (IS("chmod"))
		return report(chmod(a, 0600));
	if (IS("fchmodat"))
		return report(fchmodat(AT_FDCWD, a, 0600, 0));
	if (IS("chown"))
		return report(chown(a, getuid(), getgid()));
	if (IS("lchown"))
		return report(lchown(a, getuid(), getgid()));
	if (IS("fchownat-empty"))
		return report(fchownat(ro_fd(a), "", getuid(), getgid(), AT_EMPTY_PATH));
	if (IS("utime"))
		return report(utime(a, NULL));
	if (IS("utimes"))
		return report(utimes(a, tv));
	if (IS("lutimes"))
		return report(lutimes(a, tv));
	if (IS("utimensat"))
		return report(utimensat(AT_FDCWD, a, ts, 0));
	if (IS("setxattr"))
		return report(setxattr(a, "user.jail", "x", 1, 0));
	if (IS("removexattr"))
		return report(removexattr(a, "user.jail"));
	if (IS("fchmod-ro"))
		return report(fchmod(ro_fd(a), 0600));
	if (IS("fchown-ro"))
		return report(fchown(ro_fd(a), getuid(), getgid()));
	if (IS("futimens-ro"))
		return report(futimens(ro_fd(a), ts));
	if (IS("fsetxattr-ro"))
		return report(fsetxattr(ro_fd(a), "user.jail", "x", 1, 0));
	/* reads and metadata */
	if (IS("stat"))
		return report(stat(a, &st));
	if (IS("lstat"))
		return report(lstat(a, &st));
	if (IS("fstatat-nofollow"))
		return report(fstatat(AT_FDCWD, a, &st, AT_SYMLINK_NOFOLLOW));
	if (IS("statx")) {
		struct statx sx;
		return report(statx(AT_FDCWD, a, 0, STATX_BASIC_STATS, &sx));
	}
	if (IS("access"))
		return report(access(a, F_OK));
	if (IS("faccessat"))
		return report(faccessat(AT_FDCWD, a, F_OK, 0));
	if (IS("euidaccess"))
		return report(euidaccess(a, F_OK));
	if (IS("readlink"))
		return report(readlink(a, buf, sizeof(buf)));
	if (IS("realpath"))
		return report_ptr(realpath(a, buf));
	if (IS("canonicalize_file_name"))
		return report_ptr(canonicalize_file_name(a));
	if (IS("realpath-thread")) { /* ARG: the main thread's file, B: the name asked */
		pthread_barrier_t turns;
		pthread_t th;
		struct rp_thread t = {.name = b, .turns = &turns};
		pthread_barrier_init(&turns, NULL, 2);
		if (pthread_create(&th, NULL, rp_thread_main, &t) != 0)
			return report(-1);
		pthread_barrier_wait(&turns);
		int held = open(a, O_RDONLY | O_CLOEXEC);
		pthread_barrier_wait(&turns);
		pthread_join(th, NULL);
		if (held < 0 || !t.ok)
			return report(-1);
		printf("ok %s\n", t.out);
		return 0;
	}
	if (IS("realpath-name") || IS("realpath-malloc") || IS("canonicalize-name")) { /* and print it */
		char *p = IS("realpath-name") ? realpath(a, buf) : IS("realpath-malloc") ? realpath(a, NULL)
		                                                                           : canonicalize_file_name(a);
		if (!p)
			return report(-1);
		printf("ok %s\n", p);
		return 0;
	}
	if (IS("opendir"))
		return report_ptr(opendir(a));
	if (IS("read-file")) { /* open and print the contents */
		int fd = open(a, O_RDONLY | O_CLOEXEC);
		ssize_t n = fd >= 0 ? read(fd, buf, sizeof(buf) - 1) : -1;
		if (n < 0)
			return report(-1);
		buf[n] = '\0';
		printf("ok %s\n", buf);
		return 0;
	}
	if (IS("open_by_handle_at")) {
		struct {
			struct file_handle h;
			unsigned char data[MAX_HANDLE_SZ];
		} fh = {.h.handle_bytes = MAX_HANDLE_SZ};
		int mount_id;
		if (name_to_handle_at(AT_FDCWD, a, &fh.h, &mount_id, 0) != 0)
			return report(-1);
		return report(open_by_handle_at(dirfd_of("/"), &fh.h, O_RDONLY));
	}
	/* exec */
	if (IS("execve"))
		return exec_result(execve(a, eargv, environ));
	if (IS("execve-emptyenv")) {
		char *empty[] = {NULL};
		return exec_result(execve(a, eargv, empty));
	}
	if (IS("execv"))
		return exec_result(execv(a, eargv));
	if (IS("execvp"))
		return exec_result(execvp(a, eargv));
	if (IS("execl"))
		return exec_result(execl(a, a, b[0] ? b : NULL, (char *)NULL));
	if (IS("execlp"))
		return exec_result(execlp(a, a, b[0] ? b : NULL, (char *)NULL));
	if (IS("execle")) {
		char *empty[] = {NULL};
		return exec_result(execle(a, a, b[0] ? b : NULL, (char *)NULL, empty));
	}
	if (IS("fexecve"))
		return exec_result(fexecve(ro_fd(a), eargv, environ));
	if (IS("fexecve-memfd")) {
		int src = ro_fd(a), mfd = memfd_create("probe", 0);
		ssize_t n;
		while ((n = read(src, buf, sizeof(buf))) > 0)
			if (write(mfd, buf, (size_t)n) != n)
				return report(-1);
		return exec_result(fexecve(mfd, eargv, environ));
	}
	if (IS("execve-null")) {
		const char *volatile none = NULL; /* past the compiler's nonnull check */
		return exec_result(execve(none, eargv, environ));
	}
	if (IS("execveat"))
		return exec_result(execveat(AT_FDCWD, a, eargv, environ, 0));
	if (IS("posix_spawn") || IS("posix_spawnp")) {
		int rc = IS("posix_spawn") ? posix_spawn(&pid, a, NULL, NULL, eargv, environ)
		                           : posix_spawnp(&pid, a, NULL, NULL, eargv, environ);
		return spawned(rc, pid);
	}
	if (IS("spawn-redirect")) { /* posix_spawn of B with stdout opened on A */
		posix_spawn_file_actions_t fa;
		posix_spawn_file_actions_init(&fa);
		int rc = posix_spawn_file_actions_addopen(&fa, 1, a, O_WRONLY | O_CREAT | O_TRUNC, 0644);
		if (rc) {
			errno = rc;
			return report(-1);
		}
		char *sargv[] = {(char *)b, (char *)c, NULL};
		rc = posix_spawn(&pid, b, &fa, NULL, sargv, environ);
		return spawned(rc, pid);
	}
	if (IS("spawn-chdir-open") || IS("spawn-chdir-exec")) { /* chdir to A, then open B or run B */
		posix_spawn_file_actions_t fa;
		posix_spawn_file_actions_init(&fa);
		int rc = posix_spawn_file_actions_addchdir_np(&fa, a);
		if (rc == 0 && IS("spawn-chdir-open"))
			rc = posix_spawn_file_actions_addopen(&fa, 1, b, O_WRONLY | O_CREAT | O_TRUNC, 0644);
		if (rc == 0) {
			char *sargv[] = {(char *)"echo", (char *)"x", NULL};
			rc = posix_spawn(&pid, IS("spawn-chdir-open") ? "/bin/echo" : b, &fa, NULL, sargv, environ);
		}
		posix_spawn_file_actions_destroy(&fa);
		return spawned(rc, pid);
	}
	if (IS("system")) {
		int status = system(joined);
		printf("exit %d\n", WIFEXITED(status) ? WEXITSTATUS(status) : -1);
		return 0;
	}
	if (IS("popen")) {
		FILE *p = popen(joined, "r");
		if (!p)
			return report(-1);
		size_t n = fread(buf, 1, sizeof(buf) - 1, p);
		buf[n] = '\0';
		int status = pclose(p);
		buf[strcspn(buf, "\n")] = '\0';
		printf("exit %d %s\n", WIFEXITED(status) ? WEXITSTATUS(status) : -1, buf);
		return 0;
	}
	if (IS("syscall-open"))
		return report(syscall(SYS_openat, AT_FDCWD, a, O_RDONLY | O_CLOEXEC));
	if (IS("syscall-creat"))
		return report(syscall(SYS_openat, AT_FDCWD, a, O_WRONLY | O_CREAT | O_CLOEXEC, 0644));
	if (IS("syscall-unlink"))
		return report(syscall(SYS_unlinkat, AT_FDCWD, a, 0));
	if (IS("syscall-rename"))
		return report(syscall(SYS_renameat2, AT_FDCWD, a, AT_FDCWD, b, 0));
	if (IS("syscall-stat"))
		return report(syscall(SYS_newfstatat, AT_FDCWD, a, &st, 0));
	if (IS("syscall-openat2")) {
		struct {
			unsigned long long flags, mode, resolve;
		} how = {O_RDONLY, 0, 0};
		return report(syscall(SYS_openat2, AT_FDCWD, a, &how, sizeof(how)));
	}
	if (IS("syscall-io_uring"))
		return report(syscall(SYS_io_uring_setup, 4, buf));
	if (IS("bind-unix") || IS("connect-unix")) {
		struct sockaddr_un un = {.sun_family = AF_UNIX};
		strncpy(un.sun_path, a, sizeof(un.sun_path) - 1);
		int s = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
		return report(IS("bind-unix") ? bind(s, (struct sockaddr *)&un, sizeof(un))
		                              : connect(s, (struct sockaddr *)&un, sizeof(un)));
	}
	/* stress */
	if (IS("threads"))
		return stress_threads(a, b, 16, 2000);
	if (IS("stress-all"))
		return stress_all(a, b);
	if (IS("signal-open"))
		return signal_open(a);
	if (IS("vfork-exec"))
		return vfork_exec(a, b);
	if (IS("spawn-emptyenv"))
		return spawn_empty_env(a, b);
#ifdef WITH_EARLY
	if (IS("early-thread")) /* a thread was in libc's code all along: A still opens */
		return report_ptr(opendir(a));
	if (IS("early")) { /* what the constructor of libearly.so got */
		int e = early_open_result();
		if (e == 0)
			printf("ok\n");
		else
			printf("err %s\n", strerrorname_np(e));
		return 0;
	}
#endif
	if (IS("getattr-cancel"))
		return getattr_cancel();
	if (IS("spawn-fork-opendir"))
		return spawn_fork_opendir(a);
	if (IS("setmntent"))
		return report_ptr(setmntent(a, b));
	if (IS("scandirat")) {
		struct dirent **list;
		return report(scandirat(AT_FDCWD, a, &list, NULL, NULL));
	}
	if (IS("getxattr"))
		return report(getxattr(a, "user.x", buf, sizeof(buf)) < 0 && errno == ENODATA ? 0 : -1);
	if (IS("statvfs")) {
		struct statvfs sv;
		return report(statvfs(a, &sv));
	}
	if (IS("chroot"))
		return report(chroot(a));
	if (IS("ptrace-attach"))
		return report(ptrace(PTRACE_ATTACH, getppid(), NULL, NULL));
	if (IS("xmknod")) {
		dev_t dv = 0;
		xmknod_fn fn = (xmknod_fn)dlsym(RTLD_DEFAULT, "__xmknod");
		if (!fn) {
			errno = ENOSYS;
			return report(-1);
		}
		return report(fn(0, a, S_IFIFO | 0644, &dv));
	}
	if (IS("syscall-utime"))
		return report(syscall(SYS_utime, a, NULL));
	if (IS("unsetenv-system")) { /* drop the jail from our own environment, then start a shell */
		unsetenv("LD_PRELOAD");
		setenv("JAIL_BLOB", "/nonexistent", 1);
		putenv((char *)"LD_PRELOAD=");
		int status = system(joined + strlen(a) + 1);
		printf("exit %d %s\n", WEXITSTATUS(status), getenv("LD_PRELOAD") ? "preload-kept" : "preload-gone");
		return 0;
	}
	if (IS("wordexp")) {
		wordexp_t w;
		unsetenv("LD_PRELOAD");
		int rc = wordexp(joined, &w, 0);
		if (rc == 0)
			printf("ok %s\n", w.we_wordc ? w.we_wordv[0] : "");
		else
			printf("err %d\n", rc);
		return 0;
	}
	if (IS("errno-kept")) { /* an allowed call leaves errno as the real call does */
		errno = 4242;
		int fd = open(a, O_RDONLY | O_CLOEXEC);
		printf(fd >= 0 && errno == 4242 ? "ok\n" : "bad errno %d\n", errno);
		return 0;
	}
#undef IS
	printf("usage: unknown function %s\n", f);
	return 2;
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		fprintf(stderr, "usage: hookprobe FUNCTION ARG...\n");
		return 2;
	}
	setvbuf(stdout, NULL, _IONBF, 0);
	return run(argc, argv);
}
