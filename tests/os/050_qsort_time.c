/* qsort's own time: natively (qsort timed, less the comparator's calls
 * timed alone through a pointer, as many as qsort made), and as the
 * profile's <external:qsort> row (its callbacks left out).  Prints the
 * ticks qsort took and the comparator loop took, and the calls: "count"
 * counts them first (natively), a number says how many (instrumented, so
 * that qsort runs once). */
#include <stdio.h>
#include <stdlib.h>
#include <x86intrin.h>

#define N 20000
#define ROUNDS 5

static long ncmp;

__attribute__((noinline, noipa)) static int cmp(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;
	__asm__ volatile("" ::: "memory");
	return (x > y) - (x < y);
}

static int counting_cmp(const void *a, const void *b)
{
	ncmp++;
	return cmp(a, b);
}

static int v[N], w[N];

__attribute__((noinline, noipa)) static unsigned long sorter(int (*c)(const void *, const void *))
{
	unsigned long t0 = __rdtsc();
	qsort(v, N, sizeof(int), c);
	return __rdtsc() - t0;
}

/* the comparator's own cost: as many calls, through a pointer, over the
 * unsorted values */
__attribute__((noinline, noipa)) static unsigned long cmp_loop(int (*volatile c)(const void *, const void *), long n)
{
	int (*f)(const void *, const void *) = c;
	int s = 0;
	unsigned long t0 = __rdtsc();
	for (long i = 0; i < n; i++)
		s += f(&w[i % N], &w[(i * 7 + 1) % N]);
	unsigned long t = __rdtsc() - t0;
	if (s == 12345)
		puts("");
	return t;
}

int main(int argc, char **argv)
{
	unsigned s = 1;
	for (int i = 0; i < N; i++) {
		s = s * 1103515245u + 12345u;
		v[i] = w[i] = (int)(s >> 8);
	}
	long calls;
	unsigned long sort;
	if (argc > 1 && argv[1][0] == 'c') { /* count the comparisons first, on a copy */
		qsort(w, N, sizeof(int), counting_cmp);
		for (int i = 0; i < N; i++)
			w[i] = v[i];
		calls = ncmp;
	} else { /* as many as a counting run said */
		calls = argc > 1 ? atol(argv[1]) : 0;
	}
	/* the least of a few sorts of the same values (argv[2], else ROUNDS),
	 * and of a few loops: a busy machine preempts some (the profile's
	 * min_self likewise; a counted profile, which has none, runs one) */
	int rounds = argc > 2 ? atoi(argv[2]) : ROUNDS;
	unsigned long loop = ~0ul;
	sort = ~0ul;
	for (int k = 0; k < rounds; k++) {
		for (int i = 0; i < N; i++)
			v[i] = w[i];
		unsigned long t = sorter(cmp), l = cmp_loop(cmp, calls);
		sort = t < sort ? t : sort;
		loop = l < loop ? l : loop;
	}
	printf("%lu %lu %ld %d\n", sort, loop, calls, v[N / 2]);
	return 0;
}
