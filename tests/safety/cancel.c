/* Threads cancelled asynchronously, in the middle of calls: their cleanup
 * handlers run and are counted, and what each thread did before is in the
 * profile.  The number of cleanup calls goes to standard error. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

static volatile long cleanups;

__attribute__((noinline)) static long spin(long x)
{
	return x * 3 + 1;
}

__attribute__((noinline)) static void cleanup(void *arg)
{
	(void)arg;
	__atomic_fetch_add(&cleanups, 1, __ATOMIC_RELAXED);
}

static void *run(void *arg)
{
	pthread_setcanceltype(PTHREAD_CANCEL_ASYNCHRONOUS, NULL);
	volatile long s = 0;
	pthread_cleanup_push(cleanup, arg);
	for (long i = 0;; i++)
		s += spin(i);
	pthread_cleanup_pop(0);
	return NULL;
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 50;
	for (int i = 0; i < n; i++) {
		pthread_t t;
		pthread_create(&t, NULL, run, NULL);
		usleep(200);
		pthread_cancel(t);
		pthread_join(t, NULL);
	}
	printf("cancelled %d\n", n);
	fprintf(stderr, "cleanups %ld\n", cleanups);
	return 0;
}
