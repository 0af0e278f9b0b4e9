/* SPDX-License-Identifier: MIT */
/*
 * Time spent outside instrumented code: calls into external code (shared
 * libraries, functions left as they were) and system calls.  Their real
 * duration is measured with rdtsc and converted to core cycles by a ratio
 * measured at start-up (calls whose time cannot be known before they run); waits on the
 * outside world are measured but not charged unless asked.
 * Compiled with -mgeneral-regs-only: it runs between the program's
 * instructions, at call sites.
 */
#include <stddef.h>
#include <sys/syscall.h>

#include "rt.h"

/* cycles per tick, 32.32 fixed point (the external-exit fast path in
 * stubs.S reads it too) */
uint64_t rt_cycles_per_tick_q32 __attribute__((visibility("hidden")));
#define cycles_per_tick_q32 rt_cycles_per_tick_q32
static uint64_t tsc_per_kcycle;
/* The program has set a locale (setlocale, uselocale): what the model
 * costs in the C locale only (PI_EXT_C_LOCALE) is measured from then on.
 * Set once, never cleared, read by every thread (stubs.S too). */
uint32_t rt_locale_set __attribute__((visibility("default")));

/* Where the program's C library says whether the process has one thread
 * (glibc's __libc_single_threaded, 2.32 on: cleared by the first
 * pthread_create, never set again), which the counting stubs read before
 * a mutex's lock or unlock (PI_EXT_SOLO): until the runtime starts, or
 * without it, a byte that says "more", so that every call is measured. */
extern char __libc_single_threaded __attribute__((weak));
static const char many_threads;
const char *rt_solo_word __attribute__((visibility("default"))) = &many_threads;

/* from the objects' maps: system calls' time goes into the cycles, and
 * waits' too */
static int sys_charge, sys_charge_waits;

uint64_t rt_ticks_to_cycles(uint64_t ticks)
{
	return (uint64_t)(((unsigned __int128)ticks * cycles_per_tick_q32) >> 32);
}

uint64_t rt_tsc_per_kcycle(void)
{
	return tsc_per_kcycle;
}

/* A chain of dependent register adds: one cycle each on every core we
 * model (an add of an immediate would be folded at rename on some). */
static uint64_t time_chain(uint64_t iters)
{
	uint64_t a = 0, b = 1, n = iters;
	uint64_t t0 = rt_rdtsc();
	__asm__ volatile("1:\n\t"
			 "add %2, %0\n\tadd %2, %0\n\tadd %2, %0\n\tadd %2, %0\n\t"
			 "add %2, %0\n\tadd %2, %0\n\tadd %2, %0\n\tadd %2, %0\n\t"
			 "dec %1\n\tjnz 1b"
			 : "+r"(a), "+r"(n)
			 : "r"(b)
			 : "cc");
	return rt_rdtsc() - t0;
}

/* the stubs' own share of an external call's measured ticks */
uint64_t rt_ext_overhead_ticks __attribute__((visibility("hidden")));

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

/* the stubs' own share of each callback's */
uint64_t rt_cb_overhead_ticks __attribute__((visibility("hidden")));
uint64_t rt_ccb_overhead_ticks __attribute__((visibility("hidden")));

#define PROBE_RUNS 255

/* 255 runs of probe, sorted */
static void probe_runs(uint64_t (*probe)(void), uint64_t *t)
{
	for (int i = 0; i < PROBE_RUNS; i++)
		t[i] = probe();
	for (int i = 1; i < PROBE_RUNS; i++)
		for (int j = i; j > 0 && cmp_u64(&t[j - 1], &t[j]) > 0; j--) {
			uint64_t x = t[j];
			t[j] = t[j - 1];
			t[j - 1] = x;
		}
}

/* The median of 255 runs of probe: what a call usually pays, not its
 * luckiest case. */
static uint64_t median_ticks(uint64_t (*probe)(void))
{
	uint64_t t[PROBE_RUNS];
	probe_runs(probe, t);
	return t[PROBE_RUNS / 2];
}

/* The mean of 255 runs of probe, less those a preemption or an interrupt
 * stretched (over twice the median).  For a cost paid many times over: a
 * guest's counter may step by tens of ticks, and the median of a cost
 * between two steps is one of them (42 where the mean is 47, 12 % less),
 * while the steps' phase drifts from run to run, so that the mean is
 * the cost. */
