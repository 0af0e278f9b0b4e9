/* blockrun: measure the steady-state cost of basic blocks on this machine.
 *
 * Driven by bench/blocks.py (its header describes the method).  Reads jobs
 * on standard input, one a line:
 *
 *   ID HEXBODY U JCCOFF NRIP [DISPOFF:INSNEND]...
 *
 * HEXBODY is the block's code as it is to run (terminator already rewritten
 * or dropped), U the unroll count, JCCOFF the offset of the opcode byte of a
 * final jcc (whose low bit inverts its condition) or -1; each of the NRIP RIP-relative operands has
 * its 32-bit displacement at byte DISPOFF of the body and its instruction ends
 * at INSNEND; it is pointed, in every copy, at a slot of its own in a data
 * area next to the code.  Writes one line per job:
 *
 *   ID STATUS CYCLES PASSES U K CYCLES_PER_TICK NPAGES PROBE DETAIL
 *
 * STATUS is ok, unstable (no two passes agree), or what stopped the block
 * (sigsegv, sigfpe, sigill, sigbus, sigtrap, timeout, pages: it touched more
 * than MAXPAGES pages); CYCLES the core cycles of one execution of the block;
 * PASSES the result of each pass; CYCLES_PER_TICK core cycles per TSC tick
 * (from the calibration chain); NPAGES the pages mapped for its accesses;
 * PROBE the contention probe's cycles; DETAIL a fault's signal and address,
 * or whether a final jcc was kept or inverted.
 *
 * Each block is unrolled U and HI*U times into two generated functions; each
 * runs K iterations of: reset rsp and all other general registers, the
 * copies, a memory counter decrement and jnz.  The cost is
 * (t(HI*U) - t(U)) / ((HI-1)*U*K) ticks, which cancels the loop, the register
 * resets and the call.  Each round runs the two functions and a calibration
 * chain of dependent `add %rdx,%rax` (1 cycle each) measured the same way;
 * a pass keeps the minimum of each over its rounds.  Runs are kept short (a
 * few microseconds) and many: the core is shared (its other hardware thread
 * is busy most of the time), and only the fastest of many short runs sees it
 * alone.
 *
 * Options: --rounds=N (rounds per pass), --target=TICKS (length of a run of
 * the long function), --timeout=S (per block), --trace (every run's ticks to
 * standard error).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

#ifndef MAP_FIXED_NOREPLACE
#define MAP_FIXED_NOREPLACE 0x100000
#endif

/* Fixed layout, far from what blocks' pointers reach (the pattern below is
 * about 78 GiB, its multiples by up to 9 under 1 TiB). */
#define CODE_BASE 0x300000000000ull /* calibration and probe functions, 1 MiB each */
#define FIX_SLOT (1u << 20)
#define BLK_BASE (CODE_BASE + (8u << 20)) /* block functions, each at a new random place */
#define BLK_SLOT (128u << 10)
#define BLK_NSLOT 4096
#define CTL_BASE (BLK_BASE + (uint64_t)BLK_NSLOT * BLK_SLOT) /* counter, saved rsp */
#define RIPD_BASE (CTL_BASE + 0x10000)	 /* targets of RIP-relative operands */
#define RIPD_SIZE 0x10000
#define STACK_BASE 0x310000000000ull
#define STACK_SIZE (16u << 20)
#define STACK_TOP (STACK_BASE + STACK_SIZE - (4u << 20)) /* pops may walk up */
#define STACK_WIN_LO (STACK_TOP - 0x4000)		  /* refilled before each run */
#define STACK_WIN_HI (STACK_TOP + 0x1000)

/* Every general register but rsp starts each iteration at a value of its
 * own, REGVAL32 + r * REGSTEP (rdx at RDXVAL, smaller, so that a divide by a
 * register does not overflow): a sign-extended 32-bit immediate, so that the
 * reset is `and $0; or $imm`.  Registers point to different cache lines and
 * 4 KiB offsets, as the different objects of a program do: loads and stores
 * through different registers neither share lines nor alias.  Every qword of
 * memory the block can reach holds REGVAL: loaded pointers stay valid,
 * loaded divisors are non-zero.  All are 64-byte aligned, with a non-zero
 * low byte, word and dword. */
