/* Drives Debian's libz.a: deflate and inflate at several levels, streaming
 * and one-shot, with checksums; prints what a person can check. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

static unsigned char *make_input(size_t n)
{
	unsigned char *p = malloc(n);
	unsigned x = 7;
	static const char *words[] = {"alpha ", "beta ", "gamma ", "delta ", "profile ", "cycle\n"};
	size_t i = 0;
	while (i < n) {
		x = x * 1103515245u + 12345u;
		const char *w = words[(x >> 16) % 6];
		for (; *w && i < n; w++)
			p[i++] = (unsigned char)((x & 0x7000000) == 0 ? (x >> 8) & 0xff : *w);
	}
	return p;
}

static size_t stream_deflate(const unsigned char *in, size_t n, unsigned char *out, size_t cap, int level)
{
	z_stream s;
	memset(&s, 0, sizeof(s));
	if (deflateInit2(&s, level, Z_DEFLATED, 15, 8, Z_DEFAULT_STRATEGY) != Z_OK)
		exit(2);
	s.next_out = out;
	s.avail_out = (uInt)cap;
	for (size_t off = 0; off < n; off += 4096) {
		s.next_in = (unsigned char *)in + off;
		s.avail_in = (uInt)(n - off < 4096 ? n - off : 4096);
		if (deflate(&s, off + 4096 >= n ? Z_FINISH : Z_NO_FLUSH) == Z_STREAM_ERROR)
			exit(3);
	}
	size_t len = s.total_out;
	deflateEnd(&s);
	return len;
}

int main(int argc, char **argv)
{
	/* argv[1]: repetitions, for benchmarks (the output stays the same) */
	int reps = argc > 1 ? atoi(argv[1]) : 1;
	size_t n = 200000;
	unsigned char *in = make_input(n);
	size_t cap = compressBound((uLong)n);
	unsigned char *z = malloc(cap), *back = malloc(n);
	printf("adler32 %08lx crc32 %08lx\n", adler32(1, in, (uInt)n), crc32(0, in, (uInt)n));
	for (int level = 1; level <= 9; level += 4) {
		size_t zl = 0;
		for (int r = 0; r < reps; r++)
			zl = stream_deflate(in, n, z, cap, level);
		uLongf bl = (uLongf)n;
		int rc = uncompress(back, &bl, z, (uLong)zl);
		printf("level %d: %zu -> %zu bytes, inflate %s\n", level, n, zl,
		       rc == Z_OK && bl == n && !memcmp(in, back, n) ? "ok" : "FAILED");
	}
	uLongf zl = (uLongf)cap;
	compress2(z, &zl, in, (uLong)n, Z_BEST_SPEED);
	printf("compress2: %lu bytes, version %s\n", (unsigned long)zl, zlibVersion());
	free(in), free(z), free(back);
	return 0;
}
