/* Calls through pointers in a loop, under a storm of signals whose
 * handler calls through pointers too: each call must reach its own
 * target (the counting runtime's thread-local word that holds a pointer
 * call's target while the stubs decide whose node it is was overwritten
 * by the handler's calls, and the loop then called the handler's target).
 * Prints the loop's sum, which must be the native one, and how many
 * signals came (to standard error).
 *
 *   storm_pointers [ITERATIONS] */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/time.h>

static volatile long handled, hsum;

__attribute__((noipa)) static long add3(long x) { return x + 3; }
__attribute__((noipa)) static long mul5(long x) { return x * 5; }
__attribute__((noipa)) static long neg(long x) { return -x + 1000; }
__attribute__((noipa)) static long twice(long x) { return 2 * x; }

static long (*const ops[2])(long) = {add3, mul5};
static long (*volatile hops[2])(long) = {neg, twice};

static void on_alarm(int sig)
{
	(void)sig;
	hsum += hops[handled & 1](handled);
	hsum += hops[(handled + 1) & 1](hsum & 0xff);
	handled++;
}

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 20000000;
	struct sigaction sa = {.sa_handler = on_alarm};
	sigemptyset(&sa.sa_mask);
	sa.sa_flags = SA_RESTART;
	sigaction(SIGALRM, &sa, NULL);
	struct itimerval it = {{0, 100}, {0, 100}};
	setitimer(ITIMER_REAL, &it, NULL);
	long (*volatile const *o)(long) = (long (*volatile const *)(long))ops;
	unsigned long s = 0;
	for (long i = 0; i < n; i++)
		s = s * 31 + (unsigned long)o[i & 1](i & 0xffff);
	struct itimerval off = {{0, 0}, {0, 0}};
	setitimer(ITIMER_REAL, &off, NULL);
	printf("%lu\n", s);
	fprintf(stderr, "signals %ld\n", (long)handled);
	return 0;
}