#define REGVAL 0x0000001234567840ull
#define RDXVAL 0x01234540u
#define REGVAL32 0x34567840u
#define REGSTEP 0x11080u

#define MAXPAGES 1024
#define MAXRIP 64
#define MAXBODY 65536

static volatile uint64_t *const ctl_cnt = (uint64_t *)CTL_BASE; /* +8: the saved rsp */

static sigjmp_buf env;
static volatile sig_atomic_t armed;
static volatile int fault_sig, fault_code;
static volatile uintptr_t fault_addr;
static void *pages[MAXPAGES];
static volatile int npages;

static void fill(void *p, size_t n)
{
	uint64_t *q = p;
	for (size_t i = 0; i < n / 8; i++)
		q[i] = REGVAL;
}

static void on_signal(int sig, siginfo_t *si, void *uc)
{
	(void)uc;
	uintptr_t a = (uintptr_t)si->si_addr;
	if (sig == SIGSEGV && armed && si->si_code == SEGV_MAPERR && a >= 0x1000 && a < (1ull << 47) &&
	    npages < MAXPAGES) {
		int e = errno;
		void *pg = (void *)(a & ~(uintptr_t)4095);
		void *r = mmap(pg, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE,
			       -1, 0);
		errno = e;
		if (r == pg) {
			fill(pg, 4096);
			pages[npages++] = pg;
			return;
		}
		if (r != MAP_FAILED)
			munmap(r, 4096);
	}
	if (!armed)
		_exit(128 + sig);
	fault_sig = npages >= MAXPAGES ? -1 : sig, fault_code = si->si_code, fault_addr = a;
	armed = 0;
	siglongjmp(env, 1);
}

static void *map_fixed(uint64_t addr, size_t len, int prot)
{
	void *p = mmap((void *)addr, len, prot, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE | MAP_NORESERVE,
		       -1, 0);
	if (p != (void *)addr) {
		fprintf(stderr, "blockrun: cannot map %#llx: %s\n", (unsigned long long)addr, strerror(errno));
		exit(2);
	}
	return p;
}

/* ---- code generation ---- */

struct gen {
	uint8_t *p;
};

static void b(struct gen *g, int n, ...)
{
	va_list ap;
	va_start(ap, n);
	for (int i = 0; i < n; i++)
		*g->p++ = (uint8_t)va_arg(ap, int);
	va_end(ap);
}

static void u32(struct gen *g, uint32_t v)
{
	memcpy(g->p, &v, 4);
	g->p += 4;
}

static void u64(struct gen *g, uint64_t v)
{
	memcpy(g->p, &v, 8);
	g->p += 8;
}

/* rel32 field that ends `after` bytes later, pointing at target */
static void rel32(struct gen *g, uint64_t target, int after)
{
	int64_t d = (int64_t)target - (int64_t)((uintptr_t)g->p + 4 + after);
	u32(g, (uint32_t)(int32_t)d);
}

static const uint8_t vec_init[] = {
	0xc5, 0xfc, 0x77, /* vzeroall */
	/* vpxord %xmmN,%xmmN,%xmmN for N = 16..31 */
	0x62, 0xa1, 0x7d, 0x00, 0xef, 0xc0, 0x62, 0xa1, 0x75, 0x00, 0xef, 0xc9, 0x62, 0xa1, 0x6d, 0x00, 0xef, 0xd2,
	0x62, 0xa1, 0x65, 0x00, 0xef, 0xdb, 0x62, 0xa1, 0x5d, 0x00, 0xef, 0xe4, 0x62, 0xa1, 0x55, 0x00, 0xef, 0xed,
	0x62, 0xa1, 0x4d, 0x00, 0xef, 0xf6, 0x62, 0xa1, 0x45, 0x00, 0xef, 0xff, 0x62, 0x01, 0x3d, 0x00, 0xef, 0xc0,
	0x62, 0x01, 0x35, 0x00, 0xef, 0xc9, 0x62, 0x01, 0x2d, 0x00, 0xef, 0xd2, 0x62, 0x01, 0x25, 0x00, 0xef, 0xdb,
	0x62, 0x01, 0x1d, 0x00, 0xef, 0xe4, 0x62, 0x01, 0x15, 0x00, 0xef, 0xed, 0x62, 0x01, 0x0d, 0x00, 0xef, 0xf6,
	0x62, 0x01, 0x05, 0x00, 0xef, 0xff,
	/* kxnorq %kN,%kN,%kN for N = 1..7 (all-ones masks) */
	0xc4, 0xe1, 0xf4, 0x46, 0xc9, 0xc4, 0xe1, 0xec, 0x46, 0xd2, 0xc4, 0xe1, 0xe4, 0x46, 0xdb, 0xc4, 0xe1, 0xdc,
	0x46, 0xe4, 0xc4, 0xe1, 0xd4, 0x46, 0xed, 0xc4, 0xe1, 0xcc, 0x46, 0xf6, 0xc4, 0xe1, 0xc4, 0x46, 0xff,
	0xdb, 0xe3, /* fninit */
};

