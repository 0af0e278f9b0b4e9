// ldflags: -lpthread
/* Threads: every thread's calls and blocks are counted, none twice. */
#include <pthread.h>
#include <stdio.h>
__attribute__((noinline)) long work(long n)
{
	long s = 0;
	for (long i = 0; i < n; i++)
		s += i % 7;
	return s;
}
static void *thread_main(void *arg)
{
	long n = (long)arg, s = 0;
	for (int i = 0; i < 20; i++)
		s += work(n + i);
	return (void *)s;
}
int main(void)
{
	pthread_t t[4];
	long total = 0;
	for (long i = 0; i < 4; i++)
		pthread_create(&t[i], NULL, thread_main, (void *)(100 * (i + 1)));
	for (int i = 0; i < 4; i++) {
		void *r;
		pthread_join(t[i], &r);
		total += (long)r;
	}
	printf("%ld %ld\n", total, work(50));
	return 0;
}
