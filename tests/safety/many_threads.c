/* A thousand threads alive at once, each calling, under an address-space
 * limit the native program fits in. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

static pthread_barrier_t all;

__attribute__((noinline)) static long work(long x)
{
	return x * 3 + 1;
}

static void *run(void *arg)
{
	long s = 0;
	for (long i = 0; i < 100; i++)
		s += work((long)arg + i);
	pthread_barrier_wait(&all);
	return (void *)s;
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 1000;
	pthread_t *t = calloc((size_t)n, sizeof(*t));
	pthread_attr_t a;
	pthread_attr_init(&a);
	pthread_attr_setstacksize(&a, 256 << 10);
	pthread_barrier_init(&all, NULL, (unsigned)n + 1);
	int made = 0;
	for (int i = 0; i < n; i++)
		made += pthread_create(&t[i], &a, run, (void *)(long)i) == 0;
	if (made != n) {
		printf("only %d threads\n", made);
		return 1;
	}
	pthread_barrier_wait(&all);
	long s = 0;
	for (int i = 0; i < n; i++) {
		void *r;
		pthread_join(t[i], &r);
		s += (long)r;
	}
	printf("%d threads, %ld\n", n, s);
	free(t);
	return 0;
}
