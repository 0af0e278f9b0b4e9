// cflags: -fPIC
/* Thread-local variables compiled as for a shared library: general- and
 * local-dynamic TLS sequences, which the linker relaxes by pattern. */
#include <stdio.h>
__thread int gd_counter;
static __thread int ld_counter = 3;
extern __thread int gd_counter;
__attribute__((noinline)) int bump(int n)
{
	gd_counter += n;
	ld_counter ^= gd_counter;
	return ld_counter;
}
int main(void)
{
	int s = 0;
	for (int i = 0; i < 100; i++)
		s += bump(i) & 0xff;
	printf("%d %d %d\n", s, gd_counter, ld_counter);
	return 0;
}
