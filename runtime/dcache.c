/* SPDX-License-Identifier: MIT */
/*
 * The data caches --cache-sim simulates, one hierarchy per thread, and the
 * waits of loads for loads (rewriter/chase.h says which loads, and why
 * only those).  Each followed load reports its address here (stub_abi.h,
 * Load).  A load that waits for a class of loads issues when the last of
 * them is done, and is done itself when its level's latency has passed:
 *     issue = max(clock, ready[wait])
 *     ready[done] = max(ready[done], issue + latency[level])
 * except that a first-level hit is done at once: the block costs hold its
 * latency (a chain of them within a block is costed there).
 *
 * The clock does not wait for such a load at once: an out-of-order core
 * goes on with the work after it, independent loads included, until its
 * window is full.  So a window opens at the first load that waits
 * (pi_tls.dc_ready holds when the last load waiting in it issues), and
 * the clock waits for them all (clock = dc_ready) when the clock has run
 * the model's window ahead of its opening, or when the model's number of
 * loads have waited in it, or before the function returns (the exit
 * helper: a function's misses are its own).  A pointer chase still costs
 * a miss a step, each load issuing when the one before is done; a gather
 * through a streamed index, whose steps are independent, overlaps its
 * misses, twelve at a time on Zen 5 (bench/probes/gather.c); the same
 * chase through the first level costs what its blocks cost, and a miss
 * that other work covers costs nothing.
 *
 * A miss that continues a stream of misses, a line up or down from the
 * last (or the last again), costs nothing either: the core's prefetchers
 * have fetched it (64 streams; a miss that continues none starts one, in
 * place of the oldest one that is not going on, so that random misses do
 * not push out a stream that is).  A stream's lines come in as the least
 * recent of each level, so that a stream through more than a level holds
 * does not flush it.  A load from the stack (within
 * 1 MiB above %rsp: a local whose address was passed down) hits the first
 * level, which the program's own stack accesses, not simulated, keep it
 * in.
 *
 * The caches are fully associative with LRU replacement, each level with
 * the capacity of the model's (pi_objdesc.cache_lines): a real level is 12
 * or 16-way, so conflict misses are left out, but the simulation sees no
 * address bits beyond the line, and so gives the same misses wherever ASLR
 * puts the heap: profiles stay deterministic.  It sees only the followed
 * loads, not the program's other accesses, so a line it has not seen costs
 * memory even where the program's own stores have just brought it in (a
 * rule with no exception is the simplest; what the hardware does there is
 * not simple: bench/probes/bzip2.c, whose decompression follows a chase
 * through a table the decompression has just filled, takes 58 cycles a
 * byte when decompressions follow each other and 99 after a compression;
 * the simulation, with its TLBs, gives both 57).  A load that misses a
 * level is filled into it and into the levels above.
 *
 * The data TLBs are two more such levels, of pages (4 KiB: the C library
 * does not ask for larger ones): a load that misses the first waits what
 * the model says a second-level hit costs, and a page walk on top if it
 * misses that too, whichever level of the caches its line is in, unless
 * the line continues a stream.  Once a structure spans more pages than
 * the first level holds (96 on Zen 5), most of its loads pay that.
 *
 * Compiled -mgeneral-regs-only with the hot runtime; it runs between the
 * program's instructions, with its flags saved by the assembly half.  The
 * state is mapped at a thread's first followed load and never grows.
 */
#include <stddef.h>
#include <stdint.h>

#include "rt.h"
#include "stub_abi.h"

#define DC_LEVELS 3 /* the caches, by line */
#define DC_TLBS 2   /* then the TLBs, by page */
#define DC_ALL (DC_LEVELS + DC_TLBS)
#define DC_SLOTS (1u << 16)
#define DC_NONE 0xffffffffu
#define DC_STREAMS 64
/* misses after which a stream not continued is not going on any more */
#define DC_STREAM_IDLE (4 * DC_STREAMS)
/* how far above the program's %rsp a load is from its stack */
#define DC_STACK_HOT (1u << 20)

