// expect: @ ended_by_signal=6
// expect: check calls=3
/* abort(): SIGABRT, its default action kept. */
#include <stdio.h>
#include <stdlib.h>
__attribute__((noinline)) void check(int ok)
{
	if (!ok) {
		fflush(stdout);
		abort();
	}
	puts("ok");
}
int main(void)
{
	check(1);
	check(1);
	check(0);
	return 0;
}
