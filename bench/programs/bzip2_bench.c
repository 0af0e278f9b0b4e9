/* Drives Debian's libbz2.a for bench/programs.py: each repetition
 * compresses a generated 400 KB text (block size 9) and decompresses it.
 *
 *   bzip2_bench [REPS] */
#include <bzlib.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv)
{
	int reps = argc > 1 ? atoi(argv[1]) : 1;
	unsigned n = 400000, x = 11;
	char *in = malloc(n), *back = malloc(n);
	static const char *w[] = {"burrows ", "wheeler ", "block ", "sort ", "huffman\n", "move-to-front ", "run "};
	for (unsigned i = 0; i < n;) {
		x = x * 1103515245u + 12345u;
		const char *p = w[(x >> 16) % 7];
		if ((x & 0x1f000000) == 0) /* some noise */
			in[i++] = (char)(x >> 8);
		for (; *p && i < n; p++)
			in[i++] = *p;
	}
	unsigned cap = n + n / 100 + 600, zl = 0, total = 0;
	char *z = malloc(cap);
	int ok = 1;
	for (int r = 0; r < reps; r++) {
		zl = cap;
		if (BZ2_bzBuffToBuffCompress(z, &zl, in, n, 9, 0, 30) != BZ_OK)
			return 2;
		unsigned bl = n;
		ok &= BZ2_bzBuffToBuffDecompress(back, &bl, z, zl, 0, 0) == BZ_OK && bl == n;
		total += zl;
	}
	printf("%u -> %u bytes, round trip %s\n", n, zl, ok && !memcmp(in, back, n) ? "ok" : "FAILED");
	(void)total;
	free(in), free(back), free(z);
	return 0;
}
