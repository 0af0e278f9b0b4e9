/* SPDX-License-Identifier: MIT */
/*
 * The runtime's simulator cores in this process, on fixed inputs: the
 * front end's bubbles (frontend.c), the allocator's shadow (heap.c), the
 * data caches' waits (dcache.c) and the branch predictor (branch.c).  The
 * expected figures follow from each model's rules as its file states
 * them, worked out by hand below; nothing is instrumented or linked with
 * the rest of the runtime: what the cores call of it (memory, the
 * objects' descriptors) is stood in for here.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "rt.h"
#include "stub_abi.h"
#include "tap.h"

/* each check a case of its own */
#define EXPECT(what, got, want)                                                                \
	do {                                                                                   \
		tap_case("%s", what);                                                          \
		unsigned long long g_ = (unsigned long long)(got), w_ = (unsigned long long)(want); \
		if (g_ != w_)                                                                  \
			tap_fail("%llu, want %llu", g_, w_);                                   \
	} while (0)

/* ----- What the cores use of the runtime */

__thread struct pi_tls __profinst_tls;

void *rt_mmap(uint64_t size)
{
	void *p = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	return p == MAP_FAILED ? NULL : p;
}

void rt_munmap(void *p, uint64_t size)
{
	munmap(p, size);
}

/* the objects' descriptors the cores read their parameters from */
static struct pi_objdesc objs[2];

const struct pi_objdesc *rt_objs_begin(void)
{
	return objs;
}

const struct pi_objdesc *rt_objs_end(void)
{
	return objs + 2;
}

/* pi_rt_branch and pi_rt_load are called by the stubs' assembly; their
 * prototypes live there */
void pi_rt_branch(uint64_t word, int64_t counter);
void pi_rt_load(uint64_t addr, uint32_t word, uint64_t sp, int64_t counter);

/* a block's counter, as a stub names it: its offset from the thread pointer */
static __thread uint64_t counter;

static int64_t counter_tpoff(void)
{
	uint64_t tp;
	__asm__("mov %%fs:0, %0" : "=r"(tp));
	return (int64_t)((uint64_t)&counter - tp);
}

static void reset_thread(void)
{
	memset(&__profinst_tls, 0, sizeof __profinst_tls);
	counter = 0;
}

/* ----- frontend.c */

static void test_frontend(void)
{
	struct pi_tls *t = &__profinst_tls;
	reset_thread();
	memset(objs, 0, sizeof objs);
	/* the first descriptor without bubbles is passed over */
	objs[1].call_bubble = 128;
	objs[1].ret_bubble = 64;
	objs[1].fe_window = 640;
	rt_frontend_init();
	EXPECT("frontend: call bubble", rt_fe_call, 128);
	EXPECT("frontend: return bubble", rt_fe_ret, 64);
	EXPECT("frontend: window", rt_fe_window, 640);

	/* the predictor idle: a bubble starts a window before the clock
	 * (1000 - 640) and ends long before it: nothing to wait for */
	t->clock = 1000;
	rt_fe_event(t, 128);
	EXPECT("frontend: bubble hidden, predictor", t->fe_pred, 360 + 128);
	EXPECT("frontend: bubble hidden, clock", t->clock, 1000);
	/* bubbles back to back: the predictor's work adds up, and once it
	 * passes the clock the clock waits: 488 + 5 * 128 = 1128 */
	for (int i = 0; i < 5; i++)
		rt_fe_event(t, 128);
	EXPECT("frontend: bubbles in a row, predictor", t->fe_pred, 1128);
	EXPECT("frontend: bubbles in a row, clock", t->clock, 1128);
	/* none: nothing moves */
	rt_fe_event(t, 0);
	EXPECT("frontend: no bubble", t->clock, 1128);
	/* the clock far ahead (a long block): the window starts from it */
	t->clock = 10000;
	rt_fe_event(t, 64);
	EXPECT("frontend: after a long block, predictor", t->fe_pred, 10000 - 640 + 64);
	EXPECT("frontend: after a long block, clock", t->clock, 10000);
}

/* ----- heap.c */

/* a block as glibc returns it: 16-aligned, not first of its page, its
 * chunk's size (with the in-use bit) in the word before */
static uint64_t block_of(uint64_t *page, unsigned i, uint64_t chunk)
{
	uint64_t *p = page + 2 + 2 * i;
	p[-1] = chunk | 1;
	return (uint64_t)p;
}

