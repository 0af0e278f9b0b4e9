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
 * past that the kernel drops records, and the count comes from reading
 * the event instead (a system call, on a descriptor the runtime keeps
 * high, and checks is still its own); the runtime's faults among the
 * dropped records are counted then.
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
#include <fcntl.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/syscall.h>

#include "rt.h"
#include "rt_layout.h"

_Static_assert(offsetof(struct perf_event_mmap_page, data_tail) ==
		       offsetof(struct perf_event_mmap_page, data_head) + 8,
	       "stubs.S writes data_tail next to data_head");

/* What the stubs read where no ring is open: a head and a tail that never
 * move. */
uint64_t rt_pf_none[2];
uint64_t rt_pf_cost; /* units a fault; 0: not charged */

#define RING_PAGES 8 /* data pages: 2048 records of 16 bytes */
#define RECORD 16  /* a sample's size: header and address */
#define HIGH_FD 900 /* where the event's descriptor is kept */
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
			p[2 * k] = f->addr[i];
			p[2 * k + 1] = f->addr[i] + f->size[i];
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
	t->pf_fd = -1;
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
	if (p < 0 && p > -4096) {
		rt_syscall6(SYS_close, fd, 0, 0, 0, 0, 0);
		return;
	}
	/* the descriptor, out of the program's way: the lowest numbers are
	 * the ones it gets next */
	long hi = rt_syscall6(SYS_fcntl, fd, F_DUPFD_CLOEXEC, HIGH_FD, 0, 0, 0);
	if (hi >= 0) {
		rt_syscall6(SYS_close, fd, 0, 0, 0, 0, 0);
		fd = hi;
	}
	uint64_t id = 0;
	uint64_t count = 0;
	if (rt_syscall6(SYS_ioctl, fd, PERF_EVENT_IOC_ID, (long)&id, 0, 0, 0) < 0 ||
	    rt_syscall6(SYS_read, fd, (long)&count, sizeof(count), 0, 0, 0) != sizeof(count)) {
		rt_syscall6(SYS_close, fd, 0, 0, 0, 0, 0);
		fd = -1; /* the ring alone: a burst past its size is undercounted */
	}
	t->pf_fd = fd;
	t->pf_id = id;
	t->pf_count = count;
	/* a child forked by a raw system call, which the runtime is not told
	 * of, keeps reading a mapped page (the parent's) rather than faulting */
	rt_syscall6(SYS_madvise, p, (long)size, MADV_DOFORK, 0, 0, 0);
	struct perf_event_mmap_page *pg = (struct perf_event_mmap_page *)p;
	t->pf_page = pg;
	t->pf_seen = __atomic_load_n(&pg->data_head, __ATOMIC_ACQUIRE);
	t->pf_head = (uint64_t *)&pg->data_head;
}

/* Is t's descriptor still its event's?  The program may have closed it,
 * and reused its number. */
static int still_ours(const struct pi_tls *t)
{
	uint64_t id = 0;
	return t->pf_fd >= 0 && rt_syscall6(SYS_ioctl, t->pf_fd, PERF_EVENT_IOC_ID, (long)&id, 0, 0, 0) == 0 &&
	       id == t->pf_id;
}

/* the faults the kernel has counted, from the event's descriptor; false if
 * it is not the event's any more */
static int read_count(const struct pi_tls *t, uint64_t *count)
{
	return still_ours(t) && rt_syscall6(SYS_read, t->pf_fd, (long)count, sizeof(*count), 0, 0, 0) == 8;
}

void rt_faults_close(struct pi_tls *t)
{
	void *pg = t->pf_page;
	/* a forked child's copy of the descriptor is its own to close */
	if (still_ours(t))
		rt_syscall6(SYS_close, t->pf_fd, 0, 0, 0, 0, 0);
	t->pf_head = rt_pf_none;
	t->pf_seen = 0;
	t->pf_page = NULL;
	t->pf_fd = -1;
	if (pg)
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

uint64_t rt_faults_take(struct pi_tls *t)
{
	struct perf_event_mmap_page *pg = t->pf_page;
	if (!pg)
		return 0;
	uint64_t head = __atomic_load_n(&pg->data_head, __ATOMIC_ACQUIRE);
	uint64_t tail = t->pf_seen, samples = 0, own = 0, size;
	const unsigned char *data = ring(pg, &size);
	/* full: the kernel may have dropped records (it says so later, in a
	 * LOST record, which is ignored: the count below has them) */
	int full = head - tail > size - 2 * RECORD;
	while (tail < head) {
		const struct perf_event_header *h = (const void *)(data + tail % size);
		if (h->size < sizeof(*h))
			break; /* not a record: give up on the rest */
		if (h->type == PERF_RECORD_SAMPLE) {
			samples++;
			own += !programs(ring_u64(data, size, tail + sizeof(*h)));
		}
		tail += h->size;
	}
	__atomic_store_n(&pg->data_tail, head, __ATOMIC_RELEASE);
	t->pf_seen = head;
	uint64_t count, all = samples;
	if (full && read_count(t, &count) && count - t->pf_count > samples)
		all = count - t->pf_count;
	t->pf_count += all;
	uint64_t n = all - own;
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
	struct perf_event_mmap_page *pg = t->pf_page;
	if (!pg)
		return;
	uint64_t head = __atomic_load_n(&pg->data_head, __ATOMIC_ACQUIRE);
	uint64_t count;
	if (head - t->pf_seen > RING_PAGES * PAGE - 2 * RECORD && read_count(t, &count))
		t->pf_count = count;
	else
		t->pf_count += (head - t->pf_seen) / RECORD; /* (LOST records would count as one) */
	__atomic_store_n(&pg->data_tail, head, __ATOMIC_RELEASE);
	t->pf_seen = head;
}
