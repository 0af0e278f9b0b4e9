// callgrind: no
// args: 300000000
// expect: leaf calls=300000000
// expect: middle calls=3000000
/* A long run: 3x10^8 calls through two levels, counted exactly, in the
 * same few calling-context nodes (memory does not grow with calls; see
 * tests/lib/ostiming.py's long-run check for the bound on memory). */
#include <stdio.h>
#include <stdlib.h>
__attribute__((noinline)) long leaf(long x)
{
	return x ^ (x >> 3);
}
static long (*volatile pleaf)(long) = leaf;
__attribute__((noinline)) long middle(long n)
{
	long s = 0;
	for (long i = 0; i < n; i++)
		s += pleaf(i);
	return s;
}
static volatile long hundred = 100; /* no constant-propagated clone of middle */
int main(int argc, char **argv)
{
	long total = argc > 1 ? atol(argv[1]) : 1000;
	long s = 0;
	for (long done = 0; done < total; done += 100)
		s += middle(hundred);
	printf("%ld\n", s & 0xffff);
	return 0;
}
