/* SPDX-License-Identifier: MIT */
/*
 * Per-thread state: created on a thread's first instrumented call, kept
 * after the thread ends (its counters copied out of TLS), written with the
 * profile when the process ends.
 */
#include <linux/membarrier.h>
#include <pthread.h>
#include <stddef.h>
#include <stdlib.h>
#include <time.h>
#include <sys/auxv.h>
#include <sys/mman.h>
#include <sys/syscall.h>

#include "rt.h"

struct rt_thread *rt_threads;
static uint32_t nthreads;
static pthread_key_t exit_key;
static int have_key;

long rt_syscall6(long nr, long a, long b, long c, long d, long e, long f)
{
	long ret;
	register long r10 __asm__("r10") = d;
	register long r8 __asm__("r8") = e;
	register long r9 __asm__("r9") = f;
	__asm__ volatile("syscall"
			 : "=a"(ret)
			 : "a"(nr), "D"(a), "S"(b), "d"(c), "r"(r10), "r"(r8), "r"(r9)
			 : "rcx", "r11", "memory");
	return ret;
}

/* Says once that a thread goes unprofiled: the profile would not say it. */
static void no_memory(struct pi_tls *t)
{
	static int said;
	t->dead |= RT_DEAD;
	if (__atomic_exchange_n(&said, 1, __ATOMIC_RELAXED))
		return;
	static const char msg[] = "profinst: no memory to profile a thread: its calls are not in the profile\n";
	rt_syscall6(SYS_write, 2, (long)msg, sizeof(msg) - 1, 0, 0, 0);
}

bool rt_env_on(const char *name)
{
	const char *v = getauxval(AT_SECURE) ? NULL : getenv(name);
	return v && v[0] == '1' && !v[1];
}

/* PROFINST_C_PATHS=1: every helper takes its C path (RT_C_PATHS), so that
 * a test can compare the two (tests/lib/cpaths.py).  Read at the first
 * thread's start, which may come before the runtime's constructor. */
static bool c_paths_wanted(void)
{
	static int wanted = -1;
	if (wanted < 0)
		wanted = rt_env_on("PROFINST_C_PATHS");
	return wanted;
}

struct rt_thread *rt_thread_init(struct pi_tls *t)
{
	struct rt_thread *th = rt_alloc_keep(sizeof(*th));
	struct rt_kit *k = th ? rt_kit_get() : NULL;
	if (!k) {
		no_memory(t);
		return NULL;
	}
	th->kit = k;
	th->stack = k->stack;
	th->cap = k->cap;
	th->cache = k->cache;
	th->fn_active = k->fn_active;
	th->hash = k->hash;
	th->hmask = k->hash ? k->hmask : 0;
	th->root.min_self = UINT64_MAX;
	__asm__("mov %%fs:0, %0" : "=r"(th->tp));
	th->tid = (uint32_t)rt_syscall6(SYS_gettid, 0, 0, 0, 0, 0, 0);
	th->index = __atomic_fetch_add(&nthreads, 1, __ATOMIC_RELAXED);
	struct rt_thread *head = __atomic_load_n(&rt_threads, __ATOMIC_ACQUIRE);
	do
		th->next = head;
	while (!__atomic_compare_exchange_n(&rt_threads, &head, th, 1, __ATOMIC_RELEASE,
					    __ATOMIC_ACQUIRE));
	rt_faults_open(t); /* before th: the stubs read its ring once th is set */
	if (c_paths_wanted())
		__atomic_fetch_or(&t->dead, RT_C_PATHS, __ATOMIC_RELAXED);
	rt_altstack_open();
	t->th = th;
	if (have_key)
		pthread_setspecific(exit_key, th);
	return th;
}

