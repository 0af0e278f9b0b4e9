/* What glibc's allocator costs by the path a call takes: the costs the
 * zen5 model gives runtime/heap.c (rewriter/model.c zen5_heap).  Run by
 * bench/probes.py.
 *
 * A malloc and free of one block over and over stay in the thread's cache
 * (tcache): their pair's cost.  64 mallocs of one size and then 64 frees,
 * each phase timed as a whole: the frees past the cache's 7 go to the
 * bins, and the mallocs, once the cache is empty, take one block from a
 * bin and refill the cache from it (8 of the 64: the first after the 7
 * cached, then one in eight), so that with the pair split as malloc 56 %,
 * free 44 % (as measured on Sapphire Rapids) a free to the bins and a
 * malloc from them follow: for a fast-bin size (40 bytes), a small one
 * (200) and a large one (2000, which no cache or bin of its size keeps:
 * both phases are its costs); and 64 mallocs never freed, which the top of
 * the heap serves.  The fastest of 300 runs, converted to core cycles by a
 * chain of dependent adds (calib.h), less an empty loop's. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "calib.h"

#define NOINLINE __attribute__((noinline, noipa))
#define RUNS 300
#define K 64

static void *blk[K];
static void *volatile sink;
static void *volatile null;

NOINLINE static void pairs(int n)
{
	for (int i = 0; i < n; i++) {
		void *p = malloc(40);
		sink = p;
		free(p);
	}
}

NOINLINE static void frees_null(int n)
{
	for (int i = 0; i < n; i++)
		free(null);
}

NOINLINE static void empty(int n)
{
	for (int i = 0; i < n; i++)
		sink = null;
}

/* realloc to the size it has: the block stays */
NOINLINE static void reallocs_same(int n)
{
	void *p = malloc(100);
	for (int i = 0; i < n; i++)
		sink = p = realloc(p, 100 - (i & 7));
	free(p);
}

/* mallocs with no free block of their size (leaked: 300 runs of 64) */
static double top(size_t size)
{
	uint64_t b = UINT64_MAX;
	for (int r = 0; r < RUNS; r++) {
		uint64_t t0 = __rdtsc();
		for (int i = 0; i < K; i++)
			blk[i] = malloc(size);
		uint64_t t = __rdtsc() - t0;
		if (t < b)
			b = t;
	}
	return (double)b / K;
}

static double best(void (*f)(int), int n)
{
	uint64_t b = UINT64_MAX;
	for (int r = 0; r < RUNS; r++) {
		uint64_t t0 = __rdtsc();
		f(n);
		uint64_t t = __rdtsc() - t0;
		if (t < b)
			b = t;
	}
	return (double)b / n;
}

/* the fastest malloc phase and free phase of ROUNDS rounds of K each */
static void phases(size_t size, double *m, double *f)
{
	uint64_t bm = UINT64_MAX, bf = UINT64_MAX;
	for (int r = 0; r < RUNS; r++) {
		uint64_t t0 = __rdtsc();
		for (int i = 0; i < K; i++)
			blk[i] = malloc(size);
		uint64_t t1 = __rdtsc();
		for (int i = 0; i < K; i++)
			free(blk[i]);
		uint64_t t2 = __rdtsc();
		if (t1 - t0 < bm)
			bm = t1 - t0;
		if (t2 - t1 < bf)
			bf = t2 - t1;
	}
	*m = (double)bm / K, *f = (double)bf / K;
}

int main(void)
{
	double c = cycles_a_tick();
	double e = best(empty, 20000);
	double pair = (best(pairs, 20000) - e) * c;
	double mc = 0.56 * pair, fc = 0.44 * pair;
	printf("  cached pair (malloc+free of 40 bytes)  %6.1f cycles: malloc %.1f, free %.1f\n", pair, mc, fc);
	static const struct {
		const char *what;
		size_t size;
	} sz[] = {{"fast bin (40 bytes)", 40}, {"small (200 bytes)", 200}, {"large (2000 bytes)", 2000}};
	for (int s = 0; s < 3; s++) {
		double m, f;
		phases(sz[s].size, &m, &f);
		m *= c, f *= c;
		if (sz[s].size > 1000) {
			printf("  %-22s malloc %6.1f, free %6.1f\n", sz[s].what, m, f);
			continue;
		}
		/* 7 frees cached, 57 to the bins; 56 mallocs cached, 8 from the bins */
		double fbin = (f * K - 7 * fc) / (K - 7), mbin = (m * K - 56 * mc) / 8;
		printf("  %-22s free to the bins %6.1f, malloc from them (refilling the cache) %6.1f"
		       " (phases: %.1f, %.1f a call)\n", sz[s].what, fbin, mbin, f, m);
	}
	printf("  malloc from the top: 40 bytes %.1f, 200 bytes %.1f\n", top(40) * c, top(200) * c);
	printf("  free(NULL)                              %6.1f\n", (best(frees_null, 20000) - e) * c);
	printf("  realloc keeping its block               %6.1f\n", (best(reallocs_same, 20000) - e) * c);
	return 0;
}