static uint64_t mean_ticks(uint64_t (*probe)(void))
{
	uint64_t t[PROBE_RUNS], sum = 0, n = 0;
	probe_runs(probe, t);
	for (int i = 0; i < PROBE_RUNS && t[i] <= 2 * t[PROBE_RUNS / 2]; i++)
		sum += t[i], n++;
	return n ? (sum + n / 2) / n : 0;
}

static void calibrate_overhead(void)
{
	rt_ext_overhead_ticks = median_ticks(pi_rt_probe_window);
	rt_cb_overhead_ticks = mean_ticks(pi_rt_probe_callback);
	rt_ccb_overhead_ticks = mean_ticks(pi_rt_probe_ccallback);
	__profinst_tls.cb_hint = 0; /* (the probe sets it) */
}

static void calibrate(void)
{
	calibrate_overhead();
	/* 80k cycles, about 30 us a run; runs until two agree to 1/512 (the
	 * least is the one no interrupt or preemption lengthened), at most
	 * eight: every instrumented process pays this at its start (five
	 * runs of 400k cycles were 0.6 ms of the 1.6 ms a short run of
	 * wordfreq took) */
	const uint64_t iters = 10000;
	uint64_t best = UINT64_MAX, next = UINT64_MAX;
	for (int i = 0; i < 8; i++) {
		uint64_t t = time_chain(iters);
		if (!t)
			continue;
		if (t < best)
			next = best, best = t;
		else if (t < next)
			next = t;
		if (next != UINT64_MAX && next - best <= best / 512)
			break;
	}
	if (best == UINT64_MAX)
		return;
	cycles_per_tick_q32 = (uint64_t)(((unsigned __int128)(8 * iters) << 32) / best);
	tsc_per_kcycle = best * 1000 / (8 * iters);
}

/* (every external's record says where its name is: the rewriter writes it
 * for each, and a record of an older profinst is refused with its object) */
static const char *ext_name(const struct pi_funcrec *r)
{
	return (const char *)pi_rec_addr(r, PI_EXT_NAME_AT);
}

static int same(const char *a, const char *b)
{
	while (*a && *a == *b)
		a++, b++;
	return *a == *b;
}

static uint64_t hash_str(const char *s)
{
	uint64_t h = 1469598103934665603ull;
	for (; *s; s++)
		h = (h ^ (uint8_t)*s) * 1099511628211ull;
	return h;
}

/* Every object has its own record for the externals it calls: give those
 * of one name one record (the first), so that <external:qsort> is one
 * function however many objects call it.  The table of names stays for
 * the shared objects loaded later (rt_externals_add). */
static const struct pi_funcrec **ext_tab;
static uint64_t ext_cap, ext_n;

static uint64_t ext_slot(const char *name)
{
	uint64_t i = hash_str(name) & (ext_cap - 1);
	while (ext_tab[i] && !same(ext_name(ext_tab[i]), name))
		i = (i + 1) & (ext_cap - 1);
	return i;
}

/* room for more names: false if there is no memory */
static bool ext_room(uint64_t more)
{
	if (ext_tab && 2 * (ext_n + more) <= ext_cap)
		return true;
	uint64_t cap = 16;
	while (cap < 2 * (ext_n + more))
		cap *= 2;
	const struct pi_funcrec **old = ext_tab;
	uint64_t old_cap = ext_cap;
	if (!(ext_tab = rt_mmap(cap * sizeof(*ext_tab)))) {
		ext_tab = old;
		return false;
	}
	ext_cap = cap;
	for (uint64_t i = 0; old && i < old_cap; i++)
		if (old[i])
			ext_tab[ext_slot(ext_name(old[i]))] = old[i];
	if (old)
		rt_munmap(old, old_cap * sizeof(*old));
	return true;
}

static void merge_externals(const struct rt_image *im)
{
	uint64_t n = 0;
	for (const struct pi_funcrec *r = im->desc.funcs; r < im->desc.funcs_end; r++)
		n += rt_is_external(r) && !rt_is_target(r);
	if (!n || !ext_room(n))
		return;
	for (const struct pi_funcrec *r = im->desc.funcs; r < im->desc.funcs_end; r++) {
		if (!rt_is_external(r) || rt_is_target(r))
			continue;
		uint64_t i = ext_slot(ext_name(r));
		if (!ext_tab[i]) {
			ext_tab[i] = r;
			ext_n++;
		}
		if (r->addr[0]) /* (its word, in profinst_shared) */
			*(const struct pi_funcrec **)pi_rec_addr(r, 0) = ext_tab[i];
	}
}

