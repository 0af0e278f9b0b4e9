// expect: gt calls=200000
// expect: find calls=2000
// expect: scan calls=2000
/* Tests that leave early: a chain of compares that returns at the first
 * difference (bzip2's mainGtU: the compiler makes one return of them all,
 * some reached by a jump, one by falling), a search loop left from two of
 * its tests, and a loop left by a break: the block after each such test
 * counts the way out instead of itself (rewriter/derive.c), through a
 * counter where the way out lands (rewriter/layout.c), with the status
 * flags live there in the chain's return (setb); every count must still be
 * exact. */
#include <stdio.h>

static unsigned char buf[4096 + 16];

__attribute__((noinline, noipa)) static int gt(unsigned a, unsigned b)
{
	unsigned char c1, c2;
#define STEP                                                                                                           \
	c1 = buf[a];                                                                                                   \
	c2 = buf[b];                                                                                                   \
	if (c1 != c2)                                                                                                  \
		return c1 > c2;                                                                                        \
	a++;                                                                                                           \
	b++;
	STEP STEP STEP STEP STEP STEP STEP STEP
	return a > b;
}

__attribute__((noinline, noipa)) static long find(const int *v, long n, int key, int stop)
{
	for (long i = 0; i < n; i++) {
		if (v[i] == key)
			return i;
		if (v[i] == stop)
			return -i;
	}
	return -1;
}

__attribute__((noinline, noipa)) static unsigned scan(const unsigned char *p, unsigned n)
{
	unsigned h = 0, i = 0;
	while (i < n) {
		if (p[i] == 3)
			break;
		h = h * 31 + p[i];
		if (h & 0x100000)
			h ^= 0x5bd1e995;
		i++;
	}
	return h + i;
}

int main(void)
{
	unsigned x = 12345;
	for (int i = 0; i < 4096 + 16; i++) {
		x = x * 1103515245u + 12345u;
		buf[i] = (unsigned char)((x >> 16) & 3); /* a small alphabet: long runs of equal bytes */
	}
	long acc = 0;
	for (unsigned i = 0; i < 200000; i++)
		acc += gt(i % 4000, (i * 7) % 4000);
	static int v[1000];
	for (int i = 0; i < 1000; i++)
		v[i] = buf[(i * 3) % 4096] * 5 + (i & 1);
	for (int k = 0; k < 2000; k++)
		acc += find(v, 1000, k % 17, 16);
	for (int k = 0; k < 2000; k++)
		acc += scan(buf + k, 64);
	printf("%ld\n", acc);
	return 0;
}
