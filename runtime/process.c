/* SPDX-License-Identifier: MIT */
/*
 * How the process ends, and forks: the profile is written on every way out
 * (return from main or exit through the destructor below; _exit and exec
 * through the flush stub the rewriter puts before such calls; a fatal
 * signal through the handlers of signals.c), and a forked child starts a
 * profile of its own.
 */
#include <pthread.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "rt.h"

static uint32_t profiled_pid;

/* The child of a fork profiles itself from the fork on: same open frames,
 * every figure back to zero, only its one thread. */
static void after_fork_child(void)
{
	struct pi_tls *t = &__profinst_tls;
	profiled_pid = (uint32_t)rt_syscall6(SYS_getpid, 0, 0, 0, 0, 0, 0);
	rt_lineage_init(1);
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
		rt_write_checkpoint(); /* an exec may fail: the program goes on */
}

void rt_process_init(void)
{
	profiled_pid = (uint32_t)rt_syscall6(SYS_getpid, 0, 0, 0, 0, 0, 0);
	rt_lineage_init(0);
	rt_signals_init();
	pthread_atfork(NULL, NULL, after_fork_child);
}

__attribute__((destructor(101))) static void rt_fini(void)
{
	if (!rt_secondary && rt_in_profiled_process())
		rt_write_profile(0);
}
