// expect: @ ended_by_signal=11
// expect: work calls=2
// uncounted: crash
/* A fatal signal in a nested call: the profile is written and marked, and
 * the program dies of the same signal, as it would have.
 * crash's counts are not compared: a block is counted whole when it starts,
 * and the faulting store is not its last instruction (callgrind stops at
 * the fault). */
#include <stdio.h>
__attribute__((noinline)) int work(int n)
{
	int s = 0;
	for (int i = 0; i < n; i++)
		s += i;
	return s;
}
static volatile int ten = 10, hundred = 100; /* no constant propagation */
__attribute__((noinline)) void crash(volatile int *p) { *p = work(ten); }
int main(void)
{
	printf("%d\n", work(hundred));
	fflush(stdout);
	crash(0);
	return 0;
}
