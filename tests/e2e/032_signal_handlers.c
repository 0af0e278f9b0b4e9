// expect: on_signal calls=3000 callers=<external:raise>
// expect: <external:raise> callers=poke
// expect: count calls=3000
// uncounted: on_signal
/* Signal handlers are profiled under the function they interrupted: raise()
 * delivers the signal before it returns, so each handler runs, counted, under
 * <external:raise> under its caller; a handler calling instrumented code
 * and an alternate signal stack change nothing in the program.
 * on_signal is not compared with callgrind, which does not count a signal
 * delivery as a call; the expect lines check its count. */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
static volatile sig_atomic_t seen;
__attribute__((noinline)) void count(int sig)
{
	seen += sig == SIGUSR1 ? 1 : 100;
}
static void on_signal(int sig)
{
	count(sig);
}
__attribute__((noinline)) void poke(int n)
{
	for (int i = 0; i < n; i++)
		raise(SIGUSR1);
}
int main(void)
{
	static char altstack[1 << 16];
	stack_t ss = {.ss_sp = altstack, .ss_size = sizeof(altstack)};
	sigaltstack(&ss, NULL);
	struct sigaction sa;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigaction(SIGUSR1, &sa, NULL);
	poke(1000);
	sa.sa_flags = SA_ONSTACK;
	sigaction(SIGUSR1, &sa, NULL);
	poke(2000);
	printf("%d\n", (int)seen);
	return 0;
}