uint64_t rt_units = 1;
static int units_known;

/* What the model of an image's objects says: the clock's units (1/units
 * of a cycle: the first image's with objects, the program's unless it
 * has none: the shared runtime), and whether time outside is charged. */
static void model_of(const struct rt_image *im)
{
	for (const struct pi_objdesc *d = im->desc.objs; d < im->desc.objs_end; d++) {
		if (!units_known) {
			rt_units = d->map_units ? d->map_units : 1;
			cycles_per_tick_q32 *= rt_units;
			units_known = 1;
		}
		if (d->map_flags & PI_MAP_CHARGE_OS)
			sys_charge = 1;
		if (d->map_flags & PI_MAP_CHARGE_WAITS)
			sys_charge_waits = 1;
	}
}

void rt_externals_add(const struct rt_image *im)
{
	model_of(im);
	merge_externals(im);
}

void rt_externals_init(void)
{
	if (&__libc_single_threaded)
		rt_solo_word = &__libc_single_threaded;
	calibrate();
	for (uint32_t i = 0, n = rt_image_count(); i < n; i++) {
		model_of(&rt_images[i]);
		merge_externals(&rt_images[i]);
	}
}

static int park(struct rt_thread *th, uint64_t sp, uint64_t now);

static int is_tty(uint64_t fd)
{
	uint64_t termios[8]; /* the kernel's struct termios is 36 bytes */
	return fd < (1u << 31) && rt_syscall6(SYS_ioctl, (long)fd, 0x5401 /* TCGETS */,
					      (long)termios, 0, 0, 0) == 0;
}

/* Does a read of fd block until something comes: a pipe, a socket or a
 * terminal, unless non-blocking?  (A regular file or a device such as
 * /dev/zero answers at once: its read is work, and charged.) */
static int read_blocks(uint64_t fd)
{
	uint64_t st[18]; /* the kernel's struct stat: 144 bytes, st_mode at 24 */
	if (fd >= (1u << 31) || rt_syscall6(SYS_fstat, (long)fd, (long)st, 0, 0, 0, 0))
		return 0;
	uint32_t type = (uint32_t)(st[3] & 0170000);
	if (type != 0010000 /* FIFO */ && type != 0140000 /* socket */ && (type != 0020000 || !is_tty(fd)))
		return 0;
	long fl = rt_syscall6(SYS_fcntl, (long)fd, 3 /* F_GETFL */, 0, 0, 0, 0);
	return fl >= 0 && !(fl & 04000 /* O_NONBLOCK */);
}

/* A PI_EXT_TTYREAD external's descriptor (rec->size[3]: PI_READ_*), or -1.
 * sp: the callee's %rsp, under which __profinst_ext_enter_slow saved %rax,
 * then %rcx (a fourth argument). */
static uint64_t read_fd(const struct pi_funcrec *rec, uint64_t sp, uint64_t arg0, uint64_t arg1,
			uint64_t arg2)
{
	uint64_t file;
	switch (rec->size[3]) {
	case PI_READ_FD: return arg0;
	case PI_READ_STDIN: return 0;
	case PI_READ_FILE1: file = arg0; break;
	case PI_READ_FILE2: file = arg1; break;
	case PI_READ_FILE3: file = arg2; break;
	case PI_READ_FILE4: file = ((const uint64_t *)sp)[-2]; break;
	default: return (uint64_t)-1;
	}
	/* glibc's FILE: _fileno at 112 (an ABI the C library keeps) */
	return file ? (uint64_t)(int64_t) * (const int *)(file + 112) : (uint64_t)-1;
}

bool rt_ext_locale(const struct pi_funcrec *rec, uint64_t a0, uint64_t a1)
{
	uint32_t flags = rec->size[0];
	/* setlocale(category, locale), uselocale(locale): the argument
	 * rec->size[3] names; NULL asks */
	if ((flags & PI_EXT_LOCALE) && ((rec->size[3] & 0xff) == 1 ? a0 : a1))
		__atomic_store_n(&rt_locale_set, 1, __ATOMIC_RELAXED);
	return (flags & PI_EXT_C_LOCALE) && __atomic_load_n(&rt_locale_set, __ATOMIC_RELAXED);
}

