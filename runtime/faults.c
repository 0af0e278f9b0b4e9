/* SPDX-License-Identifier: MIT */
/*
 * Page faults, charged to the function that takes them.  A minor fault is
 * the kernel's work, but on the virtual machines measured here it also
 * costs the faulting instruction microseconds of user time
 * (bench/probes/pagefault.c: 4.5-4.8 us, 16 000 cycles of a 3.5 GHz core);
 * a program that works through freshly allocated memory (bzip2 fills
 * 3.6 MB of new heap for every block it decompresses) spends a tenth of
 * its user time there, all of it on the stores that first touch each page,
 * and a block model cannot see any of it.  Which page is touched first is
 * the kernel's to know, so the runtime asks it: each thread opens a
 * software perf event that writes a record into a ring of its own at
 * every minor fault the thread takes in user mode, and the model's
 * page_fault cost (pi_objdesc.page_fault) is added to the clock for each.
 *
 * The stubs compare the ring's head with what the thread has seen at every
 * entry, exit and external call, a load and a compare, and go to the C
 * path when it moved, which drains it (rt_faults_take): so the faults
 * between two of these land in the function running between them, the
 * one that took them.  Faults in an external call the runtime times are
 * in its measured time already and are dropped at its return
 * (rt_faults_skip); faults in one the model costs are added to that cost.
 *
 * A record holds the faulting instruction's address.  The runtime's own
 * faults (its shadow stack growing, its calling-context tree's new nodes,
 * the stubs' first look at a line of a fresh table) are the profiler's,
 * not the program's, and are dropped: the ones in this module's code
 * (between __ehdr_start and etext) outside the instrumented functions'
 * pieces.
 *
 * The ring holds 2048 faults (8 MiB of fresh memory) between two looks;
 * past that the kernel drops records and counts them, and says how many in
 * a LOST record it writes before the next one that fits.  A look that
 * finds the ring full empties it and takes a fault of its own (a page
 * mapped, touched and unmapped: its record is the runtime's, dropped) so
 * that the LOST record comes now, and the faults it counts are charged
 * where they were taken; the runtime's faults among them are counted too.
 *
 * The event's descriptor is closed as soon as its ring is mapped: the
 * mapping keeps the event, which goes on counting into the ring, and the
 * program keeps every descriptor it has (a thread's would be one fewer
 * for it to open, a process with hundreds of threads short of hundreds).
 *
 * Without the cost (other models), or where the kernel refuses the event
 * (perf_event_paranoid 3, seccomp), the head the stubs read is a constant
 * and nothing changes.  The count is the kernel's, so not bit-for-bit
 * deterministic: the same program takes the same faults, unless memory
 * it reuses was given back to the kernel differently (glibc trims its
 * heap by thresholds of its own), or the kernel throttled the event (more
 * than perf_event_max_sample_rate / HZ faults in one tick: those go
 * uncounted).
 */
#include <linux/perf_event.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/syscall.h>

#include "rt.h"

_Static_assert(offsetof(struct perf_event_mmap_page, data_tail) ==
		       offsetof(struct perf_event_mmap_page, data_head) + 8,
	       "stubs.S writes data_tail next to data_head");

/* What the stubs read where no ring is open: a head and a tail that never
 * move. */
uint64_t rt_pf_none[2];
uint64_t rt_pf_cost; /* units a fault; 0: not charged */

#define RING_PAGES 8 /* data pages: 2048 records of 16 bytes */
#define RECORD 16  /* a sample's size: header and address */
#define PAGE 4096ull

/* this module's code, the runtime's with the program's (the linker's) */
extern const char __ehdr_start[] __attribute__((visibility("hidden")));
extern const char etext[] __attribute__((visibility("hidden")));

/* the instrumented functions' pieces, sorted: [start, end) pairs */
static uint64_t *pieces;
static uint64_t npieces;

