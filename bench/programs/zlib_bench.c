/* Drives Debian's libz.a for bench/programs.py: each repetition deflates
 * a generated 256 KiB text at levels 1, 3 and 6 and inflates each result
 * (streamed, 16 KiB at a time), checking the round trip.
 *
 *   zlib_bench [REPS] */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

enum { N = 256 * 1024, CHUNK = 16384 };

static unsigned char *make_input(size_t n)
{
	static const char *words[] = {"alpha ", "beta ", "gamma ", "delta ", "profile ", "cycle\n", "instrument ",
				      "block ", "model ", "x86 "};
	unsigned char *p = malloc(n);
	unsigned x = 7;
	size_t i = 0;
	while (i < n) {
		x = x * 1103515245u + 12345u;
		const char *w = words[(x >> 16) % 10];
		for (; *w && i < n; w++)
			p[i++] = (unsigned char)((x & 0x3000000) == 0 ? (x >> 8) & 0xff : *w);
	}
	return p;
}

static size_t def(const unsigned char *in, size_t n, unsigned char *out, size_t cap, int level)
{
	z_stream s;
	memset(&s, 0, sizeof(s));
	if (deflateInit(&s, level) != Z_OK)
		exit(2);
	s.next_out = out;
	s.avail_out = (uInt)cap;
	for (size_t off = 0; off < n; off += CHUNK) {
		s.next_in = (unsigned char *)in + off;
		s.avail_in = (uInt)(n - off < CHUNK ? n - off : CHUNK);
		if (deflate(&s, off + CHUNK >= n ? Z_FINISH : Z_NO_FLUSH) == Z_STREAM_ERROR)
			exit(3);
	}
	size_t len = s.total_out;
	deflateEnd(&s);
	return len;
}

static size_t inf(const unsigned char *in, size_t n, unsigned char *out, size_t cap)
{
	z_stream s;
	memset(&s, 0, sizeof(s));
	if (inflateInit(&s) != Z_OK)
		exit(4);
	s.next_in = (unsigned char *)in;
	s.avail_in = (uInt)n;
	int rc = Z_OK;
	for (size_t off = 0; off < cap && rc == Z_OK; off += CHUNK) {
		s.next_out = out + off;
		s.avail_out = (uInt)(cap - off < CHUNK ? cap - off : CHUNK);
		rc = inflate(&s, Z_NO_FLUSH);
	}
	size_t len = s.total_out;
	inflateEnd(&s);
	return rc == Z_STREAM_END ? len : 0;
}

int main(int argc, char **argv)
{
	int reps = argc > 1 ? atoi(argv[1]) : 1;
	unsigned char *in = make_input(N);
	size_t cap = compressBound(N);
	unsigned char *z = malloc(cap), *back = malloc(N);
	unsigned long sum = 0;
	int ok = 1;
	for (int r = 0; r < reps; r++) {
		static const int levels[] = {1, 3, 6};
		for (int l = 0; l < 3; l++) {
			size_t zl = def(in, N, z, cap, levels[l]);
			size_t bl = inf(z, zl, back, N);
			ok &= bl == N && back[N / 2] == in[N / 2];
			sum += zl;
		}
	}
	printf("%lu compressed bytes, adler32 %08lx, %s\n", sum, adler32(1, back, N),
	       ok && !memcmp(in, back, N) ? "ok" : "FAILED");
	free(in), free(z), free(back);
	return 0;
}
