// expect: down_through_zero calls=3000
// expect: sum_words calls=3000
// expect: back_by_pairs calls=3000
// expect: search calls=3000
// expect: rows calls=300
// expect: some_steps calls=3000
// expect: two_counters calls=3000
/* Loops that call nothing and step a register once a turn: the register
 * keeps their counter (rewriter/stepcount.c), a stub where the loop is
 * entered and one on each way out, none inside.  A 32-bit count that
 * runs down through zero, pointers stepped by 8 and by -16, a search
 * left from three places (each way out has seen the counted block a
 * different number of times past the steps), a loop inside another, a
 * register stepped on some turns only (which must not count the loop),
 * a loop with two registers stepped; every count must equal
 * callgrind's. */
#include <stdio.h>

static long words[512];
static struct pair {
	long a, b;
} pairs[256];
static unsigned char bytes[4096];

/* i runs from lo down past 0 to hi (unsigned: 0 - 1 is 0xffffffff) */
__attribute__((noinline, noipa)) static unsigned down_through_zero(unsigned lo, unsigned hi)
{
	unsigned h = 0;
	for (unsigned i = lo; i != hi; i--)
		h = h * 33 + i;
	return h;
}

__attribute__((noinline, noipa)) static long sum_words(const long *p, const long *end)
{
	long s = 0;
	for (; p != end; p++)
		s += *p ^ (s >> 3);
	return s;
}

__attribute__((noinline, noipa)) static long back_by_pairs(const struct pair *first, const struct pair *p)
{
	long s = 0;
	while (p != first) {
		p--;
		s += p->a - p->b;
	}
	return s;
}

/* left when it finds key, when it finds stop, or at the end */
__attribute__((noinline, noipa)) static long search(const unsigned char *p, long n, int key, int stop)
{
	long i = 0;
	for (;;) {
		if (p[i] == key)
			return i;
		if (i == n)
			return -1;
		if (p[i] == stop)
			return -i - 2;
		i++;
	}
}

__attribute__((noinline, noipa)) static long rows(const unsigned char *p, int nrows, int ncols)
{
	long s = 0;
	for (int r = 0; r < nrows; r++)
		for (int c = 0; c < ncols; c++)
			s += p[r * ncols + c] * (c + 1);
	return s;
}

/* n steps on the turns that see an odd byte only */
__attribute__((noinline, noipa)) static unsigned some_steps(const unsigned char *p, const unsigned char *end)
{
	unsigned n = 0;
	while (p < end) {
		if (*p & 1)
			n++;
		p++;
	}
	return n;
}

__attribute__((noinline, noipa)) static long two_counters(const long *a, const long *b, int n)
{
	long s = 0;
	for (int i = 0; i < n; i++, a++, b += 2)
		s += *a * *b;
	return s;
}

int main(void)
{
	unsigned x = 2463534242u;
	for (int i = 0; i < 4096; i++) {
		x ^= x << 13, x ^= x >> 17, x ^= x << 5;
		bytes[i] = (unsigned char)(x % 29);
	}
	for (int i = 0; i < 512; i++)
		words[i] = (long)bytes[i] * 77 - 1000;
	for (int i = 0; i < 256; i++)
		pairs[i].a = bytes[2 * i], pairs[i].b = bytes[2 * i + 1] * 3;
	unsigned long h = 0;
	for (int k = 0; k < 3000; k++) {
		unsigned lo = (unsigned)(k % 37), hi = 0u - (unsigned)(k % 11);
		h += down_through_zero(lo, hi);
		h += (unsigned long)sum_words(words + k % 100, words + 100 + k % 300);
		h += (unsigned long)back_by_pairs(pairs, pairs + k % 256);
		h += (unsigned long)search(bytes + k % 1000, k % 200, k % 29, (k + 5) % 29);
		h += some_steps(bytes + k % 700, bytes + 700 + k % 900);
		h += (unsigned long)two_counters(words + k % 64, words + k % 32, k % 150);
		if (k % 10 == 0)
			h += (unsigned long)rows(bytes + k, 1 + k % 13, k % 40);
	}
	printf("%lu\n", h);
	return 0;
}
