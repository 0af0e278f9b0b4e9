/* SPDX-License-Identifier: MIT */
/*
 * The shadow call stack and the calling-context tree: the C half of the
 * entry, exit, tail-exit and rep helpers.  Compiled with
 * -mgeneral-regs-only; runs with every register of the program saved.
 */
#include <stddef.h>

#include "rt.h"
#include "stub_abi.h"


__thread struct pi_tls __profinst_tls __attribute__((tls_model("initial-exec"), visibility("default")));

static struct rt_node *node_new(struct rt_thread *th)
{
	if ((uint64_t)(th->arena_end - th->arena) < sizeof(struct rt_node)) {
		/* 1 KiB first, doubling up to 1 MiB: a short thread's tree is
		 * small, and there may be a hundred thousand of them */
		uint64_t sz = th->arena_size ? th->arena_size * 2 : 1 << 10;
		if (sz > 1 << 20)
			sz = 1 << 20;
		char *p = rt_alloc_keep(sz);
		if (!p)
			return NULL;
		th->arena_size = sz;
		th->arena = p;
		th->arena_end = p + sz;
	}
	struct rt_node *n = (struct rt_node *)th->arena;
	th->arena += sizeof(*n);
	n->min_self = UINT64_MAX;
	return n; /* the rest is zero: fresh mmap memory */
}

static uint64_t hash_key(const struct rt_node *parent, const struct pi_funcrec *fn, uint64_t ra)
{
	uint64_t h = (uint64_t)parent * 0x9e3779b97f4a7c15ull ^ (uint64_t)fn * 0xc2b2ae3d27d4eb4full ^
		     ra * 0x165667b19e3779f9ull;
	return h ^ (h >> 29);
}

static void hash_insert(struct rt_node **tab, uint64_t mask, struct rt_node *n)
{
	uint64_t i = hash_key(n->parent, n->fn, n->ra) & mask;
	while (tab[i])
		i = (i + 1) & mask;
	tab[i] = n;
}

/* Keep the load under a half; a failed grow keeps the old table. */
static int hash_grow(struct rt_thread *th)
{
	uint64_t ncap = th->hash ? (th->hmask + 1) * 2 : 4096;
	struct rt_node **nt = rt_mmap(ncap * sizeof(*nt));
	if (!nt)
		return th->hash && th->hcount + 1 < th->hmask ? 0 : -1;
	if (th->hash) {
		for (uint64_t i = 0; i <= th->hmask; i++)
			if (th->hash[i])
				hash_insert(nt, ncap - 1, th->hash[i]);
		rt_munmap(th->hash, (th->hmask + 1) * sizeof(*nt));
	}
	th->hash = nt;
	th->hmask = ncap - 1;
	return 0;
}

/* The child of parent for a call of fn returning to ra. */
static struct rt_node *child(struct rt_thread *th, struct rt_node *parent,
			     const struct pi_funcrec *fn, uint64_t ra)
{
	struct rt_node *c = parent->last_hit;
	if (c && c->fn == fn && c->ra == ra)
		goto hit;
	if (th->hash) {
		for (uint64_t i = hash_key(parent, fn, ra) & th->hmask; (c = th->hash[i]); i = (i + 1) & th->hmask)
			if (c->parent == parent && c->fn == fn && c->ra == ra)
				goto hit;
	}
	if (2 * (th->hcount + 1) > th->hmask && hash_grow(th))
		return NULL;
	c = node_new(th);
	if (!c)
		return NULL;
	c->fn = fn;
	c->ra = ra;
	c->parent = parent;
	/* A function is never its own descendant: a recursive call becomes
	 * an edge back to the ancestor already running it. */
	for (struct rt_node *a = parent; a && a->fn; a = a->parent)
		if (a->fn == fn && !a->alias) {
			c->alias = a;
			break;
		}
	c->next_sibling = parent->first_child;
	__atomic_store_n(&parent->first_child, c, __ATOMIC_RELEASE); /* complete when linked */
	hash_insert(th->hash, th->hmask, c);
	th->hcount++;
hit:
	parent->last_hit = c;
	if (th->cache)
		th->cache[rt_cache_index(parent, fn, ra)] = c;
	return c;
}