/* Copy a thread's counters out of its TLS, which goes away with it. */
static void save_counts(struct rt_thread *th)
{
	if (rt_counts_in_nodes)
		return; /* (none there: they are in the tree's nodes) */
	uint64_t total = 0;
	for (const struct pi_objdesc *d = rt_objs_begin(); d < rt_objs_end(); d++)
		total += pi_counters(pi_obj_map(d));
	uint64_t *buf = rt_alloc_keep((total ? total : 1) * sizeof(uint64_t));
	if (!buf)
		return;
	uint64_t i = 0;
	for (const struct pi_objdesc *d = rt_objs_begin(); d < rt_objs_end(); d++) {
		const uint64_t *c = (const uint64_t *)(th->tp + (int64_t)d->counts_tpoff);
		for (uint64_t b = 0, n = pi_counters(pi_obj_map(d)); b < n; b++)
			buf[i++] = c[b];
	}
	th->saved_counts = buf;
}

/* ----- Stopping the other threads while the profile is written */

/* The membarrier command that makes every thread of the process pass a
 * full memory barrier, or 0 if the kernel has none. */
static long membarrier_cmd;

static void membarrier_init(void)
{
	long q = rt_syscall6(SYS_membarrier, MEMBARRIER_CMD_QUERY, 0, 0, 0, 0, 0);
	if (q > 0 && (q & MEMBARRIER_CMD_PRIVATE_EXPEDITED) &&
	    !rt_syscall6(SYS_membarrier, MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED, 0, 0, 0, 0, 0))
		membarrier_cmd = MEMBARRIER_CMD_PRIVATE_EXPEDITED;
	else if (q > 0 && (q & MEMBARRIER_CMD_GLOBAL))
		membarrier_cmd = MEMBARRIER_CMD_GLOBAL;
}

void rt_sleep_us(long us)
{
	struct timespec ts = {.tv_sec = us / 1000000, .tv_nsec = us % 1000000 * 1000};
	rt_syscall6(SYS_nanosleep, (long)&ts, 0, 0, 0, 0, 0);
}

struct rt_thread *rt_stop_threads(struct pi_tls *self)
{
	struct rt_thread *head = __atomic_load_n(&rt_threads, __ATOMIC_ACQUIRE);
	for (struct rt_thread *th = head; th; th = th->next)
		if (th != self->th && !__atomic_load_n(&th->finished, __ATOMIC_ACQUIRE))
			__atomic_fetch_or(&rt_tls_of(th)->dead, RT_STOPPED, __ATOMIC_SEQ_CST);
	/* A thread that read dead before it was set has set busy by now, and
	 * after the barrier its busy is seen here (rt_enter, TAKE_BUSY).
	 * Without membarrier the window is a few instructions wide. */
	if (membarrier_cmd)
		rt_syscall6(SYS_membarrier, membarrier_cmd, 0, 0, 0, 0, 0);
	else
		rt_sleep_us(1000);
	for (struct rt_thread *th = head; th; th = th->next) {
		if (th == self->th || __atomic_load_n(&th->finished, __ATOMIC_ACQUIRE))
			continue;
		struct pi_tls *t = rt_tls_of(th);
		/* a thread inside the runtime is out within microseconds, unless
		 * it is itself stopped (a debugger, SIGSTOP) or waits for this
		 * writer: then, after a second, it is left as it is */
		for (int i = 0; __atomic_load_n(&t->busy, __ATOMIC_ACQUIRE); i++) {
			if (i == 10000) {
				th->unstopped = 1;
				break;
			}
			rt_sleep_us(i < 100 ? 0 : 100);
		}
	}
	return head;
}

void rt_resume_threads(struct rt_thread *head)
{
	for (struct rt_thread *th = head; th; th = th->next) {
		th->unstopped = 0;
		if (!__atomic_load_n(&th->finished, __ATOMIC_ACQUIRE))
			__atomic_fetch_and(&rt_tls_of(th)->dead, ~RT_STOPPED, __ATOMIC_SEQ_CST);
	}
}

