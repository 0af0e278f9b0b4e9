/* A 10 kHz SIGALRM storm: every handler call is either counted or counted
 * as not recorded. The number of calls goes to standard error. */
#include <signal.h>
#include <stdio.h>
#include <sys/time.h>

static volatile long ticks;

__attribute__((noinline)) static void on_alarm(int sig)
{
	(void)sig;
	ticks++;
}

__attribute__((noinline)) static long work(long x)
{
	return x * 3 + 1;
}

int main(void)
{
	signal(SIGALRM, on_alarm);
	struct itimerval it = {{0, 100}, {0, 100}};
	setitimer(ITIMER_REAL, &it, NULL);
	long s = 0;
	for (long i = 0; ticks < 3000; i++)
		s += work(i);
	struct itimerval off = {{0, 0}, {0, 0}};
	setitimer(ITIMER_REAL, &off, NULL);
	printf("done\n");
	fprintf(stderr, "ticks %ld\n", ticks);
	return s == 42;
}
