/* Drives Debian's libbz2.a: compress and decompress a generated buffer. */
#include <bzlib.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv)
{
	int reps = argc > 1 ? atoi(argv[1]) : 1;
	unsigned n = 300000, x = 11;
	char *in = malloc(n), *back = malloc(n);
	static const char *w[] = {"burrows ", "wheeler ", "block ", "sort ", "huffman\n"};
	for (unsigned i = 0; i < n;) {
		x = x * 1103515245u + 12345u;
		for (const char *p = w[(x >> 16) % 5]; *p && i < n; p++)
			in[i++] = *p;
	}
	unsigned cap = n + n / 100 + 600, zl = 0;
	char *z = malloc(cap);
	for (int r = 0; r < reps; r++) {
		zl = cap;
		if (BZ2_bzBuffToBuffCompress(z, &zl, in, n, 9, 0, 30) != BZ_OK)
			return 2;
	}
	unsigned bl = n;
	int rc = BZ2_bzBuffToBuffDecompress(back, &bl, z, zl, 0, 0);
	printf("%u -> %u bytes, round trip %s, %s\n", n, zl, rc == BZ_OK && bl == n && !memcmp(in, back, n) ? "ok" : "FAILED",
	       BZ2_bzlibVersion());
	free(in), free(back), free(z);
	return 0;
}
