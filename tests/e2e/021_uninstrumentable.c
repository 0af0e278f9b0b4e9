// warn: odd_bytes.*left uninstrumented
// uncounted: odd_bytes
/* A function holding bytes that are not an instruction (data in code) is
 * left as it was, said once; the rest of the program is still profiled. */
#include <stdio.h>
__asm__(".text\n"
	".globl odd_bytes\n"
	".type odd_bytes, @function\n"
	"odd_bytes:\n"
	"  lea 1(%rdi), %eax\n"
	"  jmp 1f\n"
	"  .byte 0xd6, 0x06, 0x07\n" /* not valid in 64-bit mode */
	"1: ret\n"
	".size odd_bytes, .-odd_bytes\n");
int odd_bytes(int);
__attribute__((noinline)) int normal(int x) { return odd_bytes(x) * 2; }
int main(void)
{
	int s = 0;
	for (int i = 0; i < 10; i++)
		s += normal(i);
	printf("%d\n", s);
	return 0;
}
