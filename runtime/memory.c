/* SPDX-License-Identifier: MIT */
/*
 * The runtime's memory, all from mmap (never the program's malloc), in two
 * kinds:
 *
 * - What the profile is written from (thread records, calling-context
 *   nodes, an ended thread's counters) lives until the process ends.  It
 *   comes from one bump allocator for the whole process, lock-free, so
 *   that a hundred thousand short threads do not make as many mappings.
 *
 * - What only a running thread needs (its shadow stack, its entry cache,
 *   its count of running activations, its children's hash) goes back to a
 *   free list when the thread ends, emptied (MADV_DONTNEED: the pages go
 *   back to the kernel, the mapping stays), and the next thread takes it.
 */
#include <stddef.h>
#include <sys/mman.h>
#include <sys/syscall.h>

#include "rt.h"

static void *map_anon(uint64_t size, long flags)
{
	long p = rt_syscall6(SYS_mmap, 0, (long)size, PROT_READ | PROT_WRITE,
			     MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | flags, -1, 0);
	return p < 0 && p > -4096 ? NULL : (void *)p;
}

void *rt_mmap(uint64_t size)
{
	return map_anon(size, 0);
}

/* (a fault a page is an exception each, some microseconds in a virtual
 * machine: OpenSSL's entry table, 128 pages, took 0.3 ms of its start) */
void *rt_mmap_filled(uint64_t size)
{
	return map_anon(size, MAP_POPULATE);
}

/* (MADV_POPULATE_WRITE, Linux 5.14: where the kernel has it not, the
 * pages come a fault at a time as before) */
void rt_populate(void *p, uint64_t size)
{
	/* (from the page p is in: the kernel takes whole pages, and one
	 * made already stays as it is) */
	uint64_t at = (uint64_t)p & ~4095ull;
	rt_syscall6(SYS_madvise, (long)at, (long)((uint64_t)p + size - at), 23 /* MADV_POPULATE_WRITE */, 0, 0,
		    0);
}

void rt_munmap(void *p, uint64_t size)
{
	rt_syscall6(SYS_munmap, (long)p, (long)size, 0, 0, 0, 0);
}

/* ----- Kept until the end */

struct chunk {
	uint64_t used; /* bytes handed out, header included; may pass size */
	uint64_t size;
};

#define CHUNK_SIZE (4ull << 20)

static struct chunk *cur_chunk;

/* Chunks on a boundary of the huge pages, which the kernel may then back
 * with two of them (MADV_HUGEPAGE: where transparent huge pages are
 * "madvise", as Debian has them): the tree's nodes, made one by one as
 * the program first reaches each context, and the tree converted at exit
 * fill them a page at a time otherwise, a fault each (OpenSSL's driver:
 * 2 000 of its 3 100 faults, a few microseconds each in a virtual
 * machine).  The first chunk's first half keeps small pages: a small
 * program, which needs no more, would pay a huge page's clearing and its
 * memory (OpenSSL's one-round run needs more: its faults 2 019 → 1 641). */
#define HUGE (2ull << 20)

static struct chunk *chunk_map(bool first)
{
	char *p = rt_mmap(CHUNK_SIZE + HUGE);
	if (!p)
		return rt_mmap(CHUNK_SIZE);
	char *at = (char *)(((uint64_t)p + HUGE - 1) & ~(HUGE - 1));
	if (at > p)
		rt_munmap(p, (uint64_t)(at - p));
	if (at + CHUNK_SIZE < p + CHUNK_SIZE + HUGE)
		rt_munmap(at + CHUNK_SIZE, (uint64_t)(p + CHUNK_SIZE + HUGE - (at + CHUNK_SIZE)));
	uint64_t small = first ? HUGE : 0;
	rt_syscall6(SYS_madvise, (long)(at + small), (long)(CHUNK_SIZE - small), MADV_HUGEPAGE, 0, 0, 0);
	return (struct chunk *)at;
}

void *rt_alloc_keep(uint64_t size)
{
	size = (size + 15) & ~15ull;
	if (size > CHUNK_SIZE / 4)
		return rt_mmap(size); /* large: a mapping of its own */
	for (;;) {
		struct chunk *c = __atomic_load_n(&cur_chunk, __ATOMIC_ACQUIRE);
		if (c) {
			uint64_t at = __atomic_fetch_add(&c->used, size, __ATOMIC_RELAXED);
			if (at + size <= c->size)
				return (char *)c + at; /* zero: fresh mmap memory */
		}
		/* full (or none yet): a new chunk, unless another thread (or a
		 * signal handler) put one in meanwhile */
		struct chunk *n = chunk_map(!c);
		if (!n)
			return NULL;
		n->size = CHUNK_SIZE;
		n->used = sizeof(*n) + size;
		if (__atomic_compare_exchange_n(&cur_chunk, &c, n, 0, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE))
			return (char *)n + sizeof(*n);
		rt_munmap(n, CHUNK_SIZE);
	}
}

/* Up to max bytes, at least min, of the chunk being handed out, leaving
 * reserve bytes there for the small ones; else max bytes as
 * rt_alloc_keep gives them.  *got: how many.  (A thread's nodes come in
 * pieces: the first chunk's last piece, sized to what it has left, keeps
 * a program whose nodes fit there from clearing a second chunk's huge
 * page.) */
