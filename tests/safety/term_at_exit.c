/* SIGTERM, again and again, while the profile is being written at exit:
 * the profile is whole and no temporary is left.  Many ended threads make
 * the profile long to write. */
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

static long delay_us;

__attribute__((noinline)) static long work(long x)
{
	return x * 3 + 1;
}

static void *short_one(void *arg)
{
	return (void *)work((long)arg);
}

static void *killer(void *arg)
{
	(void)arg;
	struct timespec ts = {0, delay_us * 1000};
	nanosleep(&ts, NULL);
	for (;;)
		kill(getpid(), SIGTERM);
	return NULL;
}

static void start_killer(void)
{
	pthread_t t;
	pthread_create(&t, NULL, killer, NULL);
}

int main(int argc, char **argv)
{
	delay_us = argc > 1 ? atol(argv[1]) : 0;
	long n = argc > 2 ? atol(argv[2]) : 5000, s = 0;
	for (long i = 0; i < n; i++) {
		pthread_t t;
		void *r;
		pthread_create(&t, NULL, short_one, (void *)i);
		pthread_join(t, &r);
		s += (long)r;
	}
	printf("%ld\n", s);
	fflush(stdout);
	atexit(start_killer);
	return 0;
}