struct block {
	uint8_t body[MAXBODY];
	size_t len;
	int nrip;
	int rip_disp[MAXRIP], rip_end[MAXRIP];
};

/* void f(void): save callee-saved registers and rsp; init vector state; then
 * *ctl_cnt times: reset registers, `copies` copies of the body, decrement. */
static void generate(uint8_t *buf, const struct block *bl, int copies)
{
	struct gen g = {buf};
	b(&g, 10, 0x53, 0x55, 0x41, 0x54, 0x41, 0x55, 0x41, 0x56, 0x41, 0x57);
	b(&g, 3, 0x48, 0x89, 0x25); /* mov %rsp,ctl_rsp(%rip) */
	rel32(&g, CTL_BASE + 8, 0);
	memcpy(g.p, vec_init, sizeof vec_init);
	g.p += sizeof vec_init;
	while ((uintptr_t)g.p % 64)
		*g.p++ = 0x90;
	uint8_t *head = g.p;
	b(&g, 2, 0x48, 0xbc); /* movabs $STACK_TOP,%rsp */
	u64(&g, STACK_TOP);
	for (int r = 0; r < 16; r++) {
		if (r == 4)
			continue;
		/* and $0,%r; or $v,%r: the reset depends on the old value, so
		 * that dependency chains through registers stay serial across
		 * iterations as they would be in an endless unrolling */
		b(&g, 4, r < 8 ? 0x48 : 0x49, 0x83, 0xe0 | (r & 7), 0x00);
		b(&g, 3, r < 8 ? 0x48 : 0x49, 0x81, 0xc8 | (r & 7));
		u32(&g, r == 2 ? RDXVAL : REGVAL32 + (uint32_t)r * REGSTEP);
	}
	for (int c = 0; c < copies; c++) {
		uint8_t *at = g.p;
		memcpy(at, bl->body, bl->len);
		for (int i = 0; i < bl->nrip; i++) {
			uint64_t target = RIPD_BASE + 0x1000 + 256 * (uint64_t)i;
			int64_t d = (int64_t)target - (int64_t)((uintptr_t)at + bl->rip_end[i]);
			int32_t d32 = (int32_t)d;
			memcpy(at + bl->rip_disp[i], &d32, 4);
		}
		g.p += bl->len;
	}
	b(&g, 3, 0x48, 0x83, 0x2d); /* subq $1,ctl_cnt(%rip) */
	rel32(&g, CTL_BASE, 1);
	b(&g, 1, 0x01);
	b(&g, 2, 0x0f, 0x85); /* jnz head */
	u32(&g, (uint32_t)(int32_t)(head - (g.p + 4)));
	b(&g, 3, 0x48, 0x8b, 0x25); /* mov ctl_rsp(%rip),%rsp */
	rel32(&g, CTL_BASE + 8, 0);
	b(&g, 3, 0xc5, 0xf8, 0x77); /* vzeroupper */
	b(&g, 2, 0xdb, 0xe3);	    /* fninit */
	b(&g, 1, 0xfc);		    /* cld */
	b(&g, 9, 0x9c, 0x48, 0x81, 0x24, 0x24, 0xff, 0xff, 0xfb, 0xff); /* pushf; andq $~AC,(%rsp) */
	b(&g, 1, 0x9d);							/* popf */
	b(&g, 10, 0x41, 0x5f, 0x41, 0x5e, 0x41, 0x5d, 0x41, 0x5c, 0x5d, 0x5b);
	b(&g, 1, 0xc3);
}

