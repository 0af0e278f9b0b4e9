/* Thread-local variables, in the executable and through -fPIC sequences. */
#include <stdio.h>
__thread int tls_counter;
static __thread long tls_static = 5;
extern __thread int tls_counter;
__attribute__((noinline)) void bump(int n)
{
	tls_counter += n;
	tls_static += tls_counter;
}
int main(void)
{
	for (int i = 0; i < 100; i++)
		bump(i);
	printf("%d %ld\n", tls_counter, tls_static);
	return 0;
}