bool rt_ext_solo_measured(const struct pi_funcrec *rec, uint64_t a0)
{
	/* pthread_once_t: glibc's __PTHREAD_ONCE_DONE bit (2) once its
	 * initializer has run */
	if (rec->size[0] & PI_EXT_ONCE)
		return !a0 || !(*(const volatile int *)a0 & 2);
	if (!(rec->size[0] & PI_EXT_SOLO))
		return false;
	/* glibc's pthread_mutex_t: its kind at 16 (an ABI: the static
	 * initializers set it), whose bits 16 (robust), 32 (priority
	 * inheritance), 64 (priority protection: a system call) and 128
	 * (shared between processes) take the long ways; its
	 * pthread_rwlock_t: __shared at 28 (the stubs test its low byte too:
	 * PTHREAD_PROCESS_SHARED is 1) */
	const volatile int *m = (const volatile int *)a0;
	if (!*(const volatile char *)rt_solo_word || !m)
		return true;
	if (rec->size[0] & PI_EXT_SOLO_RW)
		return ((const volatile char *)m)[28] != 0;
	return (m[4] & 0xf0) != 0;
}

bool rt_ext_waits(const struct pi_funcrec *rec, uint64_t a0, uint64_t a1, uint64_t a2)
{
	uint32_t flags = rec->size[0];
	if (flags & PI_EXT_WAIT)
		return true;
	/* (a fourth argument is on the stack only where the timed runtime's
	 * helper saved it) */
	return (flags & PI_EXT_TTYREAD) && rec->size[3] != PI_READ_FILE4 && read_blocks(read_fd(rec, 0, a0, a1, a2));
}

/* The call instruction at pc: its length and, when it can be known, its
 * target (call rel32, or call *GOT(%rip) as -fno-plt makes it). */
static uint64_t call_target(uint64_t pc, uint64_t *len)
{
	const uint8_t *p = (const uint8_t *)pc;
	int i = 0;
	while (i < 4 && (p[i] == 0x3e || p[i] == 0xf2 || p[i] == 0x66 || p[i] == 0x2e ||
			 (p[i] & 0xf0) == 0x40))
		i++;
	if (p[i] == 0xe8) {
		int32_t rel;
		__builtin_memcpy(&rel, p + i + 1, 4);
		*len = (uint64_t)i + 5;
		return pc + *len + (uint64_t)(int64_t)rel;
	}
	if (p[i] == 0xff && p[i + 1] == 0x15) {
		int32_t disp;
		__builtin_memcpy(&disp, p + i + 2, 4);
		*len = (uint64_t)i + 6;
		return *(const uint64_t *)(pc + *len + (uint64_t)(int64_t)disp);
	}
	*len = 5;
	return 0;
}

/* A PI_EXT_FIXED external's cost, as the rewriter's model gave it. */
static uint64_t fixed_cost(const struct pi_funcrec *rec, uint64_t arg0, uint64_t arg1, uint64_t arg2)
{
	uint32_t which = rec->size[3] & 0xff, null_cost = rec->size[3] >> 8;
	if (null_cost && !arg0)
		return null_cost;
	uint64_t n = which == 1 ? arg0 : which == 2 ? arg1 : which == 3 ? arg2 : 0;
	if (which == 4 && __builtin_mul_overflow(arg0, arg1, &n))
		n = 0; /* calloc's nmemb * size: it fails at once */
	return rec->size[1] + ((n * rec->size[2]) >> 8);
}

