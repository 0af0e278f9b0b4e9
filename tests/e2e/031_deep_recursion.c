// callgrind: no
// ldflags: -lpthread
// expect: down calls=1000001
// expect-threads: 2
/* Recursion a million frames deep (on a thread with a big stack): no
 * overflow of the shadow stack, calls counted exactly. */
#include <pthread.h>
#include <stdio.h>
long down(long n);
static long (*volatile again)(long) = down; /* so that no compiler turns it into a loop */
__attribute__((noinline)) long down(long n)
{
	if (n == 0)
		return 0;
	return 1 + again(n - 1) + (n & 1);
}
static void *run(void *arg)
{
	return (void *)down((long)arg);
}
int main(void)
{
	pthread_attr_t a;
	pthread_attr_init(&a);
	pthread_attr_setstacksize(&a, (size_t)1 << 30);
	pthread_t t;
	void *r;
	if (pthread_create(&t, &a, run, (void *)1000000L))
		return 1;
	pthread_join(t, &r);
	printf("%ld\n", (long)r);
	return 0;
}