void rt_thread_finish(struct pi_tls *t)
{
	struct rt_thread *th = t->th;
	if (!th || th->finished)
		return;
	/* Its TLS goes away with it: while the profile is being written the
	 * writer may read it, so the thread waits (until the process ends,
	 * if that write is the last) */
	for (;;) {
		while (__atomic_load_n(&t->dead, __ATOMIC_ACQUIRE) & RT_STOPPED)
			rt_sleep_us(1000);
		if (rt_enter(t))
			break;
		/* Busy: the thread ends inside the runtime (an asynchronous
		 * cancellation, pthread_exit from a signal handler that
		 * interrupted it), which it will never come back to; or dead:
		 * its figures are still to be kept.  Either way it finishes. */
		if (!(__atomic_load_n(&t->dead, __ATOMIC_ACQUIRE) & RT_STOPPED)) {
			t->busy = 1;
			break;
		}
	}
	rt_clock_fold(t);
	rt_dcache_settle(t);
	t->clock += rt_faults_take(t);
	rt_close_all(th, t->clock);
	th->final_clock = t->clock;
	save_counts(th);
	if (th->counting) {
		rt_counting_keep(th);
		rt_counting_end(t, th);
	}
	th->skipped += t->skipped;
	t->skipped = 0;
	/* what only a running thread needs goes to the next one */
	struct rt_kit *k = th->kit;
	k->stack = th->stack;
	k->cap = th->cap;
	k->hash = th->hash;
	k->hmask = th->hmask;
	th->stack = NULL;
	th->cap = 0;
	th->cache = NULL;
	th->fn_active = NULL;
	th->hash = NULL;
	th->kit = NULL;
	__atomic_store_n(&th->finished, 1, __ATOMIC_RELEASE);
	t->dead |= RT_DEAD;
	rt_leave(t);
	rt_kit_put(k);
}

static void thread_exit(void *arg)
{
	(void)arg;
	struct pi_tls *t = &__profinst_tls;
	if (t->th && !t->th->finished)
		rt_thread_finish(t);
	/* only here, on the thread itself: it is dead, and no other thread
	 * touches its predictor */
	rt_branch_free(t);
	rt_dcache_free(t);
	rt_heap_free(t);
	rt_faults_close(t);
	rt_altstack_close();
}

/* Entries of every instrumented function, as an open-addressing set that
 * the tail-exit fast path (stubs.S) probes too: index = (addr * K) >> shift,
 * linear probing, 0 marks an empty slot. */
/* The instrumented functions' entries, by address: the assembly's copy
 * (rt_entry_tab, _mask, _shift: the program's, the timed runtime's tail
 * exit reads them) and the C side's, one pointer to a table that a shared
 * object loaded later replaces whole (a thread may be reading the old
 * one, which stays). */
uint64_t *rt_entry_tab;
uint64_t rt_entry_mask;
uint64_t rt_entry_shift = 64;

struct entries {
	uint64_t mask, shift;
	const struct pi_funcrec **recs; /* the record of each entry, or NULL */
	uint64_t *tab;
};
static struct entries *entries;

static uint64_t entry_slot(const struct entries *e, uint64_t addr)
{
	uint64_t i = (addr * 0x9e3779b97f4a7c15ull) >> e->shift;
	while (e->tab[i] && e->tab[i] != addr)
		i = (i + 1) & e->mask;
	return i;
}

const struct pi_funcrec *rt_entry_rec(uint64_t addr)
{
	const struct entries *e = __atomic_load_n(&entries, __ATOMIC_ACQUIRE);
	if (!e || !e->recs)
		return NULL;
	uint64_t i = entry_slot(e, addr);
	return e->tab[i] ? e->recs[i] : NULL;
}

int rt_is_entry(uint64_t addr)
{
	const struct entries *e = __atomic_load_n(&entries, __ATOMIC_ACQUIRE);
	return e && e->tab[entry_slot(e, addr)] != 0;
}

static struct entries *build_entries(void)
{
	uint64_t n = rt_nfuncs();
	uint64_t bits = 4;
	while ((1ull << bits) < 2 * n)
		bits++;
	struct entries *e = rt_mmap(sizeof(*e));
	uint64_t *tab = e ? rt_mmap_filled(sizeof(uint64_t) << bits) : NULL;
	if (!tab) {
		if (e)
			rt_munmap(e, sizeof(*e));
		return NULL;
	}
	e->recs = rt_mmap_filled(sizeof(*e->recs) << bits); /* (NULL: no records) */
	e->mask = (1ull << bits) - 1;
	e->shift = 64 - bits;
	e->tab = tab;
	RT_EACH_FUNC(f) {
		if (rt_is_external(f))
			continue;
		uint64_t i = entry_slot(e, pi_rec_addr(f, 0));
		if (!tab[i] && e->recs)
			e->recs[i] = f;
		tab[i] = pi_rec_addr(f, 0);
	}
	return e;
}

