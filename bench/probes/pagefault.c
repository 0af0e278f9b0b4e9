/* What a minor page fault costs the program: the first touch of each page
 * of fresh anonymous memory, in user time and in system time (getrusage),
 * against the same touches of memory already mapped.  Run by
 * bench/probes.py; the page_fault cost of a model (rewriter/model.c) comes
 * from it.
 *
 * On the virtual machines this project measures on, a fault costs the
 * faulting instruction several microseconds of user time besides the
 * kernel's own (the hypervisor filling its shadow of the page tables is
 * charged to the guest's user mode), which is why the runtime charges
 * faults to the function that takes them (runtime/faults.c).
 *
 * Each trial maps 64 MiB, touches one byte a page, and unmaps it, 16 times;
 * best of 5 trials by user time.  The calibration chain of calib.h gives
 * the core clock. */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/time.h>
#include <x86intrin.h>

#include "calib.h"

#define SIZE (64ul << 20)
#define ROUNDS 16

static double secs(struct timeval tv) { return (double)tv.tv_sec + (double)tv.tv_usec * 1e-6; }

/* user and system seconds, and faults, of ROUNDS passes over SIZE bytes:
 * fresh memory each pass, or one mapping touched again */
static void trial(int fresh, double *user, double *sys, long *faults)
{
	struct rusage a, b;
	volatile char *keep = NULL;
	if (!fresh) {
		keep = mmap(NULL, SIZE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		madvise((void *)keep, SIZE, MADV_NOHUGEPAGE);
		for (uint64_t i = 0; i < SIZE; i += 4096)
			keep[i] = 1;
	}
	getrusage(RUSAGE_SELF, &a);
	for (int r = 0; r < ROUNDS; r++) {
		volatile char *p = keep;
		if (fresh) {
			p = mmap(NULL, SIZE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
			madvise((void *)p, SIZE, MADV_NOHUGEPAGE);
		}
		for (uint64_t i = 0; i < SIZE; i += 4096)
			p[i] = (char)r;
		if (fresh)
			munmap((void *)p, SIZE);
	}
	getrusage(RUSAGE_SELF, &b);
	if (keep)
		munmap((void *)keep, SIZE);
	*user = secs(b.ru_utime) - secs(a.ru_utime);
	*sys = secs(b.ru_stime) - secs(a.ru_stime);
	*faults = b.ru_minflt - a.ru_minflt;
}

int main(void)
{
	double hz = cycles_a_tick();
	uint64_t t0 = __rdtsc();
	struct timeval w0, w1;
	gettimeofday(&w0, NULL);
	calib();
	for (int i = 0; i < 2000; i++)
		calib();
	gettimeofday(&w1, NULL);
	double ghz = (double)(__rdtsc() - t0) * hz / (secs(w1) - secs(w0)) * 1e-9;
	double best[2][2] = {{1e9, 0}, {1e9, 0}};
	long nf[2] = {0, 0};
	for (int k = 0; k < 5; k++)
		for (int fresh = 0; fresh < 2; fresh++) {
			double u, s;
			long f;
			trial(fresh, &u, &s, &f);
			if (u < best[fresh][0])
				best[fresh][0] = u, best[fresh][1] = s, nf[fresh] = f;
		}
	long pages = ROUNDS * (long)(SIZE / 4096);
	double per = nf[1] > 0 ? (best[1][0] - best[0][0]) / (double)nf[1] : 0;
	printf("core clock %.2f GHz (the calibration chain against gettimeofday)\n", ghz);
	printf("%ld touches of pages already mapped: %.3f s user, %.3f s system, %ld faults\n", pages, best[0][0],
	       best[0][1], nf[0]);
	printf("%ld touches of fresh pages: %.3f s user, %.3f s system, %ld faults\n", pages, best[1][0], best[1][1],
	       nf[1]);
	printf("a fault: %.2f us of user time (%.0f core cycles), %.2f us of system time\n", per * 1e6,
	       per * ghz * 1e9, nf[1] > 0 ? best[1][1] / (double)nf[1] * 1e6 : 0);
	return 0;
}
