// expect-incl-le: step alternate
/* Recursion through two functions that re-enters `step` from a different
 * call site each time: step is never its own descendant, so its
 * self+descendants time cannot exceed that of alternate, which encloses
 * every call of it. */
#include <stdio.h>
__attribute__((noinline)) long work(long n)
{
	long s = 0;
	for (long i = 0; i < n; i++)
		s += i ^ n;
	return s;
}
__attribute__((noinline)) long alternate(int n);
__attribute__((noinline)) long step(int n)
{
	return work(200 * n) + alternate(n - 1);
}
__attribute__((noinline)) long alternate(int n)
{
	if (n <= 0)
		return 0;
	if (n & 1)
		return step(n) + 1; /* one call site */
	return step(n) * 3;         /* another */
}
int main(void)
{
	printf("%ld\n", alternate(12));
	return 0;
}
