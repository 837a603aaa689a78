/*
 * bench_hooks — what the jail costs, measured against no jail in the same run.
 *
 *   jail-bench-hooks [ROUNDS]
 *
 * Each workload runs in a fresh child process, unhooked and jailed in turn
 * (A/B/A/B...), ROUNDS times; the medians and their ratio are printed next
 * to the budget, with "met" or "MISSED". Then the figures noise cannot blur:
 * system calls per hooked open (strace -c) and user-space instructions per
 * hooked open (valgrind's callgrind), and the memory a jailed process adds.
 * Not a test: it asserts nothing and is not run by ctest.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <netdb.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sched.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "bench.h"

extern char **environ;

static char dir[64], deep[PATH_MAX], via_link[PATH_MAX], self[PATH_MAX];
static char blob10[PATH_MAX], blob10k[PATH_MAX], blob10x[PATH_MAX];

/* ---- the worker: one workload, timed, in this process ---- */

static long raw_syscall4(long n, long a, long b, long c, long d)
{
	long ret;
	register long r10 __asm__("r10") = d;
	__asm__ volatile("syscall" : "=a"(ret) : "a"(n), "D"(a), "S"(b), "d"(c), "r"(r10) : "rcx", "r11", "memory");
	return ret;
}

static double work(const char *what, const char *base, int n)
{
	char a[PATH_MAX], b[PATH_MAX], tmp[PATH_MAX + 16];
	snprintf(a, sizeof(a), "%s/a", base);
	snprintf(b, sizeof(b), "%s/b", base);
	/* network rows: a loopback listener (TCP) or receiver (UDP), made before timing */
	int srv = -1, cli = -1;
	struct sockaddr_in sa = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
	socklen_t sl = sizeof(sa);
	if (strcmp(what, "connect") == 0 || strcmp(what, "sendto") == 0) {
		int tcp = strcmp(what, "connect") == 0;
		srv = socket(AF_INET, tcp ? SOCK_STREAM : SOCK_DGRAM, 0);
		if (srv < 0 || bind(srv, (struct sockaddr *)&sa, sizeof(sa)) != 0 || (tcp && listen(srv, 64) != 0) ||
		    getsockname(srv, (struct sockaddr *)&sa, &sl) != 0)
			return -1;
		if (!tcp)
			cli = socket(AF_INET, SOCK_DGRAM, 0);
	}
	double t0 = now_ns();
	for (int i = 0; i < n; i++) {
		if (strcmp(what, "connect") == 0) {
			int c = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
			if (connect(c, (struct sockaddr *)&sa, sizeof(sa)) == 0)
				close(accept(srv, NULL, NULL));
			close(c);
		} else if (strcmp(what, "sendto") == 0) {
			sendto(cli, "x", 1, 0, (struct sockaddr *)&sa, sizeof(sa));
			if ((i & 63) == 63) { /* keep the receive buffer from filling */
				char buf[8];
				while (recv(srv, buf, sizeof(buf), MSG_DONTWAIT) > 0)
					;
			}
		} else if (strcmp(what, "resolve") == 0) {
			struct addrinfo *res = NULL, hints = {.ai_family = AF_INET, .ai_socktype = SOCK_STREAM};
			if (getaddrinfo("localhost", "80", &hints, &res) == 0)
				freeaddrinfo(res);
		} else if (strcmp(what, "read-open") == 0) {
			close(open(deep, O_RDONLY | O_CLOEXEC));
		} else if (strcmp(what, "stat") == 0) {
			struct stat st;
			stat(deep, &st);
		} else if (strcmp(what, "create") == 0) {
			close(open(a, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644));
		} else if (strcmp(what, "rename") == 0) {
			snprintf(tmp, sizeof(tmp), "%s", (i & 1) ? b : a);
			rename(tmp, (i & 1) ? a : b);
		} else if (strcmp(what, "fopen") == 0) {
			fclose(fopen(deep, "r"));
		} else if (strcmp(what, "symlink") == 0) {
			close(open(via_link, O_RDONLY | O_CLOEXEC));
		} else if (strcmp(what, "raw-open") == 0) {
			/* what a program with its own syscall layer does: no libc, no shim */
			long fd = raw_syscall4(SYS_openat, AT_FDCWD, (long)deep, O_RDONLY | O_CLOEXEC, 0);
			raw_syscall4(SYS_close, fd, 0, 0, 0);
		} else if (strcmp(what, "raw-stat") == 0) {
			struct stat st;
			raw_syscall4(SYS_newfstatat, AT_FDCWD, (long)deep, (long)&st, 0);
		} else if (strcmp(what, "spawn") == 0) {
			pid_t pid;
			char *argv[] = {(char *)"true", NULL};
			if (posix_spawn(&pid, "/bin/true", NULL, NULL, argv, environ) == 0)
				waitpid(pid, NULL, 0);
		}
	}
	double per = (now_ns() - t0) / n;
	if (srv >= 0)
		close(srv);
	if (cli >= 0)
		close(cli);
	return per;
}