static void test_heap(void)
{
	struct pi_tls *t = &__profinst_tls;
	reset_thread();
	memset(objs, 0, sizeof objs);
	uint64_t c;
	EXPECT("heap: no costs, no answer", rt_heap_cost(t, PI_HEAP_MALLOC, 24, 0, &c), 0);
	/* each path its own cost, so that the sums below say which ran */
	for (int i = 0; i < PI_HC_COUNT; i++)
		objs[0].heap[i] = 1000u * (unsigned)(i + 1);
	objs[0].heap[PI_HC_COPY_KIB] = 2048;
	rt_heap_init();
	const uint32_t *h = objs[0].heap;
	EXPECT("heap: unknown op", rt_heap_cost(t, 9, 24, 0, &c), 0);

	uint64_t *page = rt_mmap(4096);
	uint64_t p = block_of(page, 0, 32);
	/* an empty shadow: a 24-byte request (a 32-byte chunk) comes from
	 * the top */
	rt_heap_cost(t, PI_HEAP_MALLOC, 24, 0, &c);
	EXPECT("heap: first malloc", c, h[PI_HC_MALLOC_TOP]);
	/* seven frees fill the cache of 32-byte chunks, the eighth goes to
	 * a fast bin */
	uint64_t sum = 0;
	for (int i = 0; i < 8; i++) {
		rt_heap_cost(t, PI_HEAP_FREE, p, 0, &c);
		sum += c;
	}
	EXPECT("heap: eight frees", sum, 7 * h[PI_HC_FREE_CACHED] + h[PI_HC_FREE_BIN]);
	/* seven mallocs from the cache, the eighth from the bin (one block
	 * there: nothing more to refill the cache with), the ninth from the
	 * top */
	sum = 0;
	for (int i = 0; i < 7; i++) {
		rt_heap_cost(t, PI_HEAP_MALLOC, 17, 0, &c);
		sum += c;
	}
	EXPECT("heap: seven mallocs", sum, 7 * h[PI_HC_MALLOC_CACHED]);
	rt_heap_cost(t, PI_HEAP_MALLOC, 24, 0, &c);
	EXPECT("heap: malloc from the bin", c, h[PI_HC_MALLOC_BIN]);
	rt_heap_cost(t, PI_HEAP_MALLOC, 24, 0, &c);
	EXPECT("heap: then from the top", c, h[PI_HC_MALLOC_TOP]);
	/* a larger chunk has a cache of its own: 200 bytes is a 208-byte
	 * chunk, a small (not fast) one */
	rt_heap_cost(t, PI_HEAP_MALLOC, 200, 0, &c);
	EXPECT("heap: small chunk from the top", c, h[PI_HC_MALLOC_TOP + 1]);
	/* past the cache's sizes (1040 bytes): large, from the top, and
	 * freed to the bins */
	rt_heap_cost(t, PI_HEAP_MALLOC, 4000, 0, &c);
	EXPECT("heap: large malloc", c, h[PI_HC_MALLOC_TOP + 2]);
	rt_heap_cost(t, PI_HEAP_FREE, block_of(page, 1, 4016), 0, &c);
	EXPECT("heap: large free", c, h[PI_HC_FREE_BIN + 2]);
	/* a pointer glibc would not return (the first of a page) is taken
	 * as a large block's, its size word unread */
	rt_heap_cost(t, PI_HEAP_FREE, (uint64_t)page, 0, &c);
	EXPECT("heap: page-aligned free", c, h[PI_HC_FREE_BIN + 2]);
	rt_heap_cost(t, PI_HEAP_FREE, 0, 0, &c);
	EXPECT("heap: free(NULL)", c, h[PI_HC_FREE_NULL]);
	/* realloc: NULL is a malloc (the 32-byte cache is empty: top), a
	 * shrink keeps its block, a growth from 32 to 208 bytes is a malloc
	 * (top, small), a free into the 32-byte cache, and 24 bytes copied */
	rt_heap_cost(t, PI_HEAP_REALLOC, 0, 20, &c);
	EXPECT("heap: realloc(NULL)", c, h[PI_HC_MALLOC_TOP]);
	rt_heap_cost(t, PI_HEAP_REALLOC, p, 10, &c);
	EXPECT("heap: realloc within its chunk", c, h[PI_HC_REALLOC_SAME]);
	rt_heap_cost(t, PI_HEAP_REALLOC, p, 200, &c);
	EXPECT("heap: realloc that moves", c,
	       h[PI_HC_MALLOC_TOP + 1] + h[PI_HC_FREE_CACHED] + 24 * 2048 / 1024);
	/* realloc(p, 0) frees: into the cache, which holds one block now */
	rt_heap_cost(t, PI_HEAP_REALLOC, p, 0, &c);
	EXPECT("heap: realloc(p, 0)", c, h[PI_HC_FREE_CACHED]);
	rt_heap_free(t);
	EXPECT("heap: freed", (uint64_t)t->heap, 0);
	rt_munmap(page, 4096);
}

