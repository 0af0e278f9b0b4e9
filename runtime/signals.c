/* SPDX-License-Identifier: MIT */
/*
 * Fatal signals, and what the program sees of them.  So that a fatal
 * signal still writes the profile, the runtime handles each signal whose
 * default action ends the process, wherever the program left the default
 * (the handler writes the profile, then the signal has its usual effect:
 * same status, core), and gives each thread it profiles an alternate
 * signal stack, where that handler runs even when the thread overflowed
 * its own stack.
 *
 * The program must not see either: a program that installs its handler
 * only where it finds the default (embedded CPython's SIGINT) would lose
 * it.  The runtime is linked into the executable, so the functions here
 * stand in for the C library's (sigaction, signal and its variants,
 * siginterrupt, sigset, sigaltstack) in the program and in the shared
 * libraries it was linked with.  They call the library's __sigaction and
 * the kernel, and report the default, as it was when the runtime's
 * handler took its place, where the runtime's handler is installed (and
 * no alternate stack where the runtime's is); a handler or an alternate
 * stack of the program's replaces the runtime's, and setting the default
 * again puts the runtime's back.  Which is installed is asked of the
 * kernel each time, so a change made behind these functions (the C
 * library's own calls, a raw system call) is seen as it is.
 *
 * What still shows: the program's handlers with SA_ONSTACK run on the
 * runtime's alternate stack where the program has none of its own (so
 * they do not run on the thread's stack, and a sigaltstack call that
 * changes the alternate stack from inside one fails with EPERM); a
 * library loaded by dlopen, or a raw system call, sees the runtime's
 * handlers; a handler the program installs with SA_RESETHAND leaves the
 * default, not the runtime's, once it ran.
 */
#include <errno.h>
#include <signal.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>

#include "rt.h"

/* The C library's sigaction, which the one below stands in front of. */
extern int __sigaction(int sig, const struct sigaction *act, struct sigaction *oact);

/* Signals whose default action ends the process. */
static const int fatal_signals[] = {
	SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT, SIGTRAP, SIGSYS, SIGXCPU, SIGXFSZ, SIGQUIT,
	SIGTERM, SIGINT, SIGHUP, SIGPIPE, SIGALRM, SIGVTALRM, SIGPROF, SIGUSR1, SIGUSR2,
};

static int ready;                     /* the runtime's handlers are installed */
static struct sigaction shown[NSIG]; /* the default the runtime's handler stands in for */
static sigset_t interrupting;         /* siginterrupt's: signal() without SA_RESTART */
static int lock;                      /* over shown and the dispositions behind it */

#define PAGE 4096ull
#define ALT_SIZE (256ull << 10) /* an alternate stack, and a guard page below */
#define ALT_POOL 64             /* ended threads' stacks kept for new ones */

static __thread char *alt_base __attribute__((tls_model("initial-exec"))); /* the calling thread's mapping, or NULL */
static char *alt_pool[ALT_POOL];

/* ----- Signals blocked on this thread while it changes what a handler
 * could look at (the C library's internal ones excepted, as
 * sigfillset does) */

static uint64_t block_all(void)
{
	uint64_t all = ~0ull & ~(3ull << 31), old = 0; /* not 32 and 33 */
	rt_syscall6(SYS_rt_sigprocmask, SIG_BLOCK, (long)&all, (long)&old, 8, 0, 0);
	return old;
}

static void restore_mask(uint64_t old)
{
	rt_syscall6(SYS_rt_sigprocmask, SIG_SETMASK, (long)&old, 0, 8, 0, 0);
}

static void take_lock(void)
{
	for (int i = 0; __atomic_exchange_n(&lock, 1, __ATOMIC_ACQUIRE); i++)
		if (i > 100)
			rt_syscall6(SYS_sched_yield, 0, 0, 0, 0, 0, 0);
}

static void drop_lock(void)
{
	__atomic_store_n(&lock, 0, __ATOMIC_RELEASE);
}

/* ----- The handler */

static void on_fatal_signal(int sig, siginfo_t *si, void *uc)
{
	(void)si, (void)uc;
	int saved = errno;
	if (rt_in_profiled_process())
		rt_write_profile(sig);
	/* then the signal has its usual effect: same status, core as before */
	struct sigaction sa;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = SIG_DFL;
	__sigaction(sig, &sa, NULL);
	sigset_t set;
	sigemptyset(&set);
	sigaddset(&set, sig);
	sigprocmask(SIG_UNBLOCK, &set, NULL);
	raise(sig);
	errno = saved;
}