/* What a wake-up costs on this machine, the floor under any supervised
 * call (two wake-ups: the supervisor's, and the caller's): a pipe round
 * trip between two processes, placed by the kernel or both on CPU 0.
 * Microseconds per round trip, or -1. */
static double pipe_round_trip(int one_cpu)
{
	int ab[2], ba[2], n = 5000;
	char c = 'x';
	if (pipe(ab) != 0 || pipe(ba) != 0)
		return -1;
	cpu_set_t cpu0, old;
	sched_getaffinity(0, sizeof(old), &old);
	CPU_ZERO(&cpu0);
	CPU_SET(0, &cpu0);
	if (one_cpu)
		sched_setaffinity(0, sizeof(cpu0), &cpu0); /* the child inherits it */
	pid_t pid = fork();
	if (pid == 0) {
		for (int i = 0; i < n; i++)
			if (read(ab[0], &c, 1) != 1 || write(ba[1], &c, 1) != 1)
				_exit(1);
		_exit(0);
	}
	double t0 = now_ns();
	int ok = pid > 0;
	for (int i = 0; ok && i < n; i++)
		ok = write(ab[1], &c, 1) == 1 && read(ba[0], &c, 1) == 1;
	double per = (now_ns() - t0) / n / 1000;
	if (pid > 0)
		waitpid(pid, NULL, 0);
	sched_setaffinity(0, sizeof(old), &old);
	close(ab[0]), close(ab[1]), close(ba[0]), close(ba[1]);
	return ok ? per : -1;
}

/* ---- the driver ---- */