/* each level's capacity (lines, then pages), and what a load that misses
 * the level before it and hits it costs (a TLB: what missing it adds) */
uint32_t rt_dc_cap[DC_ALL] __attribute__((visibility("hidden")));
uint64_t rt_dc_latency[DC_ALL] __attribute__((visibility("hidden")));
/* the out-of-order window: how far the clock runs ahead of a load waiting
 * for a miss, and how many such loads can wait at once */
static uint64_t dc_window;
static uint32_t dc_mlp;
/* how many misses nothing waits for the core keeps in flight, by where
 * they hit (the second level, the third, memory; 0: they cost nothing) */
static uint32_t dc_overlap[DC_LEVELS];

struct dc_node {
	uint64_t line;
	uint32_t prev, next; /* a ring, most recent first */
	uint32_t hnext;      /* the next node of its bucket, or DC_NONE */
	uint32_t pad;
};

struct dc_level {
	uint32_t cap, n, head; /* head: the most recent node, DC_NONE if none */
	uint32_t hbits;
	uint32_t *bucket;      /* [1 << hbits]: first node, DC_NONE if none */
	struct dc_node *node;  /* [cap] */
};

struct rt_dcache {
	uint64_t size; /* of the mapping */
	uint32_t busy; /* an access is being simulated: a signal handler's
			  loads that land in it are not (the lists are not
			  safe to walk half-updated) */
	struct dc_level lv[DC_ALL];
	uint64_t ready[DC_SLOTS]; /* clock at which a class's last load is done */
	uint64_t stream[DC_STREAMS]; /* the last line of each stream followed */
	uint64_t stream_used[DC_STREAMS]; /* when each was last continued or
					     started (a count of misses) */
	uint8_t stream_on[DC_STREAMS];    /* whether it has been continued */
	uint64_t misses;
	/* the window open (pi_tls.dc_ready not 0): the clock at its first
	 * waiting load, and how many have waited in it */
	uint64_t win_start;
	uint32_t win_loads;
};

void rt_dcache_init(void)
{
	for (const struct pi_objdesc *d = rt_objs_begin(); d < rt_objs_end(); d++) {
		if (d->cache_lines[0]) {
			for (int i = 0; i < DC_LEVELS; i++) {
				rt_dc_cap[i] = d->cache_lines[i];
				rt_dc_latency[i] = d->cache_latency[i];
			}
			for (int i = 0; i < DC_TLBS; i++) {
				rt_dc_cap[DC_LEVELS + i] = d->tlb_entries[i];
				rt_dc_latency[DC_LEVELS + i] = d->tlb_latency[i];
			}
			dc_window = d->cache_window;
			dc_mlp = d->cache_mlp;
			for (int i = 0; i < DC_LEVELS; i++)
				dc_overlap[i] = d->cache_overlap[i];
			break;
		}
	}
}

static uint32_t hash_bits(uint32_t cap)
{
	uint32_t b = 1;
	while ((1u << b) < 2 * cap)
		b++;
	return b;
}

static struct rt_dcache *state_new(void)
{
	uint64_t size = (sizeof(struct rt_dcache) + 15) & ~15ull;
	for (int i = 0; i < DC_ALL; i++)
		size += (uint64_t)rt_dc_cap[i] * sizeof(struct dc_node) +
			((4ull << hash_bits(rt_dc_cap[i])) + 15) / 16 * 16;
	struct rt_dcache *s = rt_mmap(size);
	if (!s)
		return NULL;
	s->size = size;
	char *p = (char *)s + ((sizeof(struct rt_dcache) + 15) & ~15ull);
	for (int i = 0; i < DC_ALL; i++) {
		struct dc_level *l = &s->lv[i];
		l->cap = rt_dc_cap[i];
		l->head = DC_NONE;
		l->hbits = hash_bits(l->cap);
		l->node = (struct dc_node *)p;
		p += (uint64_t)l->cap * sizeof(struct dc_node);
		l->bucket = (uint32_t *)p;
		p += ((4ull << l->hbits) + 15) / 16 * 16;
		for (uint64_t b = 0; b < (1ull << l->hbits); b++)
			l->bucket[b] = DC_NONE;
	}
	return s;
}

