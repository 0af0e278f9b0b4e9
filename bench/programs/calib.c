/* Core clock calibration for bench/programs.py.
 *
 * A long chain of dependent register-register adds (add %rax,%rdx;
 * add %rdx,%rax; ...) runs at one add per core cycle (an add with an
 * immediate can be folded away at rename on recent Intel cores, a register
 * add cannot). The caller times this process's user CPU time with
 * getrusage, exactly as it times a workload, so core Hz = adds / user
 * seconds is measured through the same accounting (preemption, steal,
 * frequency changes) as the workload's time.
 *
 * The chain runs in chunks, each also timed with CLOCK_MONOTONIC_RAW: the
 * fastest chunk (never interrupted) is printed as a cross-check.
 *
 *   calib [ADDS [ADDS_PER_CHUNK]]
 * prints: adds fastest_chunk_hz median_chunk_hz */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#define A2 "add %%rax,%%rdx\n\tadd %%rdx,%%rax\n\t"
#define A10 A2 A2 A2 A2 A2
#define A100 A10 A10 A10 A10 A10 A10 A10 A10 A10 A10
#define ADDS_PER_ITER 100

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC_RAW, &ts);
	return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* iters x 100 dependent adds; the loop counter is a separate chain */
static uint64_t chain(uint64_t iters)
{
	uint64_t a = 1, d = 2;
	__asm__ volatile("1:\n\t" A100 "dec %2\n\tjnz 1b" : "+a"(a), "+d"(d), "+r"(iters) : : "cc");
	return a ^ d;
}

static int cmp(const void *x, const void *y)
{
	double a = *(const double *)x, b = *(const double *)y;
	return (a > b) - (a < b);
}

int main(int argc, char **argv)
{
	uint64_t total = argc > 1 ? strtoull(argv[1], NULL, 10) : 1000000000ull;
	uint64_t per = argc > 2 ? strtoull(argv[2], NULL, 10) : 4000000ull;
	uint64_t iters = per / ADDS_PER_ITER;
	if (!iters)
		iters = 1;
	size_t chunks = (size_t)(total / (iters * ADDS_PER_ITER));
	if (!chunks)
		chunks = 1;
	double *hz = malloc(sizeof(double) * chunks);
	uint64_t sink = 0;
	for (size_t i = 0; i < chunks; i++) {
		double t = now();
		sink += chain(iters);
		hz[i] = (double)(iters * ADDS_PER_ITER) / (now() - t);
	}
	qsort(hz, chunks, sizeof(double), cmp);
	printf("%llu %.0f %.0f\n", (unsigned long long)(chunks * iters * ADDS_PER_ITER + (sink & 0)), hz[chunks - 1],
	       hz[chunks / 2]);
	return 0;
}