static size_t gen_size(const struct block *bl, int copies)
{
	return 256 + sizeof vec_init + 16 * 10 + (size_t)copies * bl->len;
}

/* ---- timing ---- */

static inline uint64_t tsc(void)
{
	uint32_t lo, hi;
	__asm__ volatile("lfence; rdtsc; lfence" : "=a"(lo), "=d"(hi)::"memory");
	return (uint64_t)hi << 32 | lo;
}

static int cur_nrip = MAXRIP;
static int refill_each = 1;

/* every run starts from the same memory: the pattern in the stack around
 * its top, the RIP-relative slots and the pages mapped for the block */
static void refill(void)
{
	fill((void *)STACK_WIN_LO, STACK_WIN_HI - STACK_WIN_LO);
	fill((void *)(RIPD_BASE + 0x1000), 256 * (size_t)cur_nrip);
	for (int i = 0; i < npages; i++)
		fill(pages[i], 4096);
}

#define HI 4 /* the second function has HI times the copies of the first */
/* code slots: the block, the calibration chain, the contention probe */
#define F1 0
#define F2 1
#define CAL 2
#define CAL2 3
#define PR 4
#define PR2 5
#define PROBE_U 100

/* where each function is: the block's move for every block, so that no
 * predictor state (memory disambiguation, branches) that an earlier block
 * left at the same instruction addresses decides its cost */
static uint64_t slot_addr[6];

static uint64_t run(int slot, uint64_t k)
{
	void (*f)(void) = (void (*)(void))(uintptr_t)slot_addr[slot];
	uint32_t mx = 0x9fc0, old; /* all exceptions masked, FTZ and DAZ */
	if (refill_each && (slot == F1 || slot == F2))
		refill();
	*ctl_cnt = k;
	__asm__ volatile("stmxcsr %0; ldmxcsr %1; mfence" : "=m"(old) : "m"(mx) : "memory"); /* refill drained */
	uint64_t t0 = tsc();
	f();
	uint64_t t1 = tsc();
	__asm__ volatile("ldmxcsr %0" ::"m"(old));
	return t1 - t0;
}

static size_t slot_size(int slot)
{
	return slot == F1 || slot == F2 ? BLK_SLOT : FIX_SLOT;
}

static void install(int slot, const struct block *bl, int copies)
{
	uint8_t *p = (uint8_t *)slot_addr[slot];
	if (mprotect(p, slot_size(slot), PROT_READ | PROT_WRITE)) {
		perror("blockrun: mprotect");
		exit(2);
	}
	generate(p, bl, copies);
	mprotect(p, slot_size(slot), PROT_READ | PROT_EXEC);
}

static uint64_t rng_state;

static uint64_t rng(void)
{
	rng_state ^= rng_state << 13;
	rng_state ^= rng_state >> 7;
	rng_state ^= rng_state << 17;
	return rng_state;
}

/* give the block's two functions fresh places (and free the old ones) */
static void move_block_slots(void)
{
	for (int s = F1; s <= F2; s++)
		if (slot_addr[s]) {
			madvise((void *)slot_addr[s], BLK_SLOT, MADV_DONTNEED);
			mprotect((void *)slot_addr[s], BLK_SLOT, PROT_NONE);
		}
	uint64_t a = rng() % BLK_NSLOT, b;
	do
		b = rng() % BLK_NSLOT;
	while (b == a);
	slot_addr[F1] = BLK_BASE + a * BLK_SLOT;
	slot_addr[F2] = BLK_BASE + b * BLK_SLOT;
}


static int cal_u = 100;
static uint64_t cal_k = 100, probe_k = 100;
static int rounds = 30;
static int trace;
static uint64_t target_ticks = 120000;

struct pass {
	double cycles, ratio, probe; /* block cycles, core cycles per tick, probe cycles */
};