void *rt_alloc_keep_upto(uint64_t min, uint64_t max, uint64_t reserve, uint64_t *got)
{
	min = (min + 15) & ~15ull;
	max = (max + 15) & ~15ull;
	struct chunk *c = __atomic_load_n(&cur_chunk, __ATOMIC_ACQUIRE);
	if (c && max <= CHUNK_SIZE / 4) {
		uint64_t used = __atomic_load_n(&c->used, __ATOMIC_RELAXED);
		while (used + reserve + min <= c->size) {
			uint64_t take = (c->size - reserve - used) & ~15ull;
			if (take > max)
				take = max;
			if (__atomic_compare_exchange_n(&c->used, &used, used + take, false, __ATOMIC_RELAXED,
							__ATOMIC_RELAXED)) {
				*got = take;
				return (char *)c + used;
			}
		}
	}
	*got = max;
	return rt_alloc_keep(max);
}

/* ----- Reused from thread to thread */

static struct rt_kit *free_kits;
static int kits_lock;

void rt_kit_put(struct rt_kit *k)
{
	/* emptied now, so the next thread finds zeros; the mappings stay */
	rt_syscall6(SYS_madvise, (long)k->stack, (long)(k->cap * sizeof(struct rt_frame)), MADV_DONTNEED, 0, 0, 0);
	if (k->cache)
		rt_syscall6(SYS_madvise, (long)k->cache, (long)(sizeof(*k->cache) << RT_CACHE_BITS), MADV_DONTNEED,
			    0, 0, 0);
	rt_syscall6(SYS_madvise, (long)k->fn_active, (long)k->fn_active_size, MADV_DONTNEED, 0, 0, 0);
	if (k->hash)
		rt_syscall6(SYS_madvise, (long)k->hash, (long)((k->hmask + 1) * sizeof(*k->hash)), MADV_DONTNEED,
			    0, 0, 0);
	/* a lock only tried, never waited for: a signal handler on a thread
	 * holding it must not wait forever; the kit is then unmapped */
	if (__atomic_exchange_n(&kits_lock, 1, __ATOMIC_ACQUIRE)) {
		rt_kit_free(k);
		return;
	}
	k->next = free_kits;
	free_kits = k;
	__atomic_store_n(&kits_lock, 0, __ATOMIC_RELEASE);
}

void rt_kit_free(struct rt_kit *k)
{
	rt_munmap(k->stack, k->cap * sizeof(struct rt_frame));
	if (k->cache)
		rt_munmap(k->cache, sizeof(*k->cache) << RT_CACHE_BITS);
	rt_munmap(k->fn_active, k->fn_active_size);
	if (k->hash)
		rt_munmap(k->hash, (k->hmask + 1) * sizeof(*k->hash));
	rt_munmap(k, sizeof(*k));
}

/* Frames for a start: a recursion deeper than this grows the stack
 * (rt_grow_stack), so a thread reserves little address space. */
#define FIRST_FRAMES 1024

struct rt_kit *rt_kit_get(void)
{
	struct rt_kit *k = NULL;
	if (!__atomic_exchange_n(&kits_lock, 1, __ATOMIC_ACQUIRE)) {
		k = free_kits;
		if (k)
			free_kits = k->next;
		__atomic_store_n(&kits_lock, 0, __ATOMIC_RELEASE);
	}
	if (k) {
		k->next = NULL;
		return k;
	}
	k = rt_mmap(sizeof(*k));
	if (!k)
		return NULL;
	uint64_t nf = (uint64_t)(rt_funcs_end() - rt_funcs_begin());
	k->fn_active_size = (nf ? nf : 1) * sizeof(uint32_t);
	k->cap = FIRST_FRAMES;
	k->stack = rt_mmap(k->cap * sizeof(struct rt_frame));
	k->fn_active = rt_mmap(k->fn_active_size);
	k->cache = rt_mmap(sizeof(*k->cache) << RT_CACHE_BITS); /* NULL: no fast path */
	if (!k->stack || !k->fn_active) {
		if (k->stack)
			rt_munmap(k->stack, k->cap * sizeof(struct rt_frame));
		if (k->fn_active)
			rt_munmap(k->fn_active, k->fn_active_size);
		if (k->cache)
			rt_munmap(k->cache, sizeof(*k->cache) << RT_CACHE_BITS);
		rt_munmap(k, sizeof(*k));
		return NULL;
	}
	return k;
}

int rt_grow_stack(struct rt_thread *th)
{
	uint64_t old = th->cap * sizeof(struct rt_frame);
	long p = rt_syscall6(SYS_mremap, (long)th->stack, (long)old, (long)(2 * old), MREMAP_MAYMOVE, 0, 0);
	if (p < 0 && p > -4096)
		return -1;
	/* (inside the runtime: the stubs read the stack's address and room
	 * afresh on every call, and nothing else reads them meanwhile) */
	th->stack = (struct rt_frame *)p;
	th->cap *= 2;
	return 0;
}