void rt_entries_init(void)
{
	struct entries *e = build_entries();
	if (!e)
		return;
	rt_entry_mask = e->mask;
	rt_entry_shift = e->shift;
	__atomic_store_n(&rt_entry_tab, e->tab, __ATOMIC_RELEASE);
	__atomic_store_n(&entries, e, __ATOMIC_RELEASE);
}

void rt_entries_add(void)
{
	struct entries *e = build_entries();
	if (e)
		__atomic_store_n(&entries, e, __ATOMIC_RELEASE);
}

static bool initialized;

bool rt_initialized(void)
{
	return __atomic_load_n(&initialized, __ATOMIC_ACQUIRE);
}

__attribute__((constructor(101))) static void rt_init(void)
{
#ifdef PI_PIC_RUNTIME
	if (rt_program_has_runtime()) {
		rt_secondary = 1;
		return;
	}
#endif
	rt_entries_init();
	rt_externals_init();
	rt_frontend_init();
	rt_counting_init();
	rt_dcache_init();
	rt_heap_init();
	rt_faults_init();
	membarrier_init();
	rt_process_init();
	if (!pthread_key_create(&exit_key, thread_exit))
		have_key = 1;
	__atomic_store_n(&initialized, true, __ATOMIC_RELEASE);
}


/* Offset of __profinst_tls from a thread pointer: the same in every thread. */
static int64_t tls_offset(void)
{
	uint64_t tp;
	__asm__("mov %%fs:0, %0" : "=r"(tp));
	return (int64_t)((uint64_t)&__profinst_tls - tp);
}

struct pi_tls *rt_tls_of(const struct rt_thread *th)
{
	return (struct pi_tls *)(th->tp + (uint64_t)tls_offset());
}

static void zero_tree(struct rt_node *root)
{
	for (struct rt_node *n = root; n;) {
		n->calls = n->rec_calls = n->self = n->incl = n->max_self = n->os = n->os_left = 0;
		n->faults = 0;
		n->min_self = UINT64_MAX;
		if (n->first_child) {
			n = n->first_child;
			continue;
		}
		while (n != root && !n->next_sibling)
			n = n->parent;
		n = n == root ? NULL : n->next_sibling;
	}
}

void rt_reset_for_child(struct pi_tls *t)
{
	struct rt_thread *th = t->th;
	rt_clock_fold(t);
	/* the other threads do not exist here */
	rt_threads = th;
	nthreads = th ? 1 : 0;
	rt_profile_reset();
	if (!th)
		return;
	th->next = NULL;
	th->index = 0;
	th->tid = (uint32_t)rt_syscall6(SYS_gettid, 0, 0, 0, 0, 0, 0);
	zero_tree(&th->root);
	if (th->counting)
		rt_counting_zero(th); /* the parent's counts */
	/* the parent's ring, mapped into the child: the child counts its own */
	rt_faults_close(t);
	rt_faults_open(t);
	for (uint64_t i = 0; i < th->depth; i++) {
		th->stack[i].entry_clock = t->clock;
		th->stack[i].fe_call = 0; /* the parent's */
		th->stack[i].child = 0;
		th->stack[i].ext_ticks = 0;
		th->stack[i].ext_start = rt_rdtsc();
	}
	if (rt_counts_in_nodes)
		return; /* (no counters in TLS) */
	for (const struct pi_objdesc *d = rt_objs_begin(); d < rt_objs_end(); d++) {
		uint64_t *c = (uint64_t *)(th->tp + (int64_t)d->counts_tpoff);
		for (uint64_t b = 0, n = pi_counters(pi_obj_map(d)); b < n; b++)
			c[b] = 0;
	}
}
