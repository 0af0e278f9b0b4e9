/* SPDX-License-Identifier: MIT */
/*
 * What malloc, free and realloc cost, by the path each call takes through
 * glibc's allocator, for models that give those paths' costs
 * (pi_objdesc.heap; rewriter/model.c).  A fixed cost a call cannot be
 * right for both kinds of program: a free into the thread's cache of free
 * blocks (glibc's tcache, 7 blocks of each size up to 1032 bytes) costs
 * 8.8 cycles on Zen 5, a free once that cache is full 16 to 29,
 * and a program that frees many blocks of one size in a row (a garbage
 * collector's sweep: Lua) takes the slow path almost every time.
 *
 * So each thread keeps a shadow of its allocator's state: per size of
 * small block, how many free blocks its cache holds and how many more lie
 * in the bins.  A malloc takes from the cache, else from the bins (glibc
 * then refills the cache from the same bin), else from the top of the
 * heap; a free gives to the cache, else to the bins.  A realloc that grows
 * its block is a malloc, a copy and a free; one that shrinks it keeps it.
 * The shadow starts empty and sees only the program's calls through
 * instrumented code, so blocks freed by the C library itself, and
 * consolidation of neighbouring free blocks, are not followed.  It is
 * deterministic for a deterministic program, like the block costs.
 *
 * A free's block size comes from the word before the block, where glibc
 * keeps it (read only for a 16-aligned pointer, as every block glibc
 * returns is, and not for the first of a page).  Compiled
 * -mgeneral-regs-only with the hot runtime.
 */
#include <stddef.h>
#include <stdint.h>

#include "rt.h"

_Static_assert(PI_EXT_HEAP_MASK == 0x700, "stubs.S sends these externals to the C path by these bits");

#define HEAP_BINS 64      /* the tcache's sizes: 32 to 1040-byte chunks */
#define HEAP_CACHED 7     /* blocks the tcache keeps of each */
#define HEAP_FAST_MAX 128 /* the fast bins' largest chunk (global_max_fast) */
#define HEAP_SMALL_MAX (32 + 16 * (HEAP_BINS - 1))

struct rt_heap_state {
	uint8_t cached[HEAP_BINS];
	uint32_t binned[HEAP_BINS];
};

static uint64_t cost[PI_HC_COUNT];

void rt_heap_init(void)
{
	for (const struct pi_objdesc *d = rt_objs_begin(); d < rt_objs_end(); d++)
		if (d->heap[PI_HC_MALLOC_CACHED]) {
			for (int i = 0; i < PI_HC_COUNT; i++)
				cost[i] = d->heap[i];
			return;
		}
}

void rt_heap_free(struct pi_tls *t)
{
	t->heap = rt_drop_state(t->heap, sizeof(struct rt_heap_state));
}

/* the chunk glibc carves for a request of n bytes (request2size) */
static uint64_t chunk_for(uint64_t n)
{
	if (n > (1ull << 60))
		return 1ull << 60;
	uint64_t c = (n + 8 + 15) & ~15ull;
	return c < 32 ? 32 : c;
}

/* the chunk of the block at p (glibc's size word, flags masked) */
static uint64_t chunk_of(uint64_t p)
{
	/* not glibc's (it aligns to 16), or the first of a page, whose word
	 * before may be another allocator's unmapped guard: as a large block */
	if (p & 15 || !(p & 4095))
		return HEAP_SMALL_MAX + 16;
	return *(const uint64_t *)(p - 8) & ~7ull;
}

static unsigned size_class(uint64_t c)
{
	return c <= HEAP_FAST_MAX ? 0 : c <= HEAP_SMALL_MAX ? 1 : 2;
}

static uint64_t heap_malloc(struct rt_heap_state *s, uint64_t c)
{
	unsigned k = size_class(c);
	if (c > HEAP_SMALL_MAX)
		return cost[PI_HC_MALLOC_TOP + k];
	unsigned b = (unsigned)(c - 32) / 16 % HEAP_BINS;
	if (s->cached[b]) {
		s->cached[b]--;
		return cost[PI_HC_MALLOC_CACHED];
	}
	if (s->binned[b]) {
		/* one block from the bin, and as many as fit into the cache */
		s->binned[b]--;
		uint32_t move = s->binned[b] < HEAP_CACHED ? s->binned[b] : HEAP_CACHED;
		s->binned[b] -= move;
		s->cached[b] = (uint8_t)move;
		return cost[PI_HC_MALLOC_BIN + k];
	}
	return cost[PI_HC_MALLOC_TOP + k];
}

static uint64_t heap_free(struct rt_heap_state *s, uint64_t c)
{
	unsigned k = size_class(c);
	if (c > HEAP_SMALL_MAX || c < 32)
		return cost[PI_HC_FREE_BIN + 2];
	unsigned b = (unsigned)(c - 32) / 16 % HEAP_BINS;
	if (s->cached[b] < HEAP_CACHED) {
		s->cached[b]++;
		return cost[PI_HC_FREE_CACHED];
	}
	if (s->binned[b] < UINT32_MAX)
		s->binned[b]++;
	return cost[PI_HC_FREE_BIN + k];
}

static uint64_t heap_op(struct rt_heap_state *s, unsigned op, uint64_t arg0, uint64_t arg1)
{
	if (op == PI_HEAP_MALLOC)
		return heap_malloc(s, chunk_for(arg0));
	if (op == PI_HEAP_FREE)
		return arg0 ? heap_free(s, chunk_of(arg0)) : cost[PI_HC_FREE_NULL];
	/* realloc */
	if (!arg0)
		return heap_malloc(s, chunk_for(arg1));
	uint64_t old = chunk_of(arg0);
	if (!arg1)
		return heap_free(s, old); /* glibc's realloc(p, 0) frees */
	uint64_t want = chunk_for(arg1);
	if (want <= old)
		return cost[PI_HC_REALLOC_SAME];
	return heap_malloc(s, want) + heap_free(s, old) + (old - 8) * cost[PI_HC_COPY_KIB] / 1024;
}

bool rt_heap_cost(struct pi_tls *t, unsigned op, uint64_t arg0, uint64_t arg1, uint64_t *out)
{
	if (!cost[PI_HC_MALLOC_CACHED] || op < PI_HEAP_MALLOC || op > PI_HEAP_REALLOC)
		return false;
	if (!t->heap && !(t->heap = rt_mmap(sizeof(struct rt_heap_state))))
		return false; /* no memory: the model's fixed cost */
	*out = heap_op(t->heap, op, arg0, arg1);
	return true;
}