/* A pass: `rounds` rounds of the six runs, the minimum of each. */
static struct pass one_pass(int u, uint64_t k)
{
	uint64_t m[6] = {UINT64_MAX, UINT64_MAX, UINT64_MAX, UINT64_MAX, UINT64_MAX, UINT64_MAX};
	for (int r = 0; r < rounds; r++) {
		uint64_t t[6];
		t[CAL] = run(CAL, cal_k);
		t[F1] = run(F1, k);
		t[PR] = run(PR, probe_k);
		t[CAL2] = run(CAL2, cal_k);
		t[F2] = run(F2, k);
		t[PR2] = run(PR2, probe_k);
		for (int i = 0; i < 6; i++)
			if (t[i] < m[i])
				m[i] = t[i];
		if (trace)
			fprintf(stderr, "round %d: cal %lu %lu block %lu %lu probe %lu %lu\n", r, (unsigned long)t[CAL],
				(unsigned long)t[CAL2], (unsigned long)t[F1], (unsigned long)t[F2], (unsigned long)t[PR],
				(unsigned long)t[PR2]);
	}
	struct pass p;
	double cal_ticks = (double)(int64_t)(m[CAL2] - m[CAL]) / ((double)cal_u * (double)cal_k);
	p.ratio = 1.0 / cal_ticks;
	p.cycles = (double)(int64_t)(m[F2] - m[F1]) / ((double)(HI - 1) * u * (double)k) * p.ratio;
	p.probe = (double)(int64_t)(m[PR2] - m[PR]) / ((double)(HI - 1) * PROBE_U * (double)probe_k) * p.ratio;
	return p;
}

static int agree(double a, double b)
{
	double d = a > b ? a - b : b - a;
	double lo = a < b ? a : b;
	return d <= 0.04 * lo || d <= 0.04;
}

static int hexval(int c)
{
	return c <= '9' ? c - '0' : (c | 0x20) - 'a' + 10;
}

static struct block cur, calblk;

static void unmap_pages(void)
{
	for (int i = 0; i < npages; i++)
		munmap(pages[i], 4096);
	npages = 0;
}

static const char *signame(int sig)
{
	switch (sig) {
	case SIGSEGV: return "sigsegv";
	case SIGFPE: return "sigfpe";
	case SIGILL: return "sigill";
	case SIGBUS: return "sigbus";
	case SIGTRAP: return "sigtrap";
	case SIGALRM: return "timeout";
	case -1: return "pages";
	default: return "signal";
	}
}

/* K for which a run of the function in slot takes about `ticks` */
static uint64_t size_k(int slot, uint64_t ticks)
{
	uint64_t t = UINT64_MAX;
	for (int i = 0; i < 5; i++) {
		uint64_t x = run(slot, 10);
		if (x < t)
			t = x;
	}
	uint64_t k = ticks / (t / 10 ? t / 10 : 1);
	return k < 2 ? 2 : k;
}

/* put the block's functions at new places, warm them up (which maps the
 * pages the block touches) and return the K for which a run of the HI*U
 * copies takes about target_ticks */
static uint64_t setup(int u)
{
	move_block_slots();
	install(F1, &cur, u);
	install(F2, &cur, HI * u);
	refill();
	run(F1, 2);
	run(F2, 2);
	uint64_t t = UINT64_MAX;
	for (int i = 0; i < 3; i++) {
		uint64_t x = run(F2, 4);
		if (x < t)
			t = x;
	}
	t /= 4;
	uint64_t k = t ? target_ticks / t : 1000;
	return k < 2 ? 2 : k > 100000 ? 100000 : k;
}

/* jccoff >= 0: the block ends in a jcc whose condition is the low bit of
 * that byte; whichever of it and its inverse runs faster (falls through
 * rather than being taken to the next instruction) is measured */
