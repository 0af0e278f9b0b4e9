/* Recursion deeper than any fixed shadow stack: every call is counted. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

__attribute__((noinline)) static long down(long n)
{
	volatile long here = n & 1; /* read after the call: no loop made of it */
	if (n == 0)
		return 0;
	return down(n - 1) + here;
}

static void *run(void *arg)
{
	return (void *)down((long)arg);
}

int main(int argc, char **argv)
{
	long depth = argc > 1 ? atol(argv[1]) : 4500000;
	pthread_attr_t a;
	pthread_attr_init(&a);
	pthread_attr_setstacksize(&a, (size_t)depth * 64 + (1 << 20));
	pthread_t t;
	void *r;
	if (pthread_create(&t, &a, run, (void *)depth) || pthread_join(t, &r))
		return 1;
	printf("%ld\n", (long)r);
	return 0;
}
