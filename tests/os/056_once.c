/* pthread_once, which the timing models that cost it charge at its fixed
 * cost once its initializer has run, and measure before (the first call,
 * which runs the initializer, an instrumented callback): one call in
 * first(), then 1000 in again() (tests/lib/exttime.py, os/once). */
#include <pthread.h>
#include <stdio.h>

static pthread_once_t once = PTHREAD_ONCE_INIT;
static volatile int n;

__attribute__((noinline, noipa)) static void init(void)
{
	for (int i = 0; i < 100; i++)
		n += i;
}

__attribute__((noinline, noipa)) static void first(void) { pthread_once(&once, init); }

__attribute__((noinline, noipa)) static void again(void)
{
	for (int i = 0; i < 1000; i++)
		pthread_once(&once, init);
}

int main(void)
{
	first();
	again();
	printf("%d\n", n);
	return 0;
}
