/* bench.h — what the two benchmarks share: a monotonic clock in
 * nanoseconds and the comparison their medians sort with. */
#ifndef JAIL_BENCH_H
#define JAIL_BENCH_H

#include <time.h>

static inline double now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

static inline int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

#endif