static int cmp_piece(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

void rt_faults_init(void)
{
	for (const struct pi_objdesc *d = rt_objs_begin(); d < rt_objs_end(); d++)
		if (d->page_fault) {
			rt_pf_cost = d->page_fault;
			break;
		}
	if (!rt_pf_cost)
		return;
	uint64_t n = 0;
	for (const struct pi_funcrec *f = rt_funcs_begin(); f < rt_funcs_end(); f++)
		n += f->npieces;
	uint64_t *p = rt_mmap((n ? n : 1) * 2 * sizeof(uint64_t));
	if (!p) {
		rt_pf_cost = 0; /* the runtime's faults could not be told apart */
		return;
	}
	uint64_t k = 0;
	for (const struct pi_funcrec *f = rt_funcs_begin(); f < rt_funcs_end(); f++)
		for (uint32_t i = 0; i < f->npieces && i < PI_MAX_PIECES; i++) {
			p[2 * k] = pi_rec_addr(f, i);
			p[2 * k + 1] = pi_rec_addr(f, i) + f->size[i];
			k++;
		}
	qsort(p, k, 2 * sizeof(uint64_t), cmp_piece);
	pieces = p;
	npieces = k;
}

/* Is a fault at ip the program's?  Not if it is in this module's code
 * but in no instrumented piece: the runtime's own, or code left as it
 * was. */
static int programs(uint64_t ip)
{
	if (ip < (uint64_t)__ehdr_start || ip >= (uint64_t)etext)
		return 1; /* another module's: a shared library's, an external */
	uint64_t lo = 0, hi = npieces;
	while (lo < hi) { /* the first piece starting after ip */
		uint64_t mid = (lo + hi) / 2;
		if (pieces[2 * mid] <= ip)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo && ip < pieces[2 * (lo - 1) + 1];
}

void rt_faults_open(struct pi_tls *t)
{
	t->pf_head = rt_pf_none;
	t->pf_seen = 0;
	t->pf_page = NULL;
	if (!rt_pf_cost)
		return;
	struct perf_event_attr a = {0};
	a.type = PERF_TYPE_SOFTWARE;
	a.size = sizeof(a);
	a.config = PERF_COUNT_SW_PAGE_FAULTS_MIN;
	a.sample_period = 1;
	a.sample_type = PERF_SAMPLE_IP; /* a record is a fault, where it was */
	a.exclude_kernel = 1; /* the kernel's own faults (copying to the user) are in the system call's time */
	a.exclude_hv = 1;
	a.watermark = 1;      /* nobody waits on the ring: no wakeups */
	a.wakeup_watermark = (uint32_t)(RING_PAGES * PAGE);
	long fd = rt_syscall6(SYS_perf_event_open, (long)&a, 0, -1, -1, PERF_FLAG_FD_CLOEXEC, 0);
	if (fd < 0)
		return;
	uint64_t size = (1 + RING_PAGES) * PAGE;
	long p = rt_syscall6(SYS_mmap, 0, (long)size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	/* the mapping holds the event from here on: the descriptor goes back
	 * to the program */
	rt_syscall6(SYS_close, fd, 0, 0, 0, 0, 0);
	if (p < 0 && p > -4096)
		return;
	/* a child forked by a raw system call, which the runtime is not told
	 * of, keeps reading a mapped page (the parent's) rather than faulting */
	rt_syscall6(SYS_madvise, p, (long)size, MADV_DOFORK, 0, 0, 0);
	struct perf_event_mmap_page *pg = (struct perf_event_mmap_page *)p;
	t->pf_page = pg;
	t->pf_seen = __atomic_load_n(&pg->data_head, __ATOMIC_ACQUIRE);
	t->pf_head = (uint64_t *)&pg->data_head;
}

void rt_faults_close(struct pi_tls *t)
{
	void *pg = t->pf_page;
	t->pf_head = rt_pf_none;
	t->pf_seen = 0;
	t->pf_page = NULL;
	if (pg) /* the event ends with its last mapping (a forked child's is its own) */
		rt_munmap(pg, (1 + RING_PAGES) * PAGE);
}

/* the ring's data, and its size: from the page on kernels that say */
static const unsigned char *ring(const struct perf_event_mmap_page *pg, uint64_t *size)
{
	uint64_t off = pg->data_offset ? pg->data_offset : PAGE;
	*size = pg->data_size ? pg->data_size : RING_PAGES * PAGE;
	return (const unsigned char *)pg + off;
}

static uint64_t ring_u64(const unsigned char *data, uint64_t size, uint64_t pos)
{
	uint64_t v = 0;
	for (int i = 0; i < 8; i++)
		v |= (uint64_t)data[(pos + (uint64_t)i) % size] << (8 * i);
	return v;
}

/* Is the ring too full for the kernel to add a record?  Then it may
 * have dropped some. */
static int ring_full(const struct perf_event_mmap_page *pg, uint64_t seen)
{
	uint64_t size;
	ring(pg, &size);
	return __atomic_load_n(&pg->data_head, __ATOMIC_ACQUIRE) - seen > size - 2 * RECORD;
}

/* Read the records the kernel wrote since t last looked, and give their
 * room back: the faults they count, *own of them the runtime's. */
static uint64_t drain(struct pi_tls *t, uint64_t *own)
{
	struct perf_event_mmap_page *pg = t->pf_page;
	uint64_t head = __atomic_load_n(&pg->data_head, __ATOMIC_ACQUIRE);
	uint64_t tail = t->pf_seen, n = 0, size;
	const unsigned char *data = ring(pg, &size);
	while (tail < head) {
		const struct perf_event_header *h = (const void *)(data + tail % size);
		if (h->size < sizeof(*h))
			break; /* not a record: give up on the rest */
		if (h->type == PERF_RECORD_SAMPLE) {
			n++;
			*own += !programs(ring_u64(data, size, tail + sizeof(*h)));
		} else if (h->type == PERF_RECORD_LOST) {
			n += ring_u64(data, size, tail + sizeof(*h) + 8); /* after the event's id */
		}
		tail += h->size;
	}
	__atomic_store_n(&pg->data_tail, head, __ATOMIC_RELEASE);
	t->pf_seen = head;
	return n;
}

/* Take a fault, in the runtime's code: the kernel writes the LOST record
 * it owes before this fault's record. */
static void fault_once(void)
{
	volatile char *p = rt_mmap(PAGE);
	if (!p)
		return;
	*p = 1;
	rt_munmap((void *)p, PAGE);
}

/* The faults since t last looked, *own of them the runtime's; the ring
 * emptied. */
static uint64_t take_all(struct pi_tls *t, uint64_t *own)
{
	int full = ring_full(t->pf_page, t->pf_seen);
	uint64_t n = drain(t, own);
	if (full) {
		fault_once();
		n += drain(t, own);
	}
	return n;
}

uint64_t rt_faults_take(struct pi_tls *t)
{
	if (!t->pf_page)
		return 0;
	uint64_t own = 0, all = take_all(t, &own);
	uint64_t n = all > own ? all - own : 0;
	struct rt_thread *th = t->th;
	if (n && th) {
		/* the function running: the top frame's */
		struct rt_node *nd = th->depth ? th->stack[th->depth - 1].node : &th->root;
		nd->faults = nd->faults + n < nd->faults ? UINT32_MAX : nd->faults + (uint32_t)n;
	}
	return n * rt_pf_cost;
}

void rt_faults_skip(struct pi_tls *t)
{
	if (!t->pf_page)
		return;
	uint64_t own = 0;
	take_all(t, &own);
}
