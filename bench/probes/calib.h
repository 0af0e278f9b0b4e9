/* The probes' clock: rdtsc ticks to core cycles.  A chain of 100 000
 * dependent register adds takes one core cycle an add (an immediate add
 * would be folded at rename on these cores, so none is used); its fastest
 * of 300 runs gives the ticks of 100 000 cycles. */
#ifndef PROBES_CALIB_H
#define PROBES_CALIB_H

#include <stdint.h>
#include <x86intrin.h>

__asm__(".text\n"
	"calib: mov $1000,%ecx\n1: .rept 100\n add %rdx,%rax\n .endr\n dec %ecx\n jnz 1b\n ret\n");
void calib(void);

/* Core cycles a rdtsc tick. */
static double cycles_a_tick(void)
{
	uint64_t b = UINT64_MAX;
	for (int i = 0; i < 300; i++) {
		uint64_t t0 = __rdtsc();
		calib();
		uint64_t t = __rdtsc() - t0;
		if (t < b)
			b = t;
	}
	return 100000.0 / (double)b;
}

#endif