static int run(char *const argv[], char *const envp[], char *out, size_t outsz)
{
	int fds[2];
	pid_t pid;
	posix_spawn_file_actions_t fa;
	if (pipe(fds) != 0)
		return -1;
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_adddup2(&fa, fds[1], 1);
	posix_spawn_file_actions_addclose(&fa, fds[0]);
	int rc = posix_spawn(&pid, argv[0], &fa, NULL, argv, envp);
	posix_spawn_file_actions_destroy(&fa);
	close(fds[1]);
	size_t n = 0;
	ssize_t r;
	while (rc == 0 && n + 1 < outsz && (r = read(fds[0], out + n, outsz - 1 - n)) > 0)
		n += (size_t)r;
	out[n] = '\0';
	close(fds[0]);
	int st = 0;
	if (rc == 0)
		waitpid(pid, &st, 0);
	return rc == 0 && WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

/* While set, where the supervisor writes how many calls it received
 * (JAIL_SUPERVISE_STATS, read by jail-supervise from its environment). */
static char sup_stats[PATH_MAX + 32];

/* The environment of a jailed child: the shim, a compiled policy, {cwd}. */
static char **jailed_env(const char *blob)
{
	static char preload[PATH_MAX + 16], b[PATH_MAX + 16], cwd[PATH_MAX + 16], shim[PATH_MAX + 16];
	static char *env[8];
	snprintf(preload, sizeof(preload), "LD_PRELOAD=%s", JAIL_SHIM_PATH);
	snprintf(shim, sizeof(shim), "JAIL_SHIM=%s", JAIL_SHIM_PATH);
	snprintf(b, sizeof(b), "JAIL_BLOB=%s", blob);
	snprintf(cwd, sizeof(cwd), "JAIL_CWD=%s", dir);
	env[0] = preload;
	env[1] = shim;
	env[2] = b;
	env[3] = cwd;
	env[4] = (char *)"PATH=/usr/bin:/bin";
	env[5] = sup_stats[0] ? sup_stats : NULL;
	env[6] = NULL;
	return env;
}

/* Under the kernel layer (jailctl landlock-exec), with or without the
 * supervisor in front of it: the same launch jailrun makes. */
static double one_launched(const char *what, int n, const char *blob, int supervised)
{
	char count[16], out[256];
	snprintf(count, sizeof(count), "%d", n);
	char *argv[] = {(char *)JAIL_SUPERVISE_PATH, (char *)"--", (char *)JAIL_CTL_PATH, (char *)"landlock-exec",
	                (char *)"--blob", (char *)blob, (char *)"--preload", (char *)JAIL_SHIM_PATH, (char *)"--",
	                self, (char *)"--worker", (char *)what, dir, count, NULL};
	char **env = jailed_env(blob) + 1; /* the launcher sets LD_PRELOAD for the worker alone */
	if (run(supervised ? argv : argv + 2, env, out, sizeof(out)) != 0)
		return -1;
	return atof(out);
}

static double one(const char *what, int n, const char *blob)
{
	char count[16], out[256];
	snprintf(count, sizeof(count), "%d", n);
	char *argv[] = {self, (char *)"--worker", (char *)what, dir, count, NULL};
	char *plain[] = {(char *)"PATH=/usr/bin:/bin", NULL};
	if (run(argv, blob ? jailed_env(blob) : plain, out, sizeof(out)) != 0)
		return -1;
	return atof(out);
}

struct row {
	const char *what, *label;
	int n;
	double budget;
};

/* Medians of the A and B runs, their ratio, and the budget's verdict. */
static void report(const struct row *r, double *a, double *b, int rounds, const char *against)
{
	qsort(a, (size_t)rounds, sizeof(double), cmp_double);
	qsort(b, (size_t)rounds, sizeof(double), cmp_double);
	double ma = a[rounds / 2], mb = b[rounds / 2], ratio = mb / ma;
	printf("  %-34s %9.0f ns  %9.0f ns  %5.2fx %-10s (budget <= %.2fx: %s)\n", r->label, ma, mb, ratio, against,
	       r->budget, ratio <= r->budget ? "met" : "MISSED");
}

static void compare(const struct row *r, int rounds, const char *blob_b, const char *blob_a, const char *against)
{
	double a[64], b[64];
	for (int i = 0; i < rounds; i++) {
		a[i] = one(r->what, r->n, blob_a);
		b[i] = one(r->what, r->n, blob_b);
	}
	report(r, a, b, rounds, against);
}

/* The supervisor (jailrun --supervise) against the same launch without it;
 * the policy also lets the jail run this program (the launcher execs it
 * under Landlock). */
static void compare_supervised(const struct row *r, int rounds, int raw_against_plain)
{
	double a[64], b[64];
	for (int i = 0; i < rounds; i++) {
		a[i] = raw_against_plain ? one(r->what, r->n, NULL) : one_launched(r->what, r->n, blob10x, 0);
		b[i] = one_launched(r->what, r->n, blob10x, 1);
	}
	report(r, a, b, rounds, raw_against_plain ? "" : "of shim");
}

static void setup(void)
{
	char cmd[4 * PATH_MAX + 512];
	snprintf(dir, sizeof(dir), "/tmp/jail-bench-XXXXXX");
	if (!mkdtemp(dir))
		exit(1);
	snprintf(deep, sizeof(deep), "%s/d1/d2/d3/d4/d5/d6/d7/file", dir);
	snprintf(via_link, sizeof(via_link), "%s/l/d4/d5/d6/d7/file", dir);
	snprintf(blob10, sizeof(blob10), "%s/p10.blob", dir);
	snprintf(blob10k, sizeof(blob10k), "%s/p10k.blob", dir);
	snprintf(blob10x, sizeof(blob10x), "%s/p10x.blob", dir);
	snprintf(cmd, sizeof(cmd),
	         "cd '%s' && mkdir -p d1/d2/d3/d4/d5/d6/d7 && echo x > d1/d2/d3/d4/d5/d6/d7/file && ln -s d1/d2/d3 l && "
	         "printf 'allow read /\\nallow exec /usr /bin /lib /lib64\\nallow write {cwd} {tmp} /dev/null\\n"
	         "deny read {cwd}/secret **/.env\\ndeny write {cwd}/.git/hooks\\n"
	         "env scrub *_API_KEY *_TOKEN *SECRET* *PASSWORD* AWS_*\\nnet deny *.evil.test 10.0.0.0/8\\n' > p10 && "
	         "cp p10 p10k && i=0; while [ $i -lt 3333 ]; do "
	         "printf 'allow write /data/p%%d/q%%d/r\\ndeny read /data/p%%d/*.key%%d\\ndeny write **/name%%d\\n' "
	         "$((i %% 97)) $i $((i %% 89)) $i $i >> p10k; i=$((i+1)); done && "
	         "'%s' --policy p10 --cwd '%s' compile p10.blob && '%s' --policy p10k --cwd '%s' compile p10k.blob && "
	         "'%s' --policy p10 --rule 'allow exec %s' --cwd '%s' compile p10x.blob",
	         dir, JAIL_CTL_PATH, dir, JAIL_CTL_PATH, dir, JAIL_CTL_PATH, self, dir);
	if (system(cmd) != 0) {
		fprintf(stderr, "bench: setup failed\n");
		exit(1);
	}
}

/* Builds a small C project (40 files) with make -j2, plain or jailed;
 * launched (1: the kernel layer, 2: and the supervisor) as jailrun does. */
static double build(const char *blob, int launched)
{
	char cmd[4 * PATH_MAX];
	snprintf(cmd, sizeof(cmd),
	         "cd '%s' && rm -rf proj && mkdir proj && cd proj && i=0; while [ $i -lt 40 ]; do "
	         "printf '#include <stdio.h>\\n#include <string.h>\\nint f%%d(const char *s){return (int)strlen(s)+%%d;}\\n' "
	         "$i $i > f$i.c; i=$((i+1)); done && printf 'int main(void){return 0;}\\n' > main.c && "
	         "printf 'OBJS=$(patsubst %%%%.c,%%%%.o,$(wildcard *.c))\\nprog: $(OBJS)\\n\\t$(CC) -o $@ $^\\n' > Makefile",
	         dir);
	if (system(cmd) != 0)
		return -1;
	/* the compiler's temporary files go in the project: this policy's
	 * {cwd}/secret read deny makes the kernel layer grant /tmp entry by
	 * entry, so files created there later are not readable under it */
	snprintf(cmd, sizeof(cmd), "TMPDIR='%s/proj' make -s -C '%s/proj' -j2 CFLAGS=-O1 >/dev/null 2>&1", dir, dir);
	char envcmd[8 * PATH_MAX];
	if (blob && launched)
		snprintf(envcmd, sizeof(envcmd),
		         "env %s JAIL_SHIM='%s' JAIL_BLOB='%s' JAIL_CWD='%s' %s%s '%s' landlock-exec --blob '%s' --preload '%s' -- "
		         "sh -c \"%s\"",
		         sup_stats, JAIL_SHIM_PATH, blob, dir, launched == 2 ? JAIL_SUPERVISE_PATH : "", launched == 2 ? " --" : "",
		         JAIL_CTL_PATH, blob, JAIL_SHIM_PATH, cmd);
	else if (blob)
		snprintf(envcmd, sizeof(envcmd), "env LD_PRELOAD='%s' JAIL_SHIM='%s' JAIL_BLOB='%s' JAIL_CWD='%s' %s",
		         JAIL_SHIM_PATH, JAIL_SHIM_PATH, blob, dir, cmd);
	else
		snprintf(envcmd, sizeof(envcmd), "%s", cmd);
	double t0 = now_ns();
	if (system(envcmd) != 0)
		return -1;
	return (now_ns() - t0) / 1e6;
}

/* Counting the calls the supervisor receives: count_begin(), then the
 * supervised runs, then count_end(ok) gives their number (-1: unknown). */
static char count_file[PATH_MAX];

static void count_begin(void)
{
	snprintf(count_file, sizeof(count_file), "%s/supervisor-calls", dir);
	unlink(count_file);
	snprintf(sup_stats, sizeof(sup_stats), "JAIL_SUPERVISE_STATS=%s", count_file);
}

static double count_end(double ok)
{
	sup_stats[0] = '\0';
	FILE *f = fopen(count_file, "r");
	unsigned long n = 0;
	int got = f && fscanf(f, "calls %lu", &n) == 1;
	if (f)
		fclose(f);
	return ok >= 0 && got ? (double)n : -1;
}

/* What the supervised figures pay for: the calls that reach the supervisor
 * (the C library's calls the shim makes itself never do). */
static void report_supervisor_calls(void)
{
	count_begin();
	double few = count_end(one_launched("spawn", 10, blob10x, 1));
	count_begin();
	double many = count_end(one_launched("spawn", 310, blob10x, 1));
	count_begin();
	double built = count_end(build(blob10, 2));
	printf("  calls the supervisor received: %.1f per /bin/true spawned, %.0f for the C build (%.1f per file)\n",
	       few >= 0 && many >= 0 ? (many - few) / 300 : -1, built, built >= 0 ? built / 41 : -1);
}

/* The C build A/B (a failed build is said so, never counted). */
static void compare_builds(int rounds, const char *blob_a, int la, const char *blob_b, int lb, const char *against,
                           double budget)
{
	double a[16], b[16];
	int n = rounds < 16 ? (rounds < 3 ? 3 : rounds / 2 + 1) : 8;
	for (int i = 0; i < n; i++) {
		a[i] = build(blob_a, la);
		b[i] = build(blob_b, lb);
		if (a[i] < 0 || b[i] < 0) {
			printf("  %-34s the build failed %s\n", "C build, 41 files, make -j2", a[i] < 0 ? "unhooked" : "jailed");
			return;
		}
	}
	qsort(a, (size_t)n, sizeof(double), cmp_double);
	qsort(b, (size_t)n, sizeof(double), cmp_double);
	double ratio = b[n / 2] / a[n / 2];
	printf("  %-34s %9.0f ms  %9.0f ms  %5.2fx %-10s (budget <= %.2fx: %s)\n", "C build, 41 files, make -j2", a[n / 2],
	       b[n / 2], ratio, against, budget, ratio <= budget ? "met" : "MISSED");
}

/* Total system calls of a worker run, from strace -c; -1 without strace. */
static long syscalls_of(const char *what, int n, const char *blob)
{
	char cmd[8 * PATH_MAX], out[PATH_MAX + 32];
	snprintf(out, sizeof(out), "%s/strace.out", dir);
	snprintf(cmd, sizeof(cmd), "strace -f -c -o '%s' %s%s%s%s%s '%s' --worker %s '%s' %d >/dev/null 2>&1", out,
	         blob ? "-E LD_PRELOAD='" : "", blob ? JAIL_SHIM_PATH : "", blob ? "' -E JAIL_BLOB='" : "",
	         blob ? blob : "", blob ? "'" : "", self, what, dir, n);
	if (system("command -v strace >/dev/null") != 0)
		return -1;
	if (system(cmd) != 0)
		return -2;
	FILE *f = fopen(out, "r");
	char line[512];
	long total = -1;
	while (f && fgets(line, sizeof(line), f))
		if (strstr(line, " total")) {
			double pct, secs;
			long usecs, calls;
			if (sscanf(line, "%lf %lf %ld %ld", &pct, &secs, &usecs, &calls) == 4)
				total = calls;
		}
	if (f)
		fclose(f);
	return total;
}

/* Instructions (callgrind "Ir") of a worker run; -1 without valgrind.
 * valgrind's launcher is dynamic and starts its static tool with the
 * client's environment, so the shim would refuse that exec; JAIL_KERNEL=1
 * (as under the kernel layer) lets it start. The measured open path is the
 * same either way. */
static long instructions_of(const char *what, int n, const char *blob)
{
	char cmd[8 * PATH_MAX], out[PATH_MAX + 32];
	snprintf(out, sizeof(out), "%s/callgrind.out", dir);
	snprintf(cmd, sizeof(cmd),
	         "env %s%s%s%s%s valgrind --tool=callgrind --callgrind-out-file='%s.%%p' '%s' "
	         "--worker %s '%s' %d 2>&1 | sed -n 's/.*Collected : *\\([0-9]*\\).*/\\1/p' | tail -1 > '%s.ir'",
	         blob ? "JAIL_KERNEL=1 LD_PRELOAD='" : "", blob ? JAIL_SHIM_PATH : "", blob ? "' JAIL_BLOB='" : "",
	         blob ? blob : "", blob ? "'" : "", out, self, what, dir, n, out);
	if (system("command -v valgrind >/dev/null") != 0)
		return -1;
	if (system(cmd) != 0)
		return -2;
	char irfile[PATH_MAX + 40];
	snprintf(irfile, sizeof(irfile), "%s.ir", out);
	FILE *f = fopen(irfile, "r");
	long ir = -1;
	if (f && fscanf(f, "%ld", &ir) != 1)
		ir = -1;
	if (f)
		fclose(f);
	return ir;
}

/* VmRSS (kB) of a worker that has done one open. */
static long rss_of(const char *blob)
{
	char out[64];
	char *argv[] = {self, (char *)"--rss", deep, NULL};
	char *plain[] = {NULL};
	if (run(argv, blob ? jailed_env(blob) : plain, out, sizeof(out)) != 0)
		return -1;
	return atol(out);
}

int main(int argc, char **argv)
{
	if (argc == 5 && strcmp(argv[1], "--worker") == 0) {
		snprintf(deep, sizeof(deep), "%s/d1/d2/d3/d4/d5/d6/d7/file", argv[3]);
		snprintf(via_link, sizeof(via_link), "%s/l/d4/d5/d6/d7/file", argv[3]);
		printf("%.1f\n", work(argv[2], argv[3], atoi(argv[4])));
		return 0;
	}
	if (argc == 3 && strcmp(argv[1], "--rss") == 0) {
		close(open(argv[2], O_RDONLY | O_CLOEXEC));
		FILE *f = fopen("/proc/self/status", "r");
		char line[256];
		while (f && fgets(line, sizeof(line), f))
			if (strncmp(line, "VmRSS:", 6) == 0)
				printf("%ld\n", atol(line + 6));
		return 0;
	}
	int rounds = argc > 1 ? atoi(argv[1]) : 7;
	if (rounds < 3 || rounds > 64)
		rounds = 7;
	if (readlink("/proc/self/exe", self, sizeof(self) - 1) <= 0)
		return 1;
	setup();

	static const struct row rows[] = {
	    {"read-open", "read-open+close (8-deep path)", 20000, 1.20},
	    {"stat", "stat", 20000, 1.30},
	    {"create", "create-open O_CREAT|O_TRUNC", 20000, 1.60},
	    {"rename", "rename", 20000, 1.60},
	    {"fopen", "fopen+fclose", 20000, 1.20},
	    {"symlink", "open through a symlink (slow path)", 20000, 3.00},
	    {"spawn", "spawn /bin/true (x300)", 300, 1.15},
	    {"connect", "TCP connect+accept, loopback", 5000, 1.20},
	    {"sendto", "UDP sendto, loopback", 20000, 1.20},
	    {"resolve", "getaddrinfo localhost", 2000, 1.20},
	};
	printf("libjail hook benchmark: %d rounds, alternating unhooked/jailed, medians\n", rounds);
	printf("  %-34s %12s  %12s  %6s\n", "workload", "unhooked", "jailed", "ratio");
	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++)
		compare(&rows[i], rounds, blob10, NULL, "");
	static const struct row big = {"read-open", "read-open, 10,000 vs 10 rules", 20000, 1.10};
	compare(&big, rounds, blob10k, blob10, "of 10");

	if (access(JAIL_SUPERVISE_PATH, X_OK) == 0) {
		static const struct row sup[] = {
		    {"read-open", "read-open+close", 20000, 1.05},
		    {"create", "create-open O_CREAT|O_TRUNC", 20000, 1.05},
		    {"rename", "rename", 20000, 1.05},
		    {"fopen", "fopen+fclose", 20000, 1.05},
		    {"spawn", "spawn /bin/true (x300)", 300, 1.05},
		};
		printf("under the supervisor (jailrun --supervise), against the shim and kernel layer without it:\n");
		for (size_t i = 0; i < sizeof(sup) / sizeof(sup[0]); i++)
			compare_supervised(&sup[i], rounds, 0);
		compare_builds(rounds, blob10, 1, blob10, 2, "of shim", 1.05);
		report_supervisor_calls();
		static const struct row raw = {"raw-open", "raw openat+close, supervised", 5000, 10.0};
		printf("a call the supervisor makes for its caller (a raw syscall), against the same call unhooked:\n");
		compare_supervised(&raw, rounds, 1);
		static const struct row raw_stat = {"raw-stat", "raw stat, supervised", 5000, 10.0};
		compare_supervised(&raw_stat, rounds, 1);
		double across = pipe_round_trip(0), one = pipe_round_trip(1);
		printf("  this machine's wake-ups (a pipe round trip between two processes): %.1f us as the kernel places\n"
		       "    them, %.1f us both on one CPU [each supervised call pays one or two]\n",
		       across, one);
	} else {
		printf("  the supervisor: not measured (jail-supervise is not built here)\n");
	}

	compare_builds(rounds, NULL, 0, blob10, 0, "", 1.10);

	/* per call: the slope between 1000 and 2000 calls, jailed minus plain, so
	 * that start-up (loading the policy) does not count */
	long sp1 = syscalls_of("read-open", 1000, NULL), sp2 = syscalls_of("read-open", 2000, NULL);
	long sj1 = syscalls_of("read-open", 1000, blob10), sj2 = syscalls_of("read-open", 2000, blob10);
	long sp = sp1 > 0 && sp2 > 0 ? sp2 - sp1 : sp1 < 0 ? sp1 : sp2, sj = sj1 > 0 && sj2 > 0 ? sj2 - sj1 : -2;
	if (sp > 0 && sj > 0)
		printf("  extra system calls per hooked read-open: %.2f (budget <= 1: %s) [strace -c, slope 1000..2000]\n",
		       (double)(sj - sp) / 1000, (double)(sj - sp) / 1000 <= 1.0 ? "met" : "MISSED");
	else
		printf("  extra system calls per hooked read-open: not measured (%s)\n",
		       sp == -1 ? "strace is not installed" : "strace failed");
	long ip1 = instructions_of("read-open", 1000, NULL), ip2 = instructions_of("read-open", 2000, NULL);
	long ij1 = instructions_of("read-open", 1000, blob10), ij2 = instructions_of("read-open", 2000, blob10);
	long ip = ip1 > 0 && ip2 > 0 ? ip2 - ip1 : ip1 < 0 ? ip1 : ip2, ij = ij1 > 0 && ij2 > 0 ? ij2 - ij1 : -2;
	if (ip > 0 && ij > 0)
		printf("  user-space instructions per hooked read-open: %.0f [callgrind; valgrind lacks openat2, so the\n"
		       "    shim takes its slower fallback route here]\n",
		       (double)(ij - ip) / 1000);
	else
		printf("  user-space instructions per hooked read-open: not measured (%s)\n",
		       ip == -1 ? "valgrind is not installed" : "valgrind failed");
	long rp = rss_of(NULL), r10 = rss_of(blob10), r10k = rss_of(blob10k);
	if (rp > 0 && r10 > 0 && r10k > 0)
		printf("  memory added per process: %ld KiB with 10 rules (budget <= 1024: %s), %ld KiB with 10,000 "
		       "(budget <= 8192: %s)\n",
		       r10 - rp, r10 - rp <= 1024 ? "met" : "MISSED", r10k - rp, r10k - rp <= 8192 ? "met" : "MISSED");
	char rm[PATH_MAX + 16];
	snprintf(rm, sizeof(rm), "rm -rf '%s'", dir);
	if (system(rm) != 0)
		fprintf(stderr, "bench: could not remove %s\n", dir);
	return 0;
}
