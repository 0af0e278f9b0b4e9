/* A 10 kHz SIGALRM storm over a program whose instrumented code is mostly
 * entered from outside (qsort's comparator): handlers land in the middle
 * of the runtime's entries and returns.  The number of handler calls
 * goes to standard error. */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/time.h>
static volatile long ticks;
__attribute__((noinline)) static long deep(long x) { return x * 3 + 1; }
__attribute__((noinline)) static void on_alarm(int sig) { (void)sig; ticks += deep(0) > 0; }
__attribute__((noinline)) static int cmp(const void *a, const void *b)
{
	long x = *(const long *)a, y = *(const long *)b;
	return (x > y) - (x < y);
}
int main(void)
{
	signal(SIGALRM, on_alarm);
	struct itimerval it = {{0, 100}, {0, 100}};
	setitimer(ITIMER_REAL, &it, NULL);
	long a[64], s = 0;
	while (ticks < 3000) {
		for (int i = 0; i < 64; i++)
			a[i] = (i * 7919) % 64;
		qsort(a, 64, sizeof(a[0]), cmp);
		s += a[3];
	}
	struct itimerval off = {{0, 0}, {0, 0}};
	setitimer(ITIMER_REAL, &off, NULL);
	printf("done\n");
	fprintf(stderr, "ticks %ld\n", ticks);
	return s == 42;
}