/* ----- dcache.c */

/* far below any address loaded: no load is from the stack */
#define NO_STACK 0x7fff00000000ull
#define LINE(i) (0x10000000ull + 192ull * (i)) /* lines 3 apart: no stream */
#define WAIT(slot) ((uint32_t)(slot) << STUB_LOAD_WAIT_SHIFT)

static void dcache_setup(uint32_t mlp, uint32_t overlap)
{
	memset(objs, 0, sizeof objs);
	/* a first level of 2 lines, a second of 4, a third of 8; a load that
	 * misses the first costs 10, 40 or 200 by where it hits; no TLBs */
	objs[0].cache_lines[0] = 2;
	objs[0].cache_lines[1] = 4;
	objs[0].cache_lines[2] = 8;
	objs[0].cache_latency[0] = 10;
	objs[0].cache_latency[1] = 40;
	objs[0].cache_latency[2] = 200;
	objs[0].cache_window = 100000;
	objs[0].cache_mlp = mlp;
	for (int i = 0; i < 3; i++)
		objs[0].cache_overlap[i] = overlap << i;
	rt_dcache_init();
}

static void test_dcache(void)
{
	struct pi_tls *t = &__profinst_tls;
	int64_t ctr = counter_tpoff();

	/* a chase: each load waits for the one before (slot 1), each a
	 * miss to memory, 200: the first issues at 0, the fifth at 800.
	 * The clock, at 0, goes on until it settles; then it waits for the
	 * last to issue, all of it the block's memory wait */
	reset_thread();
	dcache_setup(12, 0);
	for (int i = 0; i < 5; i++)
		pi_rt_load(LINE(i), WAIT(1) | 1, NO_STACK, ctr);
	EXPECT("dcache: chase, clock before it settles", t->clock, 0);
	rt_dcache_settle(t);
	EXPECT("dcache: chase of 5 misses", t->clock, 800);
	EXPECT("dcache: chase's wait", counter, 800);
	/* the last two lines again, waiting: the first waits for the fifth
	 * miss (done at 1000); as first-level hits, they add nothing */
	pi_rt_load(LINE(4), WAIT(1) | 1, NO_STACK, ctr);
	pi_rt_load(LINE(3), WAIT(1) | 1, NO_STACK, ctr);
	rt_dcache_settle(t);
	EXPECT("dcache: first-level hits", t->clock, 1000);
	/* LINE(0) left the second level (it holds the last four) but not the
	 * third (40); but it is the last line of the stream its miss
	 * started, which the prefetchers hold: a load from the stack waiting
	 * for it issues at once */
	pi_rt_load(LINE(0), WAIT(1) | 1, NO_STACK, ctr);
	pi_rt_load(NO_STACK + 4096, WAIT(1) | 1, NO_STACK, ctr);
	rt_dcache_settle(t);
	EXPECT("dcache: a stream's line", t->clock, 1000);
	/* a fresh line, 50 lines on, is memory's 200; the stack's load waits
	 * for it, and costs nothing itself */
	pi_rt_load(LINE(0) + 64 * 50, WAIT(1) | 1, NO_STACK, ctr);
	pi_rt_load(NO_STACK + 4096, WAIT(1) | 1, NO_STACK, ctr);
	rt_dcache_settle(t);
	EXPECT("dcache: a miss, then the stack", t->clock, 1200);
	EXPECT("dcache: all the waits", counter, 1200);
	rt_dcache_free(t);

	/* three independent chases, interleaved (slots 1, 2, 3): their
	 * misses overlap, the second steps all issue at 200 */
	reset_thread();
	dcache_setup(12, 0);
	for (int step = 0; step < 2; step++)
		for (uint32_t s = 1; s <= 3; s++)
			pi_rt_load(LINE(10 * s + step), WAIT(s) | s, NO_STACK, ctr);
	rt_dcache_settle(t);
	EXPECT("dcache: three chases overlap", t->clock, 200);
	rt_dcache_free(t);

	/* a core that keeps two waiting loads in flight: the second waiting
	 * load of a window (the chase's third, issuing at 400) makes the
	 * clock wait at once */
	reset_thread();
	dcache_setup(2, 0);
	for (int i = 0; i < 3; i++)
		pi_rt_load(LINE(i), WAIT(1) | 1, NO_STACK, ctr);
	EXPECT("dcache: window full", t->clock, 400);
	rt_dcache_free(t);

	/* misses nothing waits for (a scatter's stores): memory's 200 over
	 * the 4 the core keeps in flight from memory, each */
	reset_thread();
	dcache_setup(12, 1);
	for (int i = 0; i < 8; i++)
		pi_rt_load(LINE(i), 0, NO_STACK, ctr);
	EXPECT("dcache: overlapped misses", t->clock, 8 * 200 / 4);
	EXPECT("dcache: overlapped misses' wait", counter, 8 * 200 / 4);
	rt_dcache_free(t);
	EXPECT("dcache: freed", (uint64_t)t->dcache, 0);
}

