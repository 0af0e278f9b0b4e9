/* What a load costs when its address comes from a load that nothing else
 * waits for: a gather s += small[big[idx[i]] & 4095] through a streamed
 * index, where each step's second load waits for its first, but the steps
 * are independent, so the core overlaps their misses; beside it the chase
 * p = big[p] through the same lines, where each step waits for the one
 * before.  --cache-sim's out-of-order window (runtime/dcache.c: how far
 * the clock runs ahead of a waiting load, and how many wait at once)
 * comes from the gather: its misses from memory cost a twelfth of a
 * chase's.
 *
 *   gather KIB [STEPS] [walk]
 *
 * prints the cycles a step of the gather (or, with "walk", of the chase)
 * through KIB KiB of lines visited in a random order, best of 3 runs of
 * STEPS steps (default 4M), converted to core cycles by a chain of 100 000
 * dependent register adds.  bench/probes.py runs it natively and built
 * with profinst --cache-sim, whose profile gives the model's cycles a step
 * (the self cycles of gather or walk over 3 x STEPS). */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <x86intrin.h>

#include "calib.h"

__attribute__((noinline)) uint64_t gather(const uint32_t *idx, long n, const uint64_t *big, const uint8_t *small)
{
	uint64_t s = 0;
	for (long i = 0; i < n; i++)
		s += small[big[idx[i]] & 4095];
	return s;
}

__attribute__((noinline)) uint64_t walk(const uint64_t *big, long n)
{
	uint64_t p = 0;
	for (long i = 0; i < n; i++)
		p = big[p];
	return p;
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		fprintf(stderr, "usage: gather KIB [STEPS] [walk]\n");
		return 2;
	}
	size_t lines = (size_t)atol(argv[1]) * 1024 / 64;
	long n = argc > 2 ? atol(argv[2]) : 4l << 20;
	int chase = argc > 3 && !strcmp(argv[3], "walk");
	if (lines < 2 || n < 1) {
		fprintf(stderr, "gather: KIB must be 1 or more, STEPS 1 or more\n");
		return 2;
	}
	uint64_t *big = mmap(NULL, lines * 64, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	uint8_t *small = calloc(4096, 1);
	uint32_t *idx = malloc((size_t)n * sizeof *idx), *perm = malloc(lines * sizeof *perm);
	if (big == MAP_FAILED || !small || !idx || !perm) {
		perror("gather");
		return 1;
	}
	srand(1);
	for (size_t i = 0; i < lines; i++)
		perm[i] = (uint32_t)i;
	for (size_t i = lines - 1; i > 0; i--) {
		size_t j = ((size_t)rand() << 16 ^ (size_t)rand()) % (i + 1);
		uint32_t t = perm[i];
		perm[i] = perm[j];
		perm[j] = t;
	}
	/* a line's first word: the next line of the cycle, in words */
	for (size_t i = 0; i < lines; i++)
		big[perm[i] * 8] = perm[(i + 1) % lines] * 8;
	for (long i = 0; i < n; i++)
		idx[i] = perm[(size_t)i % lines] * 8;
	double cpt = cycles_a_tick();
	uint64_t best = UINT64_MAX, s = 0;
	for (int r = 0; r < 3; r++) {
		uint64_t t0 = __rdtsc();
		s += chase ? walk(big, n) : gather(idx, n, big, small);
		uint64_t t = __rdtsc() - t0;
		if (t < best)
			best = t;
	}
	printf("%8zu KiB %-6s %7.2f cycles a step (%llu)\n", lines * 64 / 1024, chase ? "walk" : "gather",
	       (double)best * cpt / (double)n, (unsigned long long)(s & 1));
	return 0;
}