static void measure(const char *id, int u, int jccoff, double timeout)
{
	static char passes[512];
	struct itimerval it = {{0, 0}, {(time_t)timeout, (suseconds_t)((timeout - (time_t)timeout) * 1e6)}};
	npages = 0;
	uint64_t k = 1;
	volatile int inverted = 0;
	if (sigsetjmp(env, 1)) {
		struct itimerval z = {{0, 0}, {0, 0}};
		setitimer(ITIMER_REAL, &z, NULL);
		uint32_t mx = 0x1f80;
		__asm__ volatile("ldmxcsr %0; fninit; cld; vzeroupper; pushf; andq $~0x40000,(%%rsp); popf" ::"m"(mx)
				 : "memory", "cc");
		printf("%s %s nan - %d 0 0 %d 0 sig=%d,code=%d,addr=%#lx\n", id, signame(fault_sig), u, npages,
		       fault_sig, fault_code, (unsigned long)fault_addr);
		fflush(stdout);
		unmap_pages();
		return;
	}
	setitimer(ITIMER_REAL, &it, NULL);
	armed = 1;
	if (jccoff >= 0) {
		double c[2];
		int saved = rounds;
		rounds = saved / 10 > 50 ? saved / 10 : 50;
		for (int v = 0; v < 2; v++) {
			if (v)
				cur.body[jccoff] ^= 1;
			k = setup(u);
			c[v] = one_pass(u, k).cycles;
		}
		rounds = saved;
		inverted = c[1] < c[0];
		if (trace)
			fprintf(stderr, "jcc: kept %.3f inverted %.3f\n", c[0], c[1]);
		if (!inverted)
			cur.body[jccoff] ^= 1;
	}
	k = setup(u);
	struct pass p[4];
	int n = 0, ok = 0, ok_a = -1, ok_b = -1;
	double res = 0;
	for (n = 0; n < 4 && !ok; n++) {
		p[n] = one_pass(u, k);
		for (int j = 0; j < n && !ok; j++)
			if (agree(p[j].cycles, p[n].cycles))
				ok = 1, ok_a = j, ok_b = n, res = (p[j].cycles + p[n].cycles) / 2;
	}
	struct itimerval z = {{0, 0}, {0, 0}};
	setitimer(ITIMER_REAL, &z, NULL);
	armed = 0;
	if (!ok) { /* the median of the passes */
		double v[4];
		for (int i = 0; i < n; i++)
			v[i] = p[i].cycles;
		for (int i = 0; i < n; i++)
			for (int j = i + 1; j < n; j++)
				if (v[j] < v[i]) {
					double x = v[i];
					v[i] = v[j], v[j] = x;
				}
		res = (v[n / 2 - 1] + v[n / 2]) / 2;
	}
	char *q = passes;
	double ratio = 0, probe = 0;
	for (int i = 0; i < n; i++) {
		q += sprintf(q, "%s%.4f", i ? "," : "", p[i].cycles);
		ratio += p[i].ratio / n;
		if ((!ok || i == ok_a || i == ok_b) && p[i].probe > probe)
			probe = p[i].probe;
	}
	printf("%s %s %.4f %s %d %lu %.5f %d %.4f %s\n", id, ok ? "ok" : "unstable", res, passes, u,
	       (unsigned long)k, ratio, npages, probe, jccoff < 0 ? "-" : inverted ? "jcc=inverted" : "jcc=kept");
	fflush(stdout);
	unmap_pages();
}

