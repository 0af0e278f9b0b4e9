// deterministic: no (the thread runs until the process exits: its counts are how far it got)
// callgrind: no
// ldflags: -lpthread
// expect: @ threads=2
// expect: main calls=1
/* A thread still running when the program exits: its open frames are
 * charged up to that moment, and it is in the profile. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
static volatile int started;
__attribute__((noinline)) void forever(void)
{
	started = 1;
	for (;;)
		__asm__ volatile("" ::: "memory");
}
static void *run(void *arg)
{
	(void)arg;
	forever();
	return NULL;
}
int main(void)
{
	pthread_t t;
	pthread_create(&t, NULL, run, NULL);
	while (!started)
		;
	puts("exiting");
	exit(0);
}
