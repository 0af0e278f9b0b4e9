/* Recursion: fib's calls are 2*fib(n+1)-1; callgrind folds fib'2 into fib. */
#include <stdio.h>
__attribute__((noinline)) int fib(int n) { return n < 2 ? n : fib(n - 1) + fib(n - 2); }
int main(void)
{
	printf("fib(18) = %d\n", fib(18));
	return 0;
}
