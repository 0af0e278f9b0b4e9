/* Mutual recursion: is_even and is_odd call each other. */
#include <stdio.h>
__attribute__((noinline)) int is_odd(unsigned n);
__attribute__((noinline)) int is_even(unsigned n) { return n == 0 ? 1 : is_odd(n - 1); }
__attribute__((noinline)) int is_odd(unsigned n) { return n == 0 ? 0 : is_even(n - 1); }
int main(void)
{
	int s = 0;
	for (unsigned i = 0; i < 40; i++)
		s += is_even(i) * 2 + is_odd(i);
	printf("%d\n", s);
	return s & 7;
}
