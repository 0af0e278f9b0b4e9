/* Flags live across block boundaries: one cmp feeding two branches, and
 * adc/sbb chains. A stub that clobbered flags would change the result. */
#include <stdio.h>
__attribute__((noinline)) int classify(long a, long b)
{
	int r;
	__asm__ volatile(
		"cmp %2, %1\n\t"
		"je 1f\n\t"
		"jg 2f\n\t"
		"mov $-1, %0\n\t"
		"jmp 3f\n"
		"1: mov $0, %0\n\t"
		"jmp 3f\n"
		"2: mov $1, %0\n"
		"3:"
		: "=r"(r)
		: "r"(a), "r"(b)
		: "cc");
	return r;
}
__attribute__((noinline)) unsigned long add128(unsigned long *hi, unsigned long a, unsigned long b)
{
	unsigned long lo = a;
	__asm__ volatile("add %2, %0\n\t"
			 "jmp 1f\n"
			 "1: adc $0, %1"
			 : "+r"(lo), "+r"(*hi)
			 : "r"(b)
			 : "cc");
	return lo;
}
int main(void)
{
	int s = 0;
	for (long i = -20; i < 20; i++)
		s += classify(i, 3) * 3 + classify(3, i);
	unsigned long hi = 0, lo = 0;
	for (int i = 0; i < 100; i++)
		lo = add128(&hi, lo, 0xf000000000000000ul);
	printf("%d %lu %lu\n", s, hi, lo);
	return 0;
}
