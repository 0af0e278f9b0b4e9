// warn: untyped_dispatch: no \.type/\.size, and its extent is not clear \(an indirect jump\); left uninstrumented
// uncounted: untyped_dispatch untyped_abs
// expect: untyped_abs calls=400 self_cycles=1800
/* Hand-written assembly whose entry points have neither .type nor .size:
 * global symbols of no type and no size in code.  untyped_abs is
 * instrumented over what its entry reaches (its two returns), up to the
 * padding after it; untyped_dispatch jumps through a register, so where
 * it ends cannot be known: it is left as it was, said once.  (callgrind
 * does not see symbols without a type: untyped_abs is checked by its
 * counts, 200 calls from sum() and 200 through untyped_dispatch's jump,
 * 4 instructions for a number >= 0 and 5 for one below.) */
#include <stdio.h>
__asm__(".text\n"
	".globl untyped_abs\n"
	"untyped_abs:\n"
	"  testl %edi, %edi\n"
	"  js 1f\n"
	"  movl %edi, %eax\n"
	"  ret\n"
	"1: movl %edi, %eax\n"
	"  negl %eax\n"
	"  ret\n"
	"  .p2align 4\n"
	".globl untyped_dispatch\n"
	"untyped_dispatch:\n"
	"  leaq untyped_abs(%rip), %rax\n"
	"  jmp *%rax\n"
	"  .p2align 4\n");
int untyped_abs(int);
int untyped_dispatch(int);

__attribute__((noinline)) static long sum(int n)
{
	long s = 0;
	for (int i = -n / 2; i < n / 2; i++)
		s += untyped_abs(i) + untyped_dispatch(i);
	return s;
}

int main(void)
{
	printf("%ld\n", sum(200));
	return 0;
}
