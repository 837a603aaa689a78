/*
 * bench_decide — how deciding and resolving cost, measured in one run.
 *
 * Prints medians of several rounds, alternating the variants A/B/A/B so that
 * drift in machine speed hits both alike, and the ratios that matter:
 *   - decide with a 10,000-rule policy vs a 10-rule one (budget: <= 1.1x);
 *   - jail_resolve (fast route, slow route, through a symlink) vs one
 *     open+close of the same path, and vs realpath(3).
 * Not a test: it asserts nothing and is never run by ctest.
 *   usage: jail-bench-decide [ROUNDS]
 */
#define _GNU_SOURCE
#include "policy.h"
#include "resolve.h"

#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "bench.h"

static double median(double *v, int n)
{
	qsort(v, (size_t)n, sizeof(*v), cmp_double);
	return v[n / 2];
}

/* A policy of n rules: directory prefixes, one-component globs and **\/NAME
 * patterns mixed, spread over many directories, plus the rules the queried
 * paths meet. */
static char *make_policy(int n)
{
	size_t cap = (size_t)n * 96 + 4096, len = 0;
	char *s = malloc(cap);
	len += (size_t)snprintf(s + len, cap - len,
	                        "allow read /\nallow write /bench/a/b/c\ndeny write /bench/a/b/c/d/e/secret\n"
	                        "deny read **/.env\n");
	for (int i = 4; i < n; i++) {
		switch (i % 3) {
		case 0:
			len += (size_t)snprintf(s + len, cap - len, "allow write /data/p%d/q%d/r\n", i % 97, i);
			break;
		case 1:
			len += (size_t)snprintf(s + len, cap - len, "deny read /data/p%d/*.key%d\n", i % 89, i);
			break;
		default:
			len += (size_t)snprintf(s + len, cap - len, "deny write **/name%d\n", i);
			break;
		}
	}
	return s;
}

static struct jail_policy *load(const char *text)
{
	struct jail_load_opts o = {.vars = {.home = "/home/bench", .cwd = "/bench", .tmp = "/tmp"}};
	struct jail_source src = {.name = "<bench>", .text = text};
	struct jail_policy *p;
	struct jail_error e;
	if (jail_policy_load(&o, &src, 1, &p, &e) != 0) {
		char m[2048];
		jail_error_format(&e, m, sizeof(m));
		fprintf(stderr, "bench: %s\n", m);
		exit(1);
	}
	return p;
}

static const char *queries[] = {
    "/bench/a/b/c/d/e/f/g.txt", "/bench/a/b/c/d/e/secret/x", "/usr/lib/x86_64-linux-gnu/libc.so.6",
    "/home/bench/project/src/app/.env", "/data/p5/q17/r/s/t/u", "/etc/ssl/certs/ca.pem",
};
#define NQ (sizeof(queries) / sizeof(queries[0]))

static volatile int sink;
static char bench_root[PATH_MAX];

static double time_decide(const struct jail_policy *p, int iters)
{
	double t0 = now_ns();
	for (int i = 0; i < iters; i++)
		for (unsigned q = 0; q < NQ; q++)
			sink += (int)jail_decide(p, JAIL_WRITE, queries[q]).verdict;
	return (now_ns() - t0) / ((double)iters * NQ);
}

static double time_open(const char *path, int iters)
{
	double t0 = now_ns();
	for (int i = 0; i < iters; i++) {
		int fd = open(path, O_RDONLY | O_CLOEXEC);
		if (fd >= 0)
			close(fd);
	}
	return (now_ns() - t0) / iters;
}

static double time_resolve(const char *path, unsigned flags, int iters)
{
	static struct jail_resolved r;
	double t0 = now_ns();
	for (int i = 0; i < iters; i++)
		sink += jail_resolve(AT_FDCWD, path, flags, &r);
	return (now_ns() - t0) / iters;
}

static double time_realpath(const char *path, int iters)
{
	char buf[PATH_MAX];
	double t0 = now_ns();
	for (int i = 0; i < iters; i++)
		sink += realpath(path, buf) != NULL;
	return (now_ns() - t0) / iters;
}

static void make_tree(char *deep, char *via_link, size_t sz)
{
	char base[] = "/tmp/jail-bench-XXXXXX";
	if (!mkdtemp(base)) {
		perror("mkdtemp");
		exit(1);
	}
	snprintf(deep, sz, "%s/d1/d2/d3/d4/d5/d6/d7", base);
	char cmd[3 * PATH_MAX + 64];
	snprintf(cmd, sizeof(cmd), "mkdir -p '%s' && touch '%s/f' && ln -s d1/d2/d3 '%s/l'", deep, deep, base);
	if (system(cmd) != 0)
		exit(1);
	strcat(deep, "/f");
	snprintf(bench_root, sizeof(bench_root), "%s", base);
	snprintf(via_link, sz, "%s/l/d4/d5/d6/d7/f", base);
}

int main(int argc, char **argv)
{
	int rounds = argc > 1 ? atoi(argv[1]) : 11;
	if (rounds < 3)
		rounds = 3;
	char *t10 = make_policy(10), *t10k = make_policy(10000);
	struct jail_policy *p10 = load(t10), *p10k = load(t10k);
	double d10[64], d10k[64], op[64], fast[64], slow[64], link[64], rp[64];
	char deep[PATH_MAX], via[PATH_MAX];
	make_tree(deep, via, sizeof(deep));
	if (rounds > 64)
		rounds = 64;

	for (int r = 0; r < rounds; r++) {
		d10[r] = time_decide(p10, 20000);
		d10k[r] = time_decide(p10k, 20000);
		op[r] = time_open(deep, 20000);
		fast[r] = time_resolve(deep, 0, 20000);
		slow[r] = time_resolve(deep, JAIL_RES_SLOW, 20000);
		link[r] = time_resolve(via, 0, 20000);
		rp[r] = time_realpath(deep, 20000);
	}
	double m10 = median(d10, rounds), m10k = median(d10k, rounds), mo = median(op, rounds);
	double mf = median(fast, rounds), ms = median(slow, rounds), ml = median(link, rounds);
	double mr = median(rp, rounds);
	printf("libjail decide/resolve benchmark (%d rounds, medians; 8-deep paths)\n", rounds);
	printf("  decide, 10 rules:            %8.1f ns\n", m10);
	printf("  decide, 10,000 rules:        %8.1f ns   ratio %.2fx (budget <= 1.10x: %s)\n", m10k, m10k / m10,
	       m10k / m10 <= 1.10 ? "met" : "MISSED");
	printf("  open+close (baseline):       %8.1f ns\n", mo);
	printf("  resolve, fast route:         %8.1f ns   %.2fx open+close\n", mf, mf / mo);
	printf("  resolve, slow route:         %8.1f ns   %.2fx open+close\n", ms, ms / mo);
	printf("  resolve, through a symlink:  %8.1f ns   %.2fx open+close\n", ml, ml / mo);
	printf("  realpath(3):                 %8.1f ns   %.2fx open+close\n", mr, mr / mo);
	char rm[PATH_MAX + 16];
	snprintf(rm, sizeof(rm), "rm -rf '%s'", bench_root);
	if (system(rm) != 0)
		fprintf(stderr, "bench: could not remove %s\n", bench_root);
	jail_policy_free(p10);
	jail_policy_free(p10k);
	free(t10);
	free(t10k);
	return 0;
}