/*
 * An external call's time is its own node's self: measured (its real time,
 * callbacks and the stubs' own cost left out; the node's os says how much)
 * or the model's (PI_EXT_FIXED), added to the thread's clock so that its
 * callers' self+descendants include it while their self is their own code.
 * A wait's time is measured and left out unless charged (os_left).
 * Returns what it added to the clock.
 */
static uint64_t close_external(struct rt_thread *th, struct rt_frame *f)
{
	if (f->ext & RT_EXT_SWITCH)
		return 0;
	uint64_t cyc;
	bool measured = !(f->ext & RT_EXT_FIXED);
	if (!measured) {
		cyc = f->ext >> RT_EXT_COST_SHIFT; /* the model's cost, in the clock's units */
	} else {
		/* (ext_ticks can be "negative": each callback's stubs' cost is
		 * taken from it as the callback enters) */
		int64_t ticks = (int64_t)(f->ext_ticks + (rt_rdtsc() - f->ext_start) - rt_ext_overhead_ticks);
		cyc = rt_ticks_to_cycles(ticks > 0 ? (uint64_t)ticks : 0);
	}
	struct pi_tls *t = rt_tls_of(th);
	t->ext_last = f->node;
	uint64_t charged = 0;
	if (f->ext & RT_EXT_CHARGE) {
		t->clock += cyc;
		if (measured)
			f->node->os += cyc;
		charged = cyc;
	} else {
		f->node->os_left += cyc;
	}
	if (measured)
		rt_fe_free(t);
	return charged;
}

uint64_t rt_close_top(struct rt_thread *th, uint64_t now)
{
	struct rt_frame *f = &th->stack[th->depth - 1];
	uint64_t charged = f->ext ? close_external(th, f) : 0;
	now += charged;
	uint64_t dur = now - f->entry_clock;
	uint64_t self = dur - f->child;
	struct rt_node *n = f->node;
	n->self += self;
	if (self < n->min_self)
		n->min_self = self;
	if (self > n->max_self)
		n->max_self = self;
	if (--th->fn_active[n->fn - rt_funcs_begin()] == 0)
		n->incl += dur;
	if (f->alias)
		f->alias->incl += dur;
	th->depth--;
	if (th->depth) {
		struct rt_frame *up = &th->stack[th->depth - 1];
		up->child += dur;
		if (up->ext) /* a callback returned: its clock runs again */
			rt_ext_clock_run(&__profinst_tls, up);
	}
	return charged;
}

/* now: the thread's clock, which closing an external call advances */
#define close_top(th, now) ((now) += rt_close_top(th, now))

void rt_close_all(struct rt_thread *th, uint64_t now)
{
	while (th->depth)
		close_top(th, now);
	if (th->nparked)
		rt_close_parked(th);
}

/* Frames at or below sp are dead: their functions left without an exit
 * stub (longjmp, exception, tail call out of instrumented code). */
uint64_t rt_unwind_to(struct rt_thread *th, uint64_t sp, uint64_t now)
{
	while (th->depth && th->stack[th->depth - 1].sp < sp)
		close_top(th, now);
	return now;
}

#define unwind_to(th, sp, now) ((now) = rt_unwind_to(th, sp, now))

