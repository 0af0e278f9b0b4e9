/* Unwinding through instrumented frames: backtrace() walks .eh_frame. */
#include <execinfo.h>
#include <stdio.h>
__attribute__((noinline)) int probe(int depth)
{
	void *frames[64];
	if (depth > 0)
		return probe(depth - 1) + 0 * depth;
	return backtrace(frames, 64);
}
int main(void)
{
	int a = probe(0), b = probe(6);
	printf("%d frames, %d deeper\n", a, b - a);
	return 0;
}