void rt_dcache_free(struct pi_tls *t)
{
	if (t->dcache)
		t->dcache = rt_drop_state(t->dcache, t->dcache->size);
}

static uint32_t bucket_of(const struct dc_level *l, uint64_t line)
{
	return (uint32_t)((line * 0x9e3779b97f4a7c15ull) >> (64 - l->hbits));
}

static void unlink_node(struct dc_level *l, uint32_t x)
{
	struct dc_node *n = &l->node[x];
	if (n->next == x) {
		l->head = DC_NONE;
		return;
	}
	l->node[n->prev].next = n->next;
	l->node[n->next].prev = n->prev;
	if (l->head == x)
		l->head = n->next;
}

static void push_front(struct dc_level *l, uint32_t x)
{
	struct dc_node *n = &l->node[x];
	if (l->head == DC_NONE) {
		n->prev = n->next = x;
	} else {
		struct dc_node *h = &l->node[l->head];
		n->next = l->head;
		n->prev = h->prev;
		l->node[h->prev].next = x;
		h->prev = x;
	}
	l->head = x;
}

/* Whether line (a line, or a page) is in l; if it is, it is the most
 * recent now. */
static int level_hit(struct dc_level *l, uint64_t line)
{
	for (uint32_t x = l->bucket[bucket_of(l, line)]; x != DC_NONE; x = l->node[x].hnext) {
		if (l->node[x].line == line) {
			if (l->head != x) {
				unlink_node(l, x);
				push_front(l, x);
			}
			return 1;
		}
	}
	return 0;
}

/* Put line, which is not in l, into l (the least recent evicted if l is
 * full), as its least recent if last, else as its most recent. */
static void level_fill(struct dc_level *l, uint64_t line, int last)
{
	uint32_t *b = &l->bucket[bucket_of(l, line)];
	uint32_t x;
	if (l->n < l->cap) {
		x = l->n++;
	} else {
		x = l->node[l->head].prev; /* the least recent */
		unlink_node(l, x);
		uint32_t *p = &l->bucket[bucket_of(l, l->node[x].line)];
		while (*p != x && *p != DC_NONE)
			p = &l->node[*p].hnext;
		if (*p == x)
			*p = l->node[x].hnext;
	}
	l->node[x].line = line;
	l->node[x].hnext = *b;
	*b = x;
	push_front(l, x);
	if (last)
		l->head = l->node[x].next;
}

/* The stream whose next line, one up or down from its last, line is (the
 * core's prefetchers fetch such lines before they are loaded; *again:
 * line is that stream's last line itself), or if none, -1 and in *victim
 * the stream a new one replaces: the oldest that is not going on (never
 * continued, or not for DC_STREAM_IDLE misses), else the oldest, so that
 * random misses do not push out a stream that is (a gather's streamed
 * index). */
static int stream_of(const struct rt_dcache *s, uint64_t line, int *again, int *victim)
{
	int v = 0, vlive = 1;
	for (int i = 0; i < DC_STREAMS; i++) {
		if (s->stream[i] + 1 == line || s->stream[i] == line + 1 || s->stream[i] == line) {
			*again = s->stream[i] == line;
			return i;
		}
		int live = s->stream_on[i] && s->misses - s->stream_used[i] < DC_STREAM_IDLE;
		if (i == 0 || live < vlive || (live == vlive && s->stream_used[i] < s->stream_used[v])) {
			v = i;
			vlive = live;
		}
	}
	*victim = v;
	return -1;
}

/* Called by __profinst_load (stubs.S) with the address, the word, an
 * address just below the program's stack, and the TLS offset of the
 * counter of its block's memory waits. */
