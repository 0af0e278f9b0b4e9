/* exit() or _exit() while threads are starting and calling: the profile is
 * written while they run, and the program ends as it would natively. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

__attribute__((noinline)) static long leaf(long x)
{
	return x * 7 + 1;
}

__attribute__((noinline)) static long walk(int depth, long x)
{
	if (depth == 0)
		return leaf(x);
	return walk(depth - 1, x) + leaf(x + depth);
}

static void *worker(void *arg)
{
	long s = (long)arg;
	for (;;)
		s += walk((int)(s & 15), s);
	return NULL;
}

int main(int argc, char **argv)
{
	int n = argc > 2 ? atoi(argv[2]) : 8;
	for (long i = 0; i < n; i++) {
		pthread_t t;
		pthread_create(&t, NULL, worker, (void *)i);
	}
	printf("started\n");
	fflush(stdout);
	if (argc > 1 && !strcmp(argv[1], "_exit"))
		_exit(3);
	exit(4);
}
