/* What a load costs when the next address depends on it: a pointer chase
 * through a random cyclic permutation of cache lines, over working sets
 * from 16 KiB to 128 MiB, and through a line a page over more and more
 * pages.  Run by bench/probes.py; --cache-sim's levels (rewriter/model.c,
 * zen5_cache) come from it: the cores' caches as CPUID describes them, a
 * load-to-use latency for each level and for memory, and the TLBs'
 * reach and costs.
 *
 * Each size is chased for at least 4 million hops, best of 3, converted to
 * core cycles by a chain of 100 000 dependent register adds (1 cycle each)
 * timed the same way.  The lines are visited in a random order, so that no
 * prefetcher can follow; 2 MiB pages are asked for, so that most of the
 * time beyond the caches is memory, not page walks (the probe says whether
 * it got them). */
#define _GNU_SOURCE
#include <cpuid.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <x86intrin.h>

#include "calib.h"

static void *chase(void *p, long n)
{
	while (n--)
		p = *(void **)p;
	return p;
}

static void caches(void)
{
	unsigned a, b, c, d;
	for (unsigned i = 0;; i++) {
		__cpuid_count(0x8000001d, i, a, b, c, d);
		unsigned type = a & 31;
		if (!type || i > 8)
			break;
		unsigned level = (a >> 5) & 7, line = (b & 0xfff) + 1, ways = ((b >> 22) & 0x3ff) + 1;
		unsigned sets = c + 1, sharing = ((a >> 14) & 0xfff) + 1;
		if (type == 2) /* instructions */
			continue;
		printf("# L%u %s: %u KiB, %u-way, %u-byte lines, shared by %u threads\n", level,
		       type == 1 ? "data" : "unified", line * ways * sets / 1024, ways, line, sharing);
	}
}

/* perm[0..n) a random permutation of 0..n-1 (rand's sequence) */
static void shuffle(size_t *perm, size_t n)
{
	for (size_t i = 0; i < n; i++)
		perm[i] = i;
	for (size_t i = n - 1; i > 0; i--) {
		size_t j = ((size_t)rand() << 16 ^ (size_t)rand()) % (i + 1), t = perm[i];
		perm[i] = perm[j];
		perm[j] = t;
	}
}

/* Cycles a load of the chase from start: warm loads first, then the best
 * of 3 runs of hops loads. */
static double cycles_a_load(void *start, long warm, long hops, double cyc_per_tick)
{
	void *p = chase(start, warm);
	uint64_t best = UINT64_MAX;
	for (int r = 0; r < 3; r++) {
		uint64_t t0 = __rdtsc();
		p = chase(p, hops);
		uint64_t t = __rdtsc() - t0;
		if (t < best)
			best = t;
	}
	__asm__ volatile("" ::"r"(p));
	return (double)best * cyc_per_tick / (double)hops;
}

/* The TLBs: a line a page, over more and more 4 KiB pages (no huge ones),
 * each line at another offset in its page, so that up to 512 pages the
 * lines stay in the first level and what grows is the translation's
 * cost. */
static void pages(size_t *perm, double cyc_per_tick)
{
	const size_t maxp = 16384;
	char *mem = mmap(NULL, maxp * 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (mem == MAP_FAILED)
		return;
	madvise(mem, maxp * 4096, MADV_NOHUGEPAGE);
	memset(mem, 0, maxp * 4096);
	printf("# a line a page, 4 KiB pages\n");
	for (size_t np = 16; np <= maxp; np *= 2) {
		shuffle(perm, np);
		for (size_t i = 0; i < np; i++) {
			size_t a = perm[i], b = perm[(i + 1) % np];
			*(void **)(mem + a * 4096 + a % 64 * 64) = mem + b * 4096 + b % 64 * 64;
		}
		double c = cycles_a_load(mem + perm[0] * 4096 + perm[0] % 64 * 64, (long)np, 4l << 20, cyc_per_tick);
		printf("%8zu pages %6.1f cycles a load\n", np, c);
		fflush(stdout);
	}
	munmap(mem, maxp * 4096);
}

int main(void)
{
	const size_t line = 64, max = (size_t)128 << 20;
	char *mem = mmap(NULL, max, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (mem == MAP_FAILED) {
		perror("mmap");
		return 1;
	}
	int huge = madvise(mem, max, MADV_HUGEPAGE) == 0;
	memset(mem, 0, max);
	caches();
	printf("# transparent huge pages %s\n", huge ? "asked for" : "refused");
	size_t *perm = malloc(max / line * sizeof *perm);
	if (!perm)
		return 1;
	double cyc_per_tick = cycles_a_tick();
	srand(1);
	for (size_t size = 16 << 10; size <= max; size *= 2) {
		size_t n = size / line;
		shuffle(perm, n);
		for (size_t i = 0; i < n; i++)
			*(void **)(mem + perm[i] * line) = mem + perm[(i + 1) % n] * line;
		long hops = n * 4 > (4l << 20) ? (long)n * 4 : 4l << 20;
		double c = cycles_a_load(mem, (long)n, hops, cyc_per_tick);
		printf("%8zu KiB %8.1f cycles a load\n", size >> 10, c);
		fflush(stdout);
	}
	pages(perm, cyc_per_tick);
	return 0;
}