void pi_rt_load(uint64_t addr, uint32_t word, uint64_t sp, int64_t counter)
{
	struct pi_tls *t = &__profinst_tls;
	if ((t->dead & RT_HALTED) || !rt_dc_cap[0])
		return;
	struct rt_dcache *s = t->dcache;
	if (!s) {
		s = state_new();
		if (!s)
			return; /* no memory: the run goes on without the simulation */
		s = t->dcache = rt_keep_state(t->dcache, s, s->size);
	}
	if (s->busy)
		return;
	s->busy = 1;
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	uint32_t wait = word >> STUB_LOAD_WAIT_SHIFT & STUB_LOAD_SLOT_MASK;
	uint32_t done = word & STUB_LOAD_SLOT_MASK;
	/* all done, or the window is full: the clock waits for them */
	if (t->dc_ready && (t->clock >= t->dc_ready || t->clock - s->win_start >= dc_window))
		rt_dcache_settle(t);
	uint64_t issue = t->clock; /* when this load's address is known */
	if (wait && s->ready[wait] > t->clock) {
		issue = s->ready[wait];
		if (!t->dc_ready) {
			s->win_start = t->clock;
			s->win_loads = 0;
		}
		if (issue > t->dc_ready) {
			t->dc_wait = rt_counter(counter); /* what the clock waits for last */
			t->dc_ready = issue;
		}
		if (++s->win_loads >= dc_mlp)
			rt_dcache_settle(t); /* as many in flight as the core keeps */
	}
	uint64_t line = addr >> 6, lat = 0; /* latency beyond the blocks' */
	if (addr - sp < DC_STACK_HOT)
		goto hit; /* the stack: hot, through accesses not simulated */
	/* a stream's next line, and its next page's translation, are
	 * fetched before the load needs them; the lines a stream brings in
	 * come in as the least recent, so that a stream through more than a
	 * level holds does not flush it (bench/probes/gather.c: a gather
	 * through 256 KiB by a streamed index keeps its lines) */
	int st = -1, again = 0, victim = 0, missed = 0;
	for (int i = 0; i < DC_LEVELS; i++) {
		if (level_hit(&s->lv[i], line))
			break;
		if (i == 0)
			st = stream_of(s, line, &again, &victim);
		level_fill(&s->lv[i], line, st >= 0);
		lat = rt_dc_latency[i];
		missed = i + 1;
	}
	int streamed = 0;
	if (lat && st >= 0) {
		if (!again) { /* the stream goes on */
			s->stream[st] = line;
			s->stream_used[st] = ++s->misses;
			s->stream_on[st] = 1;
		}
		streamed = 1;
		lat = 0;
	} else if (lat) { /* a miss starts a stream */
		s->stream[victim] = line;
		s->stream_used[victim] = ++s->misses;
		s->stream_on[victim] = 0;
	}
	for (int i = DC_LEVELS; i < DC_ALL && rt_dc_cap[i]; i++) {
		if (level_hit(&s->lv[i], addr >> 12))
			break;
		level_fill(&s->lv[i], addr >> 12, 0);
		if (!streamed)
			lat += rt_dc_latency[i];
	}
	/* a miss that no followed load waits for still holds its place in
	 * the reorder buffer (a load, a read-modify-write) or the store
	 * queue (a store) until its line comes: the core keeps so many such
	 * misses in flight, and the program goes at that rate (bench/probes/
	 * scatter.c: a histogram or a scatter through a table); a TLB miss
	 * alone, its line in the first level, overlaps as a second-level
	 * hit does */
	uint32_t ov = dc_overlap[missed ? missed - 1 : 0];
	if (!done && lat && ov) {
		t->clock += lat / ov;
		*rt_counter(counter) += lat / ov;
	}
hit:
	if (done && issue + lat > s->ready[done])
		s->ready[done] = issue + lat;
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	s->busy = 0;
}