/* ----- branch.c */

#define PENALTY 1600 /* 25 cycles, in 1/64 */
/* a branch's address whose tag is not 0, the tables' entries' before
 * anything is allocated */
#define PC 0x401234

static uint64_t branch_word(uint64_t pc, int taken)
{
	return pc << STUB_BRANCH_SITE_SHIFT | (uint64_t)PENALTY << STUB_BRANCH_COST_SHIFT | (uint64_t)!!taken;
}

/* n outcomes of the branch at pc, outcome(i); the mispredictions among
 * those from index from on */
static uint64_t run_branch(uint64_t pc, int n, int from, int (*outcome)(int))
{
	uint64_t before = 0;
	for (int i = 0; i < n; i++) {
		if (i == from)
			before = counter;
		pi_rt_branch(branch_word(pc, outcome(i)), counter_tpoff());
	}
	return counter - before;
}

static int always(int i)
{
	return (void)i, 1;
}

static int never(int i)
{
	return (void)i, 0;
}

static int alternate(int i)
{
	return i & 1;
}

/* a loop of 5 iterations: taken 4 times, then not */
static int loop5(int i)
{
	return i % 5 != 4;
}

/* splitmix64's top bit: no pattern a history could hold */
static int random_bit(int i)
{
	uint64_t z = (uint64_t)i * 0x9e3779b97f4a7c15ull + 0x9e3779b97f4a7c15ull;
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return (int)((z ^ (z >> 31)) >> 63);
}

static void test_branch(void)
{
	struct pi_tls *t = &__profinst_tls;

	/* counters start weakly taken: a branch always taken is never
	 * mispredicted */
	reset_thread();
	EXPECT("branch: always taken", run_branch(PC, 1000, 0, always), 0);
	EXPECT("branch: always taken, clock", t->clock, 0);
	rt_branch_free(t);

	/* never taken: mispredicted once; the entry that misprediction
	 * allocates (the history stays all not-taken, so its index does not
	 * move) predicts the rest */
	reset_thread();
	EXPECT("branch: never taken", run_branch(PC, 1000, 0, never), 1);
	EXPECT("branch: never taken, clock", t->clock, PENALTY);
	rt_branch_free(t);

	/* patterns a global history holds are learnt: none of the last
	 * thousand outcomes of an alternation or a loop of five is
	 * mispredicted */
	reset_thread();
	EXPECT("branch: alternation, learnt", run_branch(PC, 4000, 3000, alternate), 0);
	rt_branch_free(t);
	reset_thread();
	EXPECT("branch: loop of five, learnt", run_branch(PC, 5000, 4000, loop5), 0);
	rt_branch_free(t);

	/* random bits are not: about half of them are mispredicted */
	reset_thread();
	uint64_t m = run_branch(PC, 20000, 0, random_bit);
	tap_case("branch: random outcomes, about half mispredicted");
	if (m < 8000 || m > 12000)
		tap_fail("%llu of 20000 random outcomes mispredicted", (unsigned long long)m);
	EXPECT("branch: random, clock", t->clock, m * PENALTY);
	rt_branch_free(t);

	/* a thread that ended records nothing */
	reset_thread();
	t->dead = RT_DEAD;
	EXPECT("branch: dead thread", run_branch(PC, 10, 0, never), 0);
	EXPECT("branch: dead thread's state", (uint64_t)t->branch, 0);
}

int main(void)
{
	test_frontend();
	test_heap();
	test_dcache();
	test_branch();
	return tap_done();
}
