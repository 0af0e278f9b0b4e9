// expect: @ ended_by_signal=15
// callgrind: no
/* The program sees its signal dispositions and alternate stacks as it
 * would natively: the runtime's handlers for the fatal signals and its
 * alternate stack are not to be seen (sigaction, signal, sigset,
 * siginterrupt, sysv_signal, sigaltstack), and a handler of the
 * program's replaces the runtime's.  Embedded CPython installs its SIGINT
 * handler only where it finds the default: so does this one.  The program
 * ends by SIGTERM, its default restored: the profile is written all the
 * same.  (No callgrind: its view of the dispositions is its own.) */
#define _GNU_SOURCE /* sysv_signal, sigset */
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const int fatal[] = {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT, SIGTRAP, SIGSYS, SIGXCPU, SIGXFSZ, SIGQUIT,
			    SIGTERM, SIGINT, SIGHUP, SIGPIPE, SIGALRM, SIGVTALRM, SIGPROF, SIGUSR1, SIGUSR2};
static volatile sig_atomic_t ran;

static void on_int(int sig)
{
	ran += sig;
}

static const char *name(void (*h)(int))
{
	return h == SIG_DFL ? "default" : h == SIG_IGN ? "ignore" : h == on_int ? "on_int" : "another";
}

/* what sigaction says of sig */
__attribute__((noinline)) void show(const char *when, int sig)
{
	struct sigaction sa;
	if (sigaction(sig, NULL, &sa)) {
		printf("%s %d: sigaction failed\n", when, sig);
		return;
	}
	printf("%s %d: %s flags %#x mask %#lx\n", when, sig, name(sa.sa_handler), (unsigned)sa.sa_flags,
	       (unsigned long)sa.sa_mask.__val[0]);
}

__attribute__((noinline)) void show_stack(const char *when)
{
	stack_t ss;
	memset(&ss, 0x5a, sizeof(ss));
	if (sigaltstack(NULL, &ss)) {
		printf("%s: sigaltstack failed\n", when);
		return;
	}
	printf("%s: alternate stack flags %d size %zu sp %s\n", when, ss.ss_flags, ss.ss_size,
	       ss.ss_sp ? "set" : "null");
}

static void *thread_main(void *arg)
{
	show_stack(arg);
	/* a stack of its own, then none */
	static char mine[1 << 16];
	stack_t ss = {.ss_sp = mine, .ss_size = sizeof(mine)}, off = {.ss_flags = SS_DISABLE};
	stack_t old;
	printf("thread: set %d\n", sigaltstack(&ss, &old));
	printf("thread: before, flags %d size %zu\n", old.ss_flags, old.ss_size);
	show_stack("thread, its own");
	printf("thread: disable %d\n", sigaltstack(&off, NULL));
	show_stack("thread, disabled");
	return NULL;
}

int main(void)
{
	for (size_t i = 0; i < sizeof(fatal) / sizeof(fatal[0]); i++)
		show("start", fatal[i]);
	show_stack("main");
	pthread_t t;
	if (pthread_create(&t, NULL, thread_main, "thread") || pthread_join(t, NULL))
		return 1;

	/* CPython's way */
	struct sigaction old;
	if (sigaction(SIGINT, NULL, &old) == 0 && old.sa_handler == SIG_DFL) {
		struct sigaction sa;
		memset(&sa, 0, sizeof(sa));
		sa.sa_handler = on_int;
		sigaction(SIGINT, &sa, NULL);
	}
	raise(SIGINT);
	printf("SIGINT handler ran: %d\n", ran == SIGINT);
	show("handled", SIGINT);

	/* signal() and its kin say what was there before */
	printf("signal: %s\n", name(signal(SIGHUP, on_int)));
	printf("signal: %s\n", name(signal(SIGHUP, SIG_DFL)));
	show("reset", SIGHUP);
	printf("siginterrupt: %d\n", siginterrupt(SIGHUP, 1));
	show("interrupting", SIGHUP);
	printf("signal: %s\n", name(signal(SIGHUP, on_int)));
	show("interrupting handler", SIGHUP);
	printf("sysv_signal: %s\n", name(sysv_signal(SIGUSR1, on_int)));
	show("sysv", SIGUSR1);
	printf("sigset: %s\n", name(sigset(SIGUSR2, SIG_IGN)));
	printf("sigset: %s\n", name(sigset(SIGUSR2, SIG_DFL)));
	printf("sigset hold: %s\n", name(sigset(SIGUSR2, SIG_HOLD)));
	show("held", SIGUSR2);
	struct sigaction dfl;
	memset(&dfl, 0, sizeof(dfl));
	dfl.sa_handler = SIG_DFL;
	dfl.sa_flags = SA_RESTART;
	sigaddset(&dfl.sa_mask, SIGQUIT);
	printf("sigaction: %d\n", sigaction(SIGTERM, &dfl, &old));
	printf("sigaction: was %s\n", name(old.sa_handler));
	show("default with flags", SIGTERM);
	printf("sigaction 0: %d\n", sigaction(0, NULL, &old));

	/* the main thread's own alternate stack, and none */
	static char mine[1 << 16];
	stack_t ss = {.ss_sp = mine, .ss_size = sizeof(mine)}, off = {.ss_flags = SS_DISABLE}, was;
	printf("main: set %d\n", sigaltstack(&ss, &was));
	printf("main: before, flags %d size %zu\n", was.ss_flags, was.ss_size);
	show_stack("main, its own");
	printf("main: disable %d\n", sigaltstack(&off, &was));
	printf("main: before, flags %d size %zu\n", was.ss_flags, was.ss_size);
	show_stack("main, disabled");
	fflush(stdout);

	raise(SIGTERM); /* its default restored above: ends the program */
	puts("not reached");
	return 0;
}
