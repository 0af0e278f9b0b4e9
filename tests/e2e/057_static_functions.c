/* Static functions of every kind a compiler leaves: called directly (with
 * loops), through a pointer kept in data, tail-called, with a switch (a
 * jump table), recursive, and a global function with a cold part.  Built
 * as it is here; tests/lib/stripped.py builds it again, strip -x'ed (the
 * statics' symbols gone) and checks the profile is the same, the statics
 * named <static>@OFFSET. */
#include <stdio.h>
#include <stdlib.h>

__attribute__((noinline)) static long leaf(long x, int n)
{
	for (int i = 0; i < n; i++)
		x = x * 31 + (x >> 7) + i;
	return x;
}

__attribute__((noinline)) static long walk(const int *a, int n)
{
	long s = 0;
	for (int i = 0; i < n; i++)
		s += a[i] & 1 ? leaf(a[i], 3) : a[i];
	return s;
}

__attribute__((noinline)) static long kind(int k, long x)
{
	switch (k & 7) {
	case 0: return x + 1;
	case 1: return x * 3;
	case 2: return x ^ 0x55;
	case 3: return x - 7;
	case 4: return x << 2;
	case 5: return x >> 1;
	case 6: return -x;
	default: return x * x;
	}
}

__attribute__((noinline)) static long down(int n)
{
	return n <= 0 ? 0 : n + down(n - 1);
}

__attribute__((noinline)) static long via_pointer(long x, int n)
{
	return x + n;
}

__attribute__((noinline)) static long tail(long x)
{
	return leaf(x, 2) + 1;
}

long (*volatile hook)(long, int) = via_pointer;

__attribute__((noinline)) long tail_caller(long x)
{
	x *= 5;
	return tail(x); /* a jump, at -O2 */
}

__attribute__((noinline)) long work(int r)
{
	int a[64];
	if (__builtin_expect(r < 0, 0)) {
		fprintf(stderr, "negative %d\n", r);
		abort();
	}
	for (int i = 0; i < 64; i++)
		a[i] = i * r;
	long s = walk(a, 64) + hook(r, 5);
	for (int i = 0; i < 4; i++)
		s += kind(r + i, s);
	return s + down(r % 9) + tail_caller(r);
}

int main(void)
{
	long s = 0;
	for (int r = 0; r < 50; r++)
		s += work(r);
	printf("%ld\n", s);
	return 0;
}
