/* SPDX-License-Identifier: MIT */
/*
 * Runtime internals.  The runtime lives inside someone else's program: it
 * never exits, never calls malloc on the hot path (memory comes from mmap
 * arenas), preserves errno, and never profiles itself.
 */
#ifndef PI_RT_H
#define PI_RT_H

#include <errno.h>
#include <stdbool.h>
#include <stdint.h>

#include "format.h"

/* Calling-context tree node.  A node with alias != NULL is a recursive call
 * edge: activations through it are charged to the ancestor alias names. */
struct rt_node {
	const struct pi_funcrec *fn;
	uint64_t ra;
	struct rt_node *parent, *first_child, *next_sibling, *last_hit;
	struct rt_node *alias;
	uint64_t calls, rec_calls, self, incl, min_self, max_self;
	uint32_t unused;
	uint32_t index;   /* when written */
};

struct rt_frame {
	struct rt_node *node;  /* the node charged */
	struct rt_node *alias; /* the recursive edge taken, or NULL */
	uint64_t sp;           /* the function's %rsp at entry (its return address slot) */
	uint64_t entry_clock;
	uint64_t child;        /* cycles of its children */
	uint64_t tail_target;  /* where it tail-jumped, if tail */
	uint64_t tail;
};

/* The entry fast path's cache of calling-context children: direct-mapped
 * by (parent node, function, return address), see rt_cache_index. */
#define RT_CACHE_BITS 16

struct rt_thread {
	struct rt_frame *stack;
	uint64_t depth, cap;
	struct rt_node **cache; /* [1 << RT_CACHE_BITS] */
	/* activations running, per function (index of its record among
	 * rt_funcs_begin()..end()): a frame adds its time to its node's incl
	 * only if it is the function's only one, so that a function is never
	 * its own descendant even when recursion comes back by another path */
	uint32_t *fn_active;
	struct rt_node root;
	char *arena, *arena_end;
	/* children of every node, by (parent, fn, return address) */
	struct rt_node **hash;
	uint64_t hmask, hcount;
	struct rt_thread *next;
	uint64_t tp;          /* thread pointer, to reach its TLS counters */
	uint64_t *saved_counts; /* copy of the counters, once the thread ended */
	uint64_t final_clock;
	uint32_t tid;
	uint32_t index;
	int finished;
};

/* Same computation as the entry fast path in stubs.S. */
static inline uint64_t rt_cache_index(const struct rt_node *parent, const void *fn, uint64_t ra)
{
	uint64_t h = (ra ^ ((uint64_t)parent >> 3) ^ (uint64_t)fn) * 0x9e3779b97f4a7c15ull;
	return h >> (64 - RT_CACHE_BITS);
}

/* The thread-local block the stubs address (stub_abi.h). */
struct pi_tls {
	uint64_t clock;
	uint64_t repsave;
	struct rt_thread *th;
	uint32_t busy;
	uint32_t dead;
};

extern __thread struct pi_tls __profinst_tls;

/* raw system calls: no libc on the hot path, no errno */
long rt_syscall6(long nr, long a, long b, long c, long d, long e, long f);
void *rt_mmap(uint64_t size);
void rt_munmap(void *p, uint64_t size);

struct rt_thread *rt_thread_init(struct pi_tls *t);
void rt_close_all(struct rt_thread *th, uint64_t now);
void rt_thread_finish(struct pi_tls *t);

extern struct rt_thread *rt_threads;

/* objects and function records, from the linker's __start_/__stop_ */
const struct pi_objdesc *rt_objs_begin(void);
const struct pi_objdesc *rt_objs_end(void);
const struct pi_funcrec *rt_funcs_begin(void);
const struct pi_funcrec *rt_funcs_end(void);

void rt_write_profile(int signal);
void rt_profile_reset(void);          /* a forked child may write again */
void rt_process_init(void);
int rt_in_profiled_process(void);
void rt_reset_for_child(struct pi_tls *t);
struct pi_tls *rt_tls_of(const struct rt_thread *th); /* another thread's block */

/* Is addr the entry of an instrumented function? (sorted table built at
 * start-up; false before it exists) */
int rt_is_entry(uint64_t addr);
void rt_entries_init(void);

#endif