void pi_rt_ext_enter(const struct pi_funcrec *rec, uint64_t sp, uint64_t pc, uint64_t arg0, uint64_t arg1,
		     uint64_t arg2)
{
	struct pi_tls *t = &__profinst_tls;
	if (t->busy || (t->dead & RT_HALTED)) {
		t->skipped++;
		return;
	}
	uint32_t flags = rec->size[0];
	if (rt_ext_locale(rec, arg0, arg1) || rt_ext_solo_measured(rec, arg0))
		flags &= ~PI_EXT_FIXED;
	else if (flags & PI_EXT_SOLO)
		flags &= ~PI_EXT_WAIT; /* a lock that cannot wait: its cost is work */
	uint64_t len;
	uint64_t target = call_target(pc, &len);
	if ((flags & PI_EXT_CHECK) && target && rt_is_entry(target))
		return; /* instrumented after all: its own stubs count it */
	if (!rt_enter(t)) {
		t->skipped++;
		return;
	}
	struct rt_thread *th = rt_thread_for_call(t);
	if (!th)
		goto out;
	t->clock += rt_faults_take(t); /* the caller's, before the call */
	uint64_t now = t->clock;
	now = rt_unwind_to(th, sp, now);
	const struct pi_funcrec *shared = rt_ext_shared(rec), *fn = shared ? shared : rec;
	struct rt_frame *f = rt_push(th, fn, sp, pc + len, now);
	if (f && (flags & (PI_EXT_SWITCH | PI_EXT_SETCTX))) {
		f->ext = RT_EXT_ON | RT_EXT_SWITCH;
		f->ext_ticks = 0;
		f->ext_start = rt_rdtsc();
		if (flags & PI_EXT_SWITCH) {
			/* this context waits for its swapcontext to return */
			park(th, sp, now);
		} else {
			/* setcontext: this context is over */
			while (th->depth)
				now += rt_close_top(th, now);
		}
	} else if (f) {
		int wait = (flags & PI_EXT_WAIT) ||
			   ((flags & PI_EXT_TTYREAD) && read_blocks(read_fd(rec, sp, arg0, arg1, arg2)));
		int charge = (flags & PI_EXT_CHARGE) && (!wait || (flags & PI_EXT_CHARGE_WAITS));
		f->ext = RT_EXT_ON | (charge ? RT_EXT_CHARGE : 0);
		f->ext_ticks = 0;
		uint64_t cost;
		if (flags & PI_EXT_FIXED) {
			/* the allocator's model, else the fixed cost */
			if (!(flags & PI_EXT_HEAP_MASK) ||
			    !rt_heap_cost(t, (flags & PI_EXT_HEAP_MASK) >> PI_EXT_HEAP_SHIFT, arg0, arg1, &cost))
				cost = fixed_cost(rec, arg0, arg1, arg2);
			f->ext |= RT_EXT_FIXED | cost << RT_EXT_COST_SHIFT;
		} else {
			rt_ext_clock_run(t, f);
		}
	}
out:
	rt_leave(t);
}

void pi_rt_ext_exit(uint64_t sp)
{
	struct pi_tls *t = &__profinst_tls;
	struct rt_thread *th = t->th;
	t->cb_hint = 0; /* entries from here on are plain calls */
	if (!th || !rt_enter(t))
		return;
	if (th->nparked)
		rt_unpark(th, sp); /* a swapcontext returning: its context comes back */
	uint64_t now = rt_unwind_to(th, sp, t->clock);
	struct rt_frame *top = th->depth ? &th->stack[th->depth - 1] : NULL;
	if (top && top->sp == sp && top->ext) {
		/* the external's faults: in its measured time already, or
		 * added to the model's cost of it */
		if (top->ext & RT_EXT_FIXED)
			top->ext += rt_faults_take(t) << RT_EXT_COST_SHIFT;
		else
			rt_faults_skip(t);
		rt_close_top(th, now);
	} else {
		t->clock += rt_faults_take(t);
	}
	rt_leave(t);
}

static int sys_waits(uint64_t nr, uint64_t arg0, uint64_t arg1)
{
	switch (nr) {
	case SYS_read: case SYS_readv: case SYS_recvfrom: case SYS_recvmsg: case SYS_recvmmsg:
		return read_blocks(arg0);
	case SYS_futex: /* FUTEX_WAIT, _LOCK_PI, _WAIT_BITSET, _WAIT_REQUEUE_PI, _LOCK_PI2 */
		switch (arg1 & 0x7f) {
		case 0: case 6: case 9: case 11: case 13: return 1;
		default: return 0;
		}
	case SYS_flock: case SYS_connect: case SYS_semop: case SYS_semtimedop:
	case SYS_nanosleep: case SYS_clock_nanosleep: case SYS_poll: case SYS_ppoll:
	case SYS_select: case SYS_pselect6: case SYS_epoll_wait: case SYS_epoll_pwait:
	case SYS_pause: case SYS_wait4: case SYS_waitid: case SYS_rt_sigsuspend:
	case SYS_rt_sigtimedwait: case SYS_accept: case SYS_accept4: case SYS_msgrcv:
		return 1;
	default:
		return 0;
	}
}

