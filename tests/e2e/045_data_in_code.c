// ldflags: -no-pie
// warn: table_abs\+0x[0-9a-f]+: a relocation that is not an instruction's.*left uninstrumented
// warn: table_rel\+0x[0-9a-f]+: the code reads memory at this address.*left uninstrumented
// warn: stride_dispatch\+0x[0-9a-f]+: bytes no path reaches.*left uninstrumented
// warn: const_in_code\+0x[0-9a-f]+: memory read or written there.*left uninstrumented
// warn: string_in_code\+0x[0-9a-f]+: its address is taken.*left uninstrumented
// uncounted: table_abs table_rel stride_dispatch const_in_code string_in_code
/* Data inside a function's .size, as hand-written assembly has it: a jump
 * table of addresses (R_X86_64_64 relocations inside the function), one of
 * offsets the assembler resolved (no relocation: the cases are reached
 * only through it), cases at a fixed stride, a constant read by the code,
 * a string whose address the function returns.  Decoded as code and
 * rewritten, each would make the program jump or read garbage; each
 * function is left as it was, said once, and the rest of the program is
 * still profiled. */
#include <stdio.h>
__asm__(".text\n"
	/* a table of addresses after the code */
	".globl table_abs\n"
	".type table_abs, @function\n"
	"table_abs:\n"
	"  andl $3, %edi\n"
	"  jmp *.Labs_tab(,%rdi,8)\n"
	".Labs0: movl $10, %eax\n"
	"  ret\n"
	".Labs1: movl $21, %eax\n"
	"  ret\n"
	".Labs2: movl $32, %eax\n"
	"  ret\n"
	".Labs3: movl $43, %eax\n"
	"  ret\n"
	"  .p2align 3\n"
	".Labs_tab:\n"
	"  .quad .Labs0, .Labs1, .Labs2, .Labs3\n"
	".size table_abs, .-table_abs\n"

	/* a table of offsets from itself, which the assembler resolved: its
	 * bytes decode as instructions (adc, add, and, xor) */
	".globl table_rel\n"
	".type table_rel, @function\n"
	"table_rel:\n"
	"  andl $3, %edi\n"
	"  leaq .Lrel_tab(%rip), %rdx\n"
	"  movslq (%rdx,%rdi,4), %rax\n"
	"  addq %rdx, %rax\n"
	"  jmp *%rax\n"
	"  .p2align 4\n"
	".Lrel_tab:\n"
	"  .long .Lrel0-.Lrel_tab, .Lrel1-.Lrel_tab, .Lrel2-.Lrel_tab, .Lrel0-.Lrel_tab\n"
	"  .p2align 4\n"
	".Lrel0: movl $7, %eax\n"
	"  ret\n"
	"  .p2align 4\n"
	".Lrel1: leal 3(%rdi,%rdi,2), %eax\n"
	"  ret\n"
	"  .p2align 4\n"
	".Lrel2: movl $-1, %eax\n"
	"  ret\n"
	".size table_rel, .-table_rel\n"

	/* cases at a fixed stride from a label: no table at all, the cases
	 * after the first reached by nothing the rewriter can see */
	".globl stride_dispatch\n"
	".type stride_dispatch, @function\n"
	"stride_dispatch:\n"
	"  andl $3, %edi\n"
	"  leaq .Lstride(%rip), %rax\n"
	"  shll $4, %edi\n"
	"  addq %rdi, %rax\n"
	"  jmp *%rax\n"
	"  .p2align 4\n"
	".Lstride: movl $100, %eax\n"
	"  ret\n"
	"  .p2align 4\n"
	"  movl $200, %eax\n"
	"  ret\n"
	"  .p2align 4\n"
	"  movl $300, %eax\n"
	"  ret\n"
	"  .p2align 4\n"
	"  movl $400, %eax\n"
	"  ret\n"
	".size stride_dispatch, .-stride_dispatch\n"

	/* a constant the code reads (its bytes: push, pop) */
	".globl const_in_code\n"
	".type const_in_code, @function\n"
	"const_in_code:\n"
	"  movq .Lk(%rip), %rax\n"
	"  imulq %rdi, %rax\n"
	"  ret\n"
	"  .p2align 3\n"
	".Lk: .quad 0x5857565554535251\n"
	".size const_in_code, .-const_in_code\n"

	/* a string whose address the function returns (push, pop again) */
	".globl string_in_code\n"
	".type string_in_code, @function\n"
	"string_in_code:\n"
	"  leaq .Lstr(%rip), %rax\n"
	"  testl %edi, %edi\n"
	"  je 1f\n"
	"  addq $6, %rax\n"
	"1: ret\n"
	".Lstr: .ascii \"PQRSTUVWXYZ\"\n"
	"  .byte 0, 0\n"
	".size string_in_code, .-string_in_code\n");

int table_abs(int);
int table_rel(int);
int stride_dispatch(int);
long const_in_code(long);
const char *string_in_code(int);

__attribute__((noinline)) static long run(int n)
{
	long s = 0;
	for (int i = 0; i < n; i++)
		s += table_abs(i) * 3 + table_rel(i) + stride_dispatch(i) + const_in_code(i) % 1000;
	return s;
}

int main(void)
{
	printf("%ld\n", run(100));
	for (int i = 0; i < 4; i++)
		printf("%d %d %d\n", table_abs(i), table_rel(i), stride_dispatch(i));
	printf("%s|%s\n", string_in_code(0), string_in_code(1));
	return 0;
}