static int is_fatal(int sig)
{
	for (size_t i = 0; i < sizeof(fatal_signals) / sizeof(fatal_signals[0]); i++)
		if (fatal_signals[i] == sig)
			return 1;
	return 0;
}

static int is_runtimes(const struct sigaction *sa)
{
	return (sa->sa_flags & SA_SIGINFO) && sa->sa_sigaction == on_fatal_signal;
}

/* The runtime's handler for sig, whose disposition is the default the
 * program sees: *dfl (under the lock). */
static void stand_in(int sig, const struct sigaction *dfl)
{
	struct sigaction sa;
	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = on_fatal_signal;
	sa.sa_flags = SA_SIGINFO | SA_ONSTACK;
	sigfillset(&sa.sa_mask);
	shown[sig] = *dfl;
	__sigaction(sig, &sa, NULL);
}

void rt_signals_init(void)
{
	rt_altstack_open(); /* the main thread's */
	uint64_t mask = block_all();
	take_lock();
	for (size_t i = 0; i < sizeof(fatal_signals) / sizeof(fatal_signals[0]); i++) {
		struct sigaction cur;
		int sig = fatal_signals[i];
		if (!__sigaction(sig, NULL, &cur) && cur.sa_handler == SIG_DFL)
			stand_in(sig, &cur);
	}
	ready = 1;
	drop_lock();
	restore_mask(mask);
}

/* ----- The C library's functions, as the program sees them */

int sigaction(int sig, const struct sigaction *act, struct sigaction *oact)
{
	/* (a vfork child, which shares the parent's memory, changes nothing
	 * of it: its dispositions go, with it, at its exec) */
	if (!ready || sig <= 0 || sig >= NSIG || !is_fatal(sig) || !rt_in_profiled_process())
		return __sigaction(sig, act, oact);
	uint64_t mask = block_all();
	take_lock();
	struct sigaction cur;
	int r = __sigaction(sig, act, &cur);
	if (!r) {
		int saved = errno;
		struct sigaction was = is_runtimes(&cur) ? shown[sig] : cur;
		if (act && act->sa_handler == SIG_DFL) {
			/* the default as the program set it, flags and mask as
			 * the kernel keeps them; then the runtime's handler */
			struct sigaction dfl;
			if (!__sigaction(sig, NULL, &dfl) && dfl.sa_handler == SIG_DFL)
				stand_in(sig, &dfl);
		}
		if (oact)
			*oact = was;
		errno = saved;
	}
	drop_lock();
	restore_mask(mask);
	return r;
}

/* signal(): the C library's BSD semantics (restarting system calls,
 * unless siginterrupt said otherwise) */
/* handler for sig with flags, its own signal blocked while it runs if
 * block_self; the previous handler, or SIG_ERR */
static __sighandler_t set_handler(int sig, __sighandler_t handler, int flags, int block_self)
{
	if (handler == SIG_ERR || sig <= 0 || sig >= NSIG) {
		errno = EINVAL;
		return SIG_ERR;
	}
	struct sigaction act, old;
	memset(&act, 0, sizeof(act));
	act.sa_handler = handler;
	sigemptyset(&act.sa_mask);
	if (block_self)
		sigaddset(&act.sa_mask, sig);
	act.sa_flags = flags;
	if (sigaction(sig, &act, &old) < 0)
		return SIG_ERR;
	return old.sa_handler;
}

__sighandler_t signal(int sig, __sighandler_t handler)
{
	int interrupts = sig > 0 && sig < NSIG && sigismember(&interrupting, sig) == 1;
	return set_handler(sig, handler, interrupts ? 0 : SA_RESTART, 1);
}

__sighandler_t bsd_signal(int sig, __sighandler_t handler)
{
	return signal(sig, handler);
}

__sighandler_t ssignal(int sig, __sighandler_t handler)
{
	return signal(sig, handler);
}

/* System V's: the handler runs once, not blocking its signal */
__sighandler_t __sysv_signal(int sig, __sighandler_t handler)
{
	return set_handler(sig, handler, SA_RESETHAND | SA_NODEFER, 0);
}

__sighandler_t sysv_signal(int sig, __sighandler_t handler)
{
	return __sysv_signal(sig, handler);
}

int siginterrupt(int sig, int interrupt)
{
	struct sigaction act;
	if (sigaction(sig, NULL, &act) < 0)
		return -1;
	if (interrupt) {
		sigaddset(&interrupting, sig);
		act.sa_flags &= ~SA_RESTART;
	} else {
		sigdelset(&interrupting, sig);
		act.sa_flags |= SA_RESTART;
	}
	return sigaction(sig, &act, NULL) < 0 ? -1 : 0;
}

