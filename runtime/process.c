/* SPDX-License-Identifier: MIT */
/*
 * How the process ends, and forks: the profile is written on every way out
 * (return from main or exit through the destructor below; _exit and exec
 * through the flush stub the rewriter puts before such calls; a fatal
 * signal through the handlers installed here), and a forked child starts a
 * profile of its own.
 */
#include <pthread.h>
#include <signal.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "rt.h"

static uint32_t profiled_pid;

/* Signals whose default action ends the process. */
static const int fatal_signals[] = {
	SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT, SIGTRAP, SIGSYS, SIGXCPU, SIGXFSZ, SIGQUIT,
	SIGTERM, SIGINT, SIGHUP, SIGPIPE, SIGALRM, SIGVTALRM, SIGPROF, SIGUSR1, SIGUSR2,
};

static void on_fatal_signal(int sig, siginfo_t *si, void *uc)
{
	(void)si, (void)uc;
	int saved = errno;
	if ((uint32_t)rt_syscall6(SYS_getpid, 0, 0, 0, 0, 0, 0) == profiled_pid)
		rt_write_profile(sig);
	/* then the signal has its usual effect: same status, core as before */
	struct sigaction sa;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = SIG_DFL;
	sigaction(sig, &sa, NULL);
	sigset_t set;
	sigemptyset(&set);
	sigaddset(&set, sig);
	sigprocmask(SIG_UNBLOCK, &set, NULL);
	raise(sig);
	errno = saved;
}

/* Only where the program left the default action: its own handlers win. */
static void install_signal_handlers(void)
{
	static char altstack[1 << 16];
	stack_t ss = {.ss_sp = altstack, .ss_size = sizeof(altstack)};
	stack_t old;
	if (!sigaltstack(NULL, &old) && (old.ss_flags & SS_DISABLE))
		sigaltstack(&ss, NULL); /* so that a stack overflow still writes */
	for (size_t i = 0; i < sizeof(fatal_signals) / sizeof(fatal_signals[0]); i++) {
		struct sigaction cur;
		if (sigaction(fatal_signals[i], NULL, &cur) || cur.sa_handler != SIG_DFL)
			continue;
		struct sigaction sa;
		memset(&sa, 0, sizeof(sa));
		sa.sa_sigaction = on_fatal_signal;
		sa.sa_flags = SA_SIGINFO | SA_ONSTACK;
		sigfillset(&sa.sa_mask);
		sigaction(fatal_signals[i], &sa, NULL);
	}
}

/* The child of a fork profiles itself from the fork on: same open frames,
 * every figure back to zero, only its one thread. */
static void after_fork_child(void)
{
	struct pi_tls *t = &__profinst_tls;
	profiled_pid = (uint32_t)rt_syscall6(SYS_getpid, 0, 0, 0, 0, 0, 0);
	rt_reset_for_child(t);
}

/* In a vfork child (which shares the parent's memory until it execs or
 * exits) nothing may be written: the pid tells. */
int rt_in_profiled_process(void)
{
	return (uint32_t)rt_syscall6(SYS_getpid, 0, 0, 0, 0, 0, 0) == profiled_pid;
}

/* Called by the flush stub before _exit, _Exit, quick_exit and exec. */
void pi_rt_flush(void)
{
	if (rt_in_profiled_process())
		rt_write_profile(0);
}

void rt_process_init(void)
{
	profiled_pid = (uint32_t)rt_syscall6(SYS_getpid, 0, 0, 0, 0, 0, 0);
	install_signal_handlers();
	pthread_atfork(NULL, NULL, after_fork_child);
}

__attribute__((destructor(101))) static void rt_fini(void)
{
	if (rt_in_profiled_process())
		rt_write_profile(0);
}
