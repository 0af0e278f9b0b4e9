/* Tail calls: at -O2 the compiler turns these calls into jumps. */
#include <stdio.h>
__attribute__((noinline)) int leaf(int x) { return x * 3 + 1; }
__attribute__((noinline)) int middle(int x) { return leaf(x + 1); }
__attribute__((noinline)) int chooser(int x)
{
	if (x & 1)
		return leaf(x);
	return middle(x);
}
__attribute__((noinline)) int counter(int n, int acc)
{
	if (n == 0)
		return acc;
	return counter(n - 1, acc + n); /* self tail call: a loop */
}
__attribute__((noinline)) int wrap_puts(const char *s) { return puts(s); }
int main(void)
{
	long s = 0;
	for (int i = 0; i < 100; i++)
		s += chooser(i) + middle(i);
	s += counter(50, 0);
	wrap_puts("tail");
	printf("%ld\n", s);
	return 0;
}