void pi_rt_sys_enter(uint64_t nr, uint64_t arg0, uint64_t arg1)
{
	struct pi_tls *t = &__profinst_tls;
	if (t->busy || (t->dead & RT_HALTED))
		return;
	int wait = sys_waits(nr, arg0, arg1);
	t->sys_charge = sys_charge && (!wait || sys_charge_waits);
	if (!rt_enter(t))
		return;
	t->clock += rt_faults_take(t); /* the caller's, before the call */
	rt_leave(t);
	t->sys_start = rt_rdtsc();
}

void pi_rt_sys_exit(void)
{
	struct pi_tls *t = &__profinst_tls;
	if (!t->sys_start || t->busy || (t->dead & RT_HALTED))
		return;
	uint64_t cyc = rt_ticks_to_cycles(rt_rdtsc() - t->sys_start);
	t->sys_start = 0;
	if (!rt_enter(t))
		return;
	struct rt_thread *th = t->th ? t->th : rt_thread_init(t);
	if (th && th->counting) {
		rt_counting_sys(t, cyc, t->sys_charge);
	} else if (th) {
		struct rt_node *n = th->depth ? th->stack[th->depth - 1].node : &th->root;
		if (t->sys_charge) {
			t->clock += cyc;
			n->os += cyc;
		} else {
			n->os_left += cyc;
		}
		rt_fe_free(t);
	}
	rt_leave(t);
}

/* ----- Contexts (swapcontext): each context's frames live on the shadow
 * stack while it runs, and are parked while another runs.  A context that
 * starts fresh (makecontext) begins at the root, as a thread does. */

static int park(struct rt_thread *th, uint64_t sp, uint64_t now)
{
	if (th->nparked == th->parkcap) {
		uint64_t nc = th->parkcap ? 2 * th->parkcap : 64;
		struct rt_parked *p = rt_mmap(nc * sizeof(*p));
		if (!p)
			return -1;
		for (uint64_t i = 0; i < th->nparked; i++)
			p[i] = th->parked[i];
		if (th->parked)
			rt_munmap(th->parked, th->parkcap * sizeof(*p));
		th->parked = p;
		th->parkcap = nc;
	}
	struct rt_parked *k = &th->parked[th->nparked];
	if (k->cap < th->depth) {
		/* a slot keeps its buffer when it is freed: reuse it */
		if (k->frames)
			rt_munmap(k->frames, k->cap * sizeof(struct rt_frame));
		uint64_t cap = (th->depth + 255) & ~(uint64_t)255;
		k->frames = rt_mmap(cap * sizeof(struct rt_frame));
		k->cap = k->frames ? cap : 0;
		if (!k->frames)
			return -1;
	}
	for (uint64_t i = 0; i < th->depth; i++)
		k->frames[i] = th->stack[i];
	k->n = th->depth;
	k->sp = sp;
	k->clock = now;
	th->nparked++;
	th->depth = 0;
	return 0;
}

int rt_unpark(struct rt_thread *th, uint64_t sp)
{
	for (uint64_t i = th->nparked; i-- > 0;) {
		struct rt_parked *k = &th->parked[i];
		if (k->sp != sp)
			continue;
		uint64_t now = rt_tls_of(th)->clock;
		/* what runs here now is the context coming back: frames left on
		 * the shadow stack belong to a context that ended */
		while (th->depth)
			now += rt_close_top(th, now);
		if (k->n > th->cap)
			return 0;
		/* the time other contexts ran is not these frames' */
		uint64_t away = now - k->clock;
		for (uint64_t j = 0; j < k->n; j++) {
			th->stack[j] = k->frames[j];
			th->stack[j].entry_clock += away;
		}
		th->depth = k->n;
		/* swap the slot with the last, keeping both buffers */
		struct rt_parked last = th->parked[th->nparked - 1];
		th->parked[th->nparked - 1] = *k;
		*k = last;
		th->nparked--;
		return 1;
	}
	return 0;
}

void rt_close_parked(struct rt_thread *th)
{
	while (th->nparked) {
		uint64_t sp = th->parked[th->nparked - 1].sp;
		uint64_t now = rt_tls_of(th)->clock;
		rt_unpark(th, sp);
		while (th->depth)
			now += rt_close_top(th, now);
	}
}
