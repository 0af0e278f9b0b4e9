/* Conditional branches on this core: what a mispredicted branch costs, and
 * which patterns the predictor learns.  A block measurement cannot show it
 * (bench/blocks.py runs each block in a loop of itself, where every branch
 * goes the same way).  Run by bench/probes.py; the branch predictor that
 * profinst's runtime simulates (--branches) and its penalty come from it.
 *
 * Each test is a loop of N iterations over the same instructions: a branch
 * on one byte of a table, indexed by the iteration number modulo a period,
 * around an add.  Only the table changes: all zeros (never taken), random
 * bytes compared with a threshold (taken with probability p), a random
 * sequence repeating with a period (learnable with enough history).  The
 * fastest of several runs is converted to core cycles by a chain of
 * dependent register adds (1 cycle each) timed the same way.  The penalty
 * is (cycles of the random test - cycles of the never-taken test) over the
 * number of mispredictions an ideal static predictor would make, min(p, 1-p)
 * per iteration: a history-based predictor cannot do better on random data. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <x86intrin.h>

#define N 200000
#define TABLE (1 << 23)
#define RUNS 30

static uint8_t *table;

/* rdi = table, rsi = index mask (all ones: the whole stretch), edx = threshold, rcx = iterations */
__asm__(".text\n"
	"walk:\n xor %eax,%eax\n xor %r8d,%r8d\n"
	"1:\n mov %rax,%r9\n and %rsi,%r9\n movzbl (%rdi,%r9),%r9d\n"
	" cmp %edx,%r9d\n jae 2f\n add $1,%r8\n"
	"2:\n add $1,%rax\n cmp %rcx,%rax\n jne 1b\n mov %r8,%rax\n ret\n"
	/* rdi = seed, rsi = bit mask (0: never taken), rcx = iterations: a
	 * branch on a bit of an xorshift sequence held in a register */
	"xwalk:\n xor %eax,%eax\n xor %r8d,%r8d\n"
	"1:\n mov %rdi,%r9\n shl $13,%r9\n xor %r9,%rdi\n mov %rdi,%r9\n shr $7,%r9\n xor %r9,%rdi\n"
	" mov %rdi,%r9\n shl $17,%r9\n xor %r9,%rdi\n"
	" test %rsi,%rdi\n jz 2f\n add $1,%r8\n"
	"2:\n add $1,%rax\n cmp %rcx,%rax\n jne 1b\n mov %r8,%rax\n ret\n"
	"calib:\n mov $1000,%ecx\n1: .rept 100\n add %rdx,%rax\n .endr\n dec %ecx\n jnz 1b\n ret\n");

uint64_t walk(const uint8_t *t, uint64_t mask, uint32_t thr, uint64_t n);
uint64_t xwalk(uint64_t seed, uint64_t mask, uint64_t unused, uint64_t n);
void calib(void);

static uint64_t rng = 0x9e3779b97f4a7c15ull;

static uint8_t next_byte(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return (uint8_t)(rng >> 24);
}

/* One timed test: a walk over the table, a walk on a register, or the
 * calibration chain. */
enum kind { WALK, XWALK, CALIB };
struct test {
	enum kind kind;
	uint64_t mask;
	uint32_t thr;
};

static void run_once(const struct test *t, int i)
{
	switch (t->kind) {
	case WALK:
		/* a fresh stretch of the table each run, unless a period is
		 * asked for: the predictor must not learn the random data */
		walk(t->mask == TABLE - 1 ? table + (size_t)i * N : table, t->mask, t->thr, N);
		break;
	case XWALK:
		xwalk(0x9e3779b97f4a7c15ull + (uint64_t)i * 0x1234567, t->mask, 0, N);
		break;
	case CALIB:
		calib();
		break;
	}
}

/* The fastest of runs runs, in TSC ticks. */
static double fastest(struct test t, int runs)
{
	uint64_t best = ~0ull;
	for (int i = 0; i < runs; i++) {
		uint64_t t0 = __rdtsc();
		run_once(&t, i);
		uint64_t t1 = __rdtsc();
		if (t1 - t0 < best)
			best = t1 - t0;
	}
	return (double)best;
}

static double ticks_walk(uint64_t mask, uint32_t thr)
{
	return fastest((struct test){WALK, mask, thr}, RUNS);
}

static double ticks_xwalk(uint64_t mask)
{
	return fastest((struct test){XWALK, mask, 0}, RUNS);
}

static double ticks_calib(void)
{
	return fastest((struct test){CALIB, 0, 0}, 300);
}

int main(void)
{
	table = malloc(TABLE);
	if (!table)
		return 1;
	for (size_t i = 0; i < TABLE; i++)
		table[i] = next_byte();
	/* the core may still be raising its clock: run first */
	for (int i = 0; i < 20; i++)
		ticks_calib();
	double cyc = 100000.0 / ticks_calib();
	/* threshold 0: never taken-around (the add always runs) */
	double base = ticks_walk(TABLE - 1, 0) * cyc / N;
	printf("%-44s %6.2f cycles an iteration\n", "never mispredicted", base);
	static const struct {
		const char *name;
		uint32_t thr;
	} ps[] = {{"random, p = 0.50", 128}, {"random, p = 0.25", 64}, {"random, p = 0.10", 26},
		  {"random, p = 0.03", 8}};
	for (unsigned i = 0; i < sizeof ps / sizeof *ps; i++) {
		double p = ps[i].thr / 256.0, c = ticks_walk(TABLE - 1, ps[i].thr) * cyc / N;
		printf("%-44s %6.2f cycles an iteration: %5.1f cycles a misprediction\n", ps[i].name, c,
		       (c - base) / (p < 0.5 ? p : 1 - p));
	}
	double xb = ticks_xwalk(0) * cyc / N, xr = ticks_xwalk(1 << 20) * cyc / N;
	printf("%-44s %6.2f cycles an iteration\n", "on a register, never mispredicted", xb);
	printf("%-44s %6.2f cycles an iteration: %5.1f cycles a misprediction\n", "on a register, random, p = 0.50",
	       xr, (xr - xb) / 0.5);
	static const unsigned periods[] = {4, 16, 64, 256, 1024, 4096, 16384};
	for (unsigned i = 0; i < sizeof periods / sizeof *periods; i++) {
		char name[64];
		snprintf(name, sizeof name, "random with period %u, p = 0.5", periods[i]);
		double c = ticks_walk(periods[i] - 1, 128) * cyc / N;
		printf("%-44s %6.2f cycles an iteration\n", name, c);
	}
	free(table);
	return 0;
}
