// expect: spin calls=5
/* _exit skips atexit handlers and destructors: the profile is written by
 * the stub before the call. */
#include <stdio.h>
#include <unistd.h>
__attribute__((noinline)) long spin(long n)
{
	long s = 0;
	for (long i = 0; i < n; i++)
		s ^= i * 7;
	return s;
}
int main(void)
{
	long s = 0;
	for (int i = 0; i < 5; i++)
		s += spin(1000 + i);
	printf("%ld\n", s);
	fflush(stdout);
	_exit(4);
}
