// expect: @ ended_by_signal=0
// expect: leave calls=1
/* exit() from deep inside: the open frames are closed when it ends. */
#include <stdio.h>
#include <stdlib.h>
__attribute__((noinline)) void leave(int code)
{
	printf("leaving with %d\n", code);
	exit(code);
}
__attribute__((noinline)) void descend(int n)
{
	if (n == 0)
		leave(3);
	descend(n - 1);
}
int main(void)
{
	descend(20);
	return 0;
}