__sighandler_t sigset(int sig, __sighandler_t disp)
{
	if (disp == SIG_ERR || sig <= 0 || sig >= NSIG) {
		errno = EINVAL;
		return SIG_ERR;
	}
	sigset_t set, oset;
	sigemptyset(&set);
	sigaddset(&set, sig);
	struct sigaction act, old;
	if (disp == SIG_HOLD) {
		if (sigprocmask(SIG_BLOCK, &set, &oset) < 0)
			return SIG_ERR;
		if (sigismember(&oset, sig))
			return SIG_HOLD;
		if (sigaction(sig, NULL, &old) < 0)
			return SIG_ERR;
		return old.sa_handler;
	}
	memset(&act, 0, sizeof(act));
	act.sa_handler = disp;
	sigemptyset(&act.sa_mask);
	if (sigaction(sig, &act, &old) < 0 || sigprocmask(SIG_UNBLOCK, &set, &oset) < 0)
		return SIG_ERR;
	return sigismember(&oset, sig) ? SIG_HOLD : old.sa_handler;
}

/* ----- Alternate signal stacks */

static long sys_sigaltstack(const stack_t *ss, stack_t *old)
{
	return rt_syscall6(SYS_sigaltstack, (long)ss, (long)old, 0, 0, 0, 0);
}

/* Is cur, the kernel's, the calling thread's stack from the runtime? */
static int is_runtimes_stack(const stack_t *cur)
{
	return alt_base && !(cur->ss_flags & SS_DISABLE) && (char *)cur->ss_sp == alt_base + PAGE;
}

static long install_alt(void)
{
	stack_t ss = {.ss_sp = alt_base + PAGE, .ss_flags = 0, .ss_size = ALT_SIZE};
	return sys_sigaltstack(&ss, NULL);
}

/* Give the calling thread the runtime's stack: an ended thread's, or a
 * new one (signals blocked). */
static void give_alt(void)
{
	char *p = alt_base;
	for (int i = 0; i < ALT_POOL && !p; i++)
		p = __atomic_exchange_n(&alt_pool[i], NULL, __ATOMIC_ACQUIRE);
	if (!p && (p = rt_mmap(PAGE + ALT_SIZE)))
		rt_syscall6(SYS_mprotect, (long)p, PAGE, PROT_NONE, 0, 0, 0);
	alt_base = p;
	if (p && install_alt()) {
		alt_base = NULL;
		rt_munmap(p, PAGE + ALT_SIZE);
	}
}

int sigaltstack(const stack_t *ss, stack_t *old)
{
	uint64_t mask = block_all();
	stack_t cur;
	long r = sys_sigaltstack(NULL, &cur);
	if (!r && ss) {
		r = sys_sigaltstack(ss, NULL);
		/* none of the program's: the runtime's again, in a thread
		 * it profiles */
		if (!r && (ss->ss_flags & SS_DISABLE) && __profinst_tls.th && !__profinst_tls.th->finished)
			give_alt();
	}
	if (!r && old) {
		if (is_runtimes_stack(&cur)) {
			memset(old, 0, sizeof(*old));
			old->ss_flags = SS_DISABLE;
		} else {
			*old = cur;
		}
	}
	restore_mask(mask);
	if (r < 0) {
		errno = (int)-r;
		return -1;
	}
	return 0;
}

void rt_altstack_open(void)
{
	if (alt_base)
		return; /* (the main thread's, made at start-up) */
	uint64_t mask = block_all();
	stack_t cur;
	if (!sys_sigaltstack(NULL, &cur) && (cur.ss_flags & SS_DISABLE))
		give_alt();
	restore_mask(mask);
}

void rt_altstack_close(void)
{
	char *p = alt_base;
	if (!p)
		return;
	uint64_t mask = block_all();
	stack_t cur, off = {.ss_flags = SS_DISABLE};
	/* (a thread ending on it, in a handler, keeps it) */
	if (sys_sigaltstack(NULL, &cur) || (is_runtimes_stack(&cur) && sys_sigaltstack(&off, NULL))) {
		restore_mask(mask);
		return;
	}
	alt_base = NULL;
	restore_mask(mask);
	for (int i = 0; i < ALT_POOL; i++) {
		char *none = NULL;
		if (__atomic_compare_exchange_n(&alt_pool[i], &none, p, 0, __ATOMIC_RELEASE, __ATOMIC_RELAXED))
			return;
	}
	rt_munmap(p, PAGE + ALT_SIZE);
}
