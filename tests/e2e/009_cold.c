/* Static functions and .cold pieces (gcc splits unlikely paths at -O2). */
#include <stdio.h>
#include <stdlib.h>
__attribute__((cold, noinline)) static void complain(int x) { fprintf(stderr, "odd %d\n", x); }
__attribute__((noinline)) static int check(int x)
{
	if (__builtin_expect(x > 1000, 0)) {
		complain(x);
		return -1;
	}
	return x * 2;
}
int main(int argc, char **argv)
{
	(void)argv;
	long s = 0;
	for (int i = 0; i < 200; i++)
		s += check(i * argc);
	s += check(5000 * argc);
	printf("%ld\n", s);
	return 0;
}
