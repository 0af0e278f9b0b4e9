// ldflags: -lpthread
// deterministic: no (where the signals land, and so what their handler adds to the functions they interrupt, differs from run to run)
// uncounted: on_signal handler_site g0 g1 g2 g3 signaller
// expect: through calls=2000000
// expect: f0 calls=250000 callers=through
// expect: f7 calls=250000 callers=through
/* One call site through a pointer reaching eight functions in turn (its
 * last callee is never the next: the runtime's table of callees answers
 * each call) while another thread's signals land anywhere in it, and
 * their handler calls through a pointer of its own to four other
 * functions, which makes and changes entries of the same table.  The
 * loop's counts stay exact; the handler's, which depend on where the
 * signals land, are not compared. */
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>

__attribute__((noinline)) static long f0(long x) { return x + 1; }
__attribute__((noinline)) static long f1(long x) { return x * 3; }
__attribute__((noinline)) static long f2(long x) { return x ^ 0x55; }
__attribute__((noinline)) static long f3(long x) { return x - 7; }
__attribute__((noinline)) static long f4(long x) { return x + 11; }
__attribute__((noinline)) static long f5(long x) { return x * 5; }
__attribute__((noinline)) static long f6(long x) { return x ^ 0x3c3; }
__attribute__((noinline)) static long f7(long x) { return x - 2; }
long (*volatile table[])(long) = {f0, f1, f2, f3, f4, f5, f6, f7};

__attribute__((noinline)) static long g0(long x) { return x + 2; }
__attribute__((noinline)) static long g1(long x) { return x * 7; }
__attribute__((noinline)) static long g2(long x) { return x ^ 0x99; }
__attribute__((noinline)) static long g3(long x) { return x - 3; }
long (*volatile handler_table[])(long) = {g0, g1, g2, g3};

static volatile long handled;

__attribute__((noinline)) long through(long (*f)(long), long x) { return f(x); }

__attribute__((noinline)) static void handler_site(void)
{
	for (int i = 0; i < 4; i++)
		handled = handler_table[(handled + i) & 3](handled) & 0xffff;
}

static void on_signal(int sig)
{
	(void)sig;
	handler_site();
}

static pthread_t main_thread;
static volatile int done;

/* (a few thousand signals, as fast as they are taken, until the loop ends) */
static void *signaller(void *arg)
{
	for (int n = 0; n < 5000 && !done; n++) {
		pthread_kill(main_thread, SIGUSR1);
		for (volatile int spin = 0; spin < 2000; spin++)
			;
	}
	return arg;
}

int main(void)
{
	struct sigaction sa;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sa.sa_flags = SA_RESTART;
	sigaction(SIGUSR1, &sa, NULL);
	main_thread = pthread_self();
	pthread_t t;
	if (pthread_create(&t, NULL, signaller, NULL))
		return 1;
	long s = 1;
	for (long i = 0; i < 2000000; i++)
		s = through(table[i & 7], s) & 0xffffff;
	done = 1;
	pthread_join(t, NULL);
	printf("%ld\n", s);
	return 0;
}