int main(int argc, char **argv)
{
	double timeout = 10;
	for (int i = 1; i < argc; i++) {
		if (!strncmp(argv[i], "--rounds=", 9))
			rounds = atoi(argv[i] + 9);
		else if (!strncmp(argv[i], "--target=", 9))
			target_ticks = strtoull(argv[i] + 9, NULL, 0);
		else if (!strncmp(argv[i], "--refill=", 9))
			refill_each = atoi(argv[i] + 9);
		else if (!strcmp(argv[i], "--tsc-rate")) {
			struct timespec a, b;
			clock_gettime(CLOCK_MONOTONIC, &a);
			uint64_t t0 = tsc();
			usleep(200000);
			clock_gettime(CLOCK_MONOTONIC, &b);
			uint64_t t1 = tsc();
			printf("%.4f\n", (double)(t1 - t0) / ((b.tv_sec - a.tv_sec) * 1e9 + (b.tv_nsec - a.tv_nsec)));
			return 0;
		} else if (!strcmp(argv[i], "--trace"))
			trace = 1;
		else if (!strncmp(argv[i], "--timeout=", 10))
			timeout = atof(argv[i] + 10);
		else {
			fprintf(stderr, "usage: blockrun [--rounds=N] [--target=TICKS] [--timeout=S] < jobs\n");
			return 2;
		}
	}
	map_fixed(CODE_BASE, 4 * FIX_SLOT, PROT_READ | PROT_EXEC);
	map_fixed(BLK_BASE, (size_t)BLK_NSLOT * BLK_SLOT, PROT_NONE);
	for (int i = CAL; i <= PR2; i++)
		slot_addr[i] = CODE_BASE + (uint64_t)(i - CAL) * FIX_SLOT;
	struct timespec now;
	clock_gettime(CLOCK_REALTIME, &now);
	rng_state = (uint64_t)now.tv_nsec * 0x9e3779b97f4a7c15ull ^ (uint64_t)getpid() << 32 ^ (uint64_t)now.tv_sec;
	if (!rng_state)
		rng_state = 1;
	map_fixed(CTL_BASE, 0x10000, PROT_READ | PROT_WRITE);
	map_fixed(RIPD_BASE, RIPD_SIZE, PROT_READ | PROT_WRITE);
	map_fixed(STACK_BASE, STACK_SIZE, PROT_READ | PROT_WRITE);
	static uint8_t altstack[1 << 16];
	stack_t ss = {.ss_sp = altstack, .ss_size = sizeof altstack};
	sigaltstack(&ss, NULL);
	struct sigaction sa;
	memset(&sa, 0, sizeof sa);
	sa.sa_sigaction = on_signal;
	sa.sa_flags = SA_SIGINFO | SA_ONSTACK | SA_NODEFER;
	sigemptyset(&sa.sa_mask);
	int sigs[] = {SIGSEGV, SIGFPE, SIGILL, SIGBUS, SIGTRAP, SIGALRM};
	for (size_t i = 0; i < sizeof sigs / sizeof *sigs; i++)
		sigaction(sigs[i], &sa, NULL);

	/* calibration chain: add %rdx,%rax */
	calblk.len = 3;
	calblk.body[0] = 0x48, calblk.body[1] = 0x01, calblk.body[2] = 0xd0;
	install(CAL, &calblk, cal_u);
	install(CAL2, &calblk, 2 * cal_u);
	/* contention probe: nop; nop (the core renames 6 a cycle when it is ours alone) */
	static struct block probe;
	probe.len = 2;
	probe.body[0] = probe.body[1] = 0x90;
	install(PR, &probe, PROBE_U);
	install(PR2, &probe, HI * PROBE_U);
	cal_k = size_k(CAL2, target_ticks / 2);
	probe_k = size_k(PR2, target_ticks / 2);
	static char line[4 * MAXBODY];
	while (fgets(line, sizeof line, stdin)) {
		char id[128], hex[2 * MAXBODY + 1];
		int u, nrip, off;
		int jccoff;
		if (sscanf(line, "%127s %131072s %d %d %d%n", id, hex, &u, &jccoff, &nrip, &off) != 5)
			continue;
		size_t hl = strlen(hex);
		cur.len = hl / 2;
		for (size_t i = 0; i < cur.len; i++)
			cur.body[i] = (uint8_t)(hexval(hex[2 * i]) << 4 | hexval(hex[2 * i + 1]));
		cur.nrip = nrip;
		char *s = line + off;
		int bad = nrip > MAXRIP || gen_size(&cur, HI * u) > BLK_SLOT;
		for (int i = 0; i < nrip && !bad; i++) {
			int n;
			if (sscanf(s, " %d:%d%n", &cur.rip_disp[i], &cur.rip_end[i], &n) != 2)
				bad = 1;
			s += n;
		}
		if (bad) {
			printf("%s badjob nan - %d 0 0 0 0 -\n", id, u);
			fflush(stdout);
			continue;
		}
		cur_nrip = nrip;
		if (jccoff >= (int)cur.len)
			jccoff = -1;
		measure(id, u, jccoff, timeout);
		cur_nrip = MAXRIP;
	}
	return 0;
}
