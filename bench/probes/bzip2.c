/* What bzip2's decompression costs a byte on this core, as it runs in
 * bench/programs.py (after a compression) and back to back: the chase
 * through its table (BZ2_bzDecompress's tt, 4 bytes a byte of the block)
 * is as fast as the caches that hold the table.  Run by bench/probes.py
 * when Debian's libbz2.a is there; --cache-sim's rule that a line first
 * seen costs memory (runtime/dcache.c) comes from it.
 *
 * The block is bench/programs/bzip2_bench.c's generated 400 KB text; each
 * figure is the best of 10, converted to core cycles by a chain of 100 000
 * dependent register adds (1 cycle each) timed the same way. */
#include <bzlib.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <x86intrin.h>

#include "calib.h"

int main(void)
{
	unsigned n = 400000, x = 11;
	char *in = malloc(n), *back = malloc(n);
	static const char *w[] = {"burrows ", "wheeler ", "block ", "sort ", "huffman\n", "move-to-front ", "run "};
	for (unsigned i = 0; i < n;) {
		x = x * 1103515245u + 12345u;
		const char *p = w[(x >> 16) % 7];
		if ((x & 0x1f000000) == 0)
			in[i++] = (char)(x >> 8);
		for (; *p && i < n; p++)
			in[i++] = *p;
	}
	unsigned cap = n + n / 100 + 600, zl = cap;
	char *z = malloc(cap);
	if (!in || !back || !z || BZ2_bzBuffToBuffCompress(z, &zl, in, n, 9, 0, 30) != BZ_OK)
		return 1;
	double cyc = cycles_a_tick() / n;
	uint64_t after = UINT64_MAX, alone = UINT64_MAX, comp = UINT64_MAX;
	for (int r = 0; r < 10; r++) {
		unsigned bl = n;
		zl = cap;
		uint64_t t0 = __rdtsc();
		BZ2_bzBuffToBuffCompress(z, &zl, in, n, 9, 0, 30);
		uint64_t t1 = __rdtsc();
		BZ2_bzBuffToBuffDecompress(back, &bl, z, zl, 0, 0);
		uint64_t t2 = __rdtsc();
		if (t1 - t0 < comp)
			comp = t1 - t0;
		if (t2 - t1 < after)
			after = t2 - t1;
	}
	for (int r = 0; r < 10; r++) {
		unsigned bl = n;
		uint64_t t0 = __rdtsc();
		BZ2_bzBuffToBuffDecompress(back, &bl, z, zl, 0, 0);
		uint64_t t = __rdtsc() - t0;
		if (t < alone)
			alone = t;
	}
	printf("compression                         %6.1f cycles a byte\n", (double)comp * cyc);
	printf("decompression after a compression   %6.1f cycles a byte\n", (double)after * cyc);
	printf("decompression after a decompression %6.1f cycles a byte\n", (double)alone * cyc);
	return 0;
}