struct rt_frame *rt_push(struct rt_thread *th, const struct pi_funcrec *fn, uint64_t sp, uint64_t ra,
			 uint64_t now)
{
	struct rt_frame *up = th->depth ? &th->stack[th->depth - 1] : NULL;
	struct rt_node *parent = up ? up->node : &th->root;
	struct rt_node *c = child(th, parent, fn, ra);
	if (!c) {
		th->dropped++;
		return NULL;
	}
	if (up && up->ext) {
		/* a callback: the external's clock pauses where the entry
		 * helper saw it enter (or now), less the stubs' own cost */
		struct pi_tls *t = &__profinst_tls; /* (th is this thread's) */
		uint64_t at = t->cb_tsc && t->cb_tsc - up->ext_start < (1ull << 62) ? t->cb_tsc : rt_rdtsc();
		up->ext_ticks += at - up->ext_start - rt_cb_overhead_ticks;
		t->cb_tsc = 0;
	}
	/* The frame is complete before depth counts it: whatever reads the
	 * stack up to depth (the profile's writer, a signal handler's
	 * unwinding) never sees a half-built one. */
	struct rt_frame *f = &th->stack[th->depth];
	f->alias = c->alias ? c : NULL;
	f->node = c->alias ? c->alias : c;
	f->sp = sp;
	f->entry_clock = now;
	f->fe_call = 0;
	f->child = 0;
	f->tail = 0;
	f->tail_target = 0;
	f->ext = 0;
	f->node->calls++;
	th->fn_active[fn - rt_funcs_begin()]++;
	if (f->alias) {
		f->alias->calls++;
		f->node->rec_calls++;
	}
	__atomic_store_n(&th->depth, th->depth + 1, __ATOMIC_RELEASE);
	return f;
}

void pi_rt_enter(const struct pi_funcrec *fn, uint64_t sp, uint64_t ra)
{
	struct pi_tls *t = &__profinst_tls;
	if (!rt_enter(t)) {
		t->skipped++;
		return;
	}
	uint64_t cb_tsc = t->cb_tsc; /* (rt_push takes it) */
	t->cb_tsc = 0;
	struct rt_thread *th = rt_thread_for_call(t);
	if (!th)
		goto out;
	/* the caller's, before the call; an external's measured time holds
	 * its own */
	if (th->depth && (th->stack[th->depth - 1].ext & (RT_EXT_ON | RT_EXT_FIXED)) == RT_EXT_ON)
		rt_faults_skip(t);
	else
		t->clock += rt_faults_take(t);
	uint64_t now = t->clock;
	unwind_to(th, sp, now);
	while (th->depth && th->stack[th->depth - 1].sp == sp) {
		struct rt_frame *top = &th->stack[th->depth - 1];
		if (top->tail && top->tail_target == pi_rec_addr(fn, 0))
			break; /* the function it tail-called: it stays, as the caller */
		close_top(th, now);
	}
	if (th->depth) {
		struct rt_frame *top = &th->stack[th->depth - 1];
		if (top->tail && top->sp == sp && top->node->fn == fn) {
			/* A self tail call: one more call, no new frame, so that a
			 * tail-recursive loop runs in bounded memory. */
			struct rt_node *e = child(th, top->node, fn, ra);
			if (e && e->alias) {
				e->calls++;
				top->node->calls++;
				top->node->rec_calls++;
			}
			top->tail = 0;
			goto out;
		}
	}
	/* the call's bubble: the caller's time, unless the callee calls
	 * (pi_rt_exit); a tail call jumped, and its jump has none
	 * (bench/probes/callret.c: call, jmp, ret take what call, ret do) */
	/* (external code's calls have none either: its time holds them) */
	uint64_t before = t->clock;
	if (!th->depth || (th->stack[th->depth - 1].sp != sp && !th->stack[th->depth - 1].ext))
		rt_fe_event(t, rt_fe_call);
	t->cb_tsc = cb_tsc;
	struct rt_frame *f = rt_push(th, fn, sp, ra, t->clock);
	t->cb_tsc = 0;
	if (f)
		f->fe_call = t->clock - before;
out:
	rt_leave(t);
}

