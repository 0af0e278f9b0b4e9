// expect: twice calls=300
// expect: square calls=300
// expect: negate calls=50
// expect: call_it calls=450
// expect: jump_to calls=200
/* Sites that call through a pointer two functions in turn, the two its
 * node keeps (the site enters either past its entry stub), then three in
 * turn, which the runtime's table answers; in two contexts of one site,
 * and by a tail jump.  Each function's work is its own, so that a call
 * counted in the other's node shows. */
#include <stdio.h>

__attribute__((noinline)) static int twice(int x)
{
	return x * 2 + 1;
}

__attribute__((noinline)) static int square(int x)
{
	int s = 0;
	for (int i = 0; i < (x & 7); i++)
		s += x;
	return s;
}

__attribute__((noinline)) static int negate(int x)
{
	return -x ^ 5;
}

__attribute__((noinline)) int call_it(int (*f)(int), int x)
{
	int r = f(x);
	return r + 1;
}

__attribute__((noinline)) int jump_to(int (*f)(int), int x)
{
	return f(x);
}

int main(int argc, char **argv)
{
	(void)argv;
	int (*two[])(int) = {twice, square};
	int (*three[])(int) = {twice, square, negate};
	int acc = argc + 2;
	for (int i = 0; i < 300; i++)
		acc = (acc + call_it(two[i & 1], acc + i)) & 0xffff;
	for (int i = 0; i < 150; i++)
		acc = (acc + call_it(three[i % 3], acc)) & 0xffff;
	for (int i = 0; i < 200; i++)
		acc = (acc + jump_to(two[(i >> 1) & 1], i)) & 0xffff;
	printf("%d\n", acc);
	return 0;
}
