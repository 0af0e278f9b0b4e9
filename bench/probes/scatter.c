/* What stores and read-modify-writes to random places cost: a histogram
 * count[key[i]]++ and a scatter out[idx[i]] = i, through KIB KiB of
 * 32-bit counters or slots, with the keys or indices streamed.
 *
 *   scatter KIB [STEPS] [count|scatter]
 *
 * prints the cycles a step, best of 3 runs of STEPS steps (default 4M),
 * converted to core cycles by calib.h's chain. */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <x86intrin.h>

#include "calib.h"

__attribute__((noinline)) void count(const uint32_t *key, long n, uint32_t *tab)
{
	for (long i = 0; i < n; i++)
		tab[key[i]]++;
}

__attribute__((noinline)) void scatter(const uint32_t *idx, long n, uint32_t *out)
{
	for (long i = 0; i < n; i++)
		out[idx[i]] = (uint32_t)i;
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		fprintf(stderr, "usage: scatter KIB [STEPS] [count|scatter]\n");
		return 2;
	}
	size_t slots = (size_t)atol(argv[1]) * 1024 / 4;
	long n = argc > 2 ? atol(argv[2]) : 4l << 20;
	int sc = argc > 3 && !strcmp(argv[3], "scatter");
	if (slots < 16 || n < 1) {
		fprintf(stderr, "scatter: KIB must be 1 or more, STEPS 1 or more\n");
		return 2;
	}
	uint32_t *tab = mmap(NULL, slots * 4, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	uint32_t *key = malloc((size_t)n * sizeof *key);
	if (tab == MAP_FAILED || !key) {
		perror("scatter");
		return 1;
	}
	memset(tab, 0, slots * 4);
	uint64_t x = 88172645463325252ull;
	for (long i = 0; i < n; i++) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		key[i] = (uint32_t)(x % slots);
	}
	double cpt = cycles_a_tick();
	uint64_t best = UINT64_MAX;
	for (int r = 0; r < 3; r++) {
		uint64_t t0 = __rdtsc();
		if (sc)
			scatter(key, n, tab);
		else
			count(key, n, tab);
		uint64_t t = __rdtsc() - t0;
		if (t < best)
			best = t;
	}
	printf("%8zu KiB %-7s %7.2f cycles a step (%u)\n", slots * 4 / 1024, sc ? "scatter" : "count",
	       (double)best * cpt / (double)n, tab[0]);
	return 0;
}