void pi_rt_exit(uint64_t sp)
{
	struct pi_tls *t = &__profinst_tls;
	struct rt_thread *th = t->th;
	if (!th || !rt_enter(t))
		return;
	t->clock += rt_faults_take(t); /* the returning function's */
	uint64_t now = t->clock;
	unwind_to(th, sp, now);
	if (th->depth && th->stack[th->depth - 1].sp == sp) {
		/* A function that called others has its call's bubble and
		 * its return's (frontend.c); a leaf's are its caller's. */
		struct rt_frame *f = &th->stack[th->depth - 1];
		bool leaf = f->child == 0;
		/* a return to external code has none: its time holds it */
		bool to_ext = th->depth > 1 && th->stack[th->depth - 2].ext;
		if (!leaf && !to_ext) {
			f->entry_clock -= f->fe_call;
			rt_fe_event(t, rt_fe_ret);
			now = t->clock;
		}
		close_top(th, now);
		/* the functions that tail-called it return with it */
		while (th->depth && th->stack[th->depth - 1].sp == sp && th->stack[th->depth - 1].tail)
			close_top(th, now);
		if (leaf && !to_ext)
			rt_fe_event(t, rt_fe_ret);
	}
	/* a callback returns: the external's clock runs again, as late as
	 * can be */
	if (th->depth && th->stack[th->depth - 1].ext)
		rt_ext_clock_run(t, &th->stack[th->depth - 1]);
	rt_leave(t);
}

/* Returns where the jump goes: target, or (a jump through a pointer out
 * of instrumented code: the stub pops what it jumps to, stub_abi.h) the
 * thunk that times the target as an external (targets.c).  stub: the
 * stub's code after its call of the helper. */
uint64_t pi_rt_tailexit(const struct pi_funcrec *fn, uint64_t sp, uint64_t target, const uint8_t *stub)
{
	struct pi_tls *t = &__profinst_tls;
	struct rt_thread *th = t->th;
	(void)fn;
	if (!th || !rt_enter(t))
		return target;
	uint64_t now = t->clock;
	unwind_to(th, sp, now);
	if (th->depth && th->stack[th->depth - 1].sp == sp) {
		uint64_t thunk;
		if (rt_is_entry(target)) {
			/* it stays, as the caller of the function it jumps to */
			struct rt_frame *f = &th->stack[th->depth - 1];
			f->tail = 1;
			f->tail_target = target;
		} else if (!__builtin_memcmp(stub, "\x41\x5b\x41\x5b", 4) && (thunk = rt_target_tail_thunk(target))) {
			/* it stays, as the caller of the external, and returns
			 * with it (the thunk's trampoline calls its exit) */
			target = thunk;
		} else {
			/* jumps out of instrumented code: nothing will exit for it */
			close_top(th, now);
			while (th->depth && th->stack[th->depth - 1].sp == sp && th->stack[th->depth - 1].tail)
				close_top(th, now);
		}
	}
	rt_leave(t);
	return target;
}

void pi_rt_resync(uint64_t sp)
{
	struct pi_tls *t = &__profinst_tls;
	struct rt_thread *th = t->th;
	if (!th || !rt_enter(t))
		return;
	unwind_to(th, sp, t->clock);
	rt_leave(t);
}

#define ZF 0x40

void pi_rt_rep(uint64_t kind, uint64_t rcx, uint64_t flags)
{
	struct pi_tls *t = &__profinst_tls;
	uint64_t k = t->repsave - rcx; /* iterations done */
	uint64_t extra;
	if (kind & STUB_REP_PASSES) {
		/* valgrind runs the instruction once per iteration, and once more
		 * when it stops because %rcx reached 0 */
		uint64_t passes;
		switch (kind & 3) {
		case 2: /* repe: goes on while ZF=1 */
			passes = k == 0 ? 1 : k + ((flags & ZF) ? 1 : 0);
			break;
		case 3: /* repne: goes on while ZF=0 */
			passes = k == 0 ? 1 : k + ((flags & ZF) ? 0 : 1);
			break;
		default:
			passes = k + 1;
		}
		extra = passes - 1;
	} else {
		extra = k * (kind >> STUB_REP_COST_SHIFT);
	}
	struct rt_caux *aux;
	if (!t->cur)
		t->clock += extra;
	else if ((aux = rt_cnode_aux(t->cur)))
		aux->extra += extra; /* --counts: its node's (no memory: lost) */
}
