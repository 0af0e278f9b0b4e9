// deterministic: no (the overflow races main's pthread_join)
// expect: @ ended_by_signal=11
// ldflags: -lpthread
// callgrind: no
/* A thread that overflows its stack: the SIGSEGV, which cannot be
 * handled on the stack that overflowed, is on the runtime's alternate
 * stack of that thread, so the profile is written and marked, and the
 * program dies of it as it would have.  (No callgrind: it gives threads
 * stacks of its own size, so the depth differs.) */
#include <limits.h>
#include <pthread.h>
#include <stdio.h>

static volatile char *volatile sink;

__attribute__((noinline)) long down(long n)
{
	volatile char pad[512];
	sink = pad; /* the frame stays */
	pad[n % 512] = (char)n;
	if (n == LONG_MAX)
		return 0;
	long r = down(n + 1);
	return r + pad[(n * 7) % 512];
}

static void *thread_main(void *arg)
{
	return (void *)down((long)arg);
}

int main(void)
{
	pthread_attr_t a;
	pthread_attr_init(&a);
	pthread_attr_setstacksize(&a, 1 << 18);
	pthread_t t;
	puts("overflowing");
	fflush(stdout);
	if (pthread_create(&t, &a, thread_main, (void *)1) || pthread_join(t, NULL))
		return 1;
	puts("not reached");
	return 0;
}
