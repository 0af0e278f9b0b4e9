/* The front end's bubbles at calls and returns, which the runtime charges
 * under --cpu=zen5 (runtime/frontend.c): they overlap with the work fetched
 * around them.  Each loop runs 100 000 times:
 *   t_call   calls an empty function: the blocks take 2 cycles an
 *            iteration, the call's and the return's bubbles 4, so 2 more
 *            are charged beyond the blocks;
 *   t_w24    24 ALU operations, then the call: the blocks take longer
 *            than the bubbles, which charge nothing beyond them;
 *   t_w48c2  48 ALU operations, then two calls: the same;
 *   t_tail   calls a function that jumps to an empty one (a tail call):
 *            4 cycles an iteration, as t_call (bench/probes/callret.c:
 *            3.96), the jump's bubble hidden;
 *   t_nest   calls a function that calls the empty one: 8 cycles an
 *            iteration (callret.c: 8.00), all of them f_mid's but its
 *            blocks' and f_ret's, as perf finds (bench/probes/callret.c
 *            --perf): a function that calls keeps the bubbles of the call
 *            into it and of its return.
 * tests/run.py (feature/frontend) checks the profile's figures. */
#include <stdio.h>

#define SIX                                                                                  \
	"lea (%rsi,%rdi),%r8\n lea (%rsi,%rdi),%r9\n lea (%rsi,%rdi),%r10\n lea (%rsi,%rdi),%r11\n" \
	" lea (%rsi,%rdi),%rdx\n lea (%rsi,%rdi),%rax\n"
#define FN(name, body) ".globl " #name "\n.type " #name ",@function\n" #name ":\n" body "\n.size " #name ",.-" #name "\n"
#define LOOP(body) "push %rbx\n mov $100000,%ebx\n1: " body "\n dec %ebx\n jnz 1b\n pop %rbx\n ret"

__asm__(".text\n"
	FN(f_ret, "ret")
	FN(t_call, LOOP("call f_ret"))
	FN(t_w24, LOOP(SIX SIX SIX SIX " call f_ret"))
	FN(t_w48c2, LOOP(SIX SIX SIX SIX SIX SIX SIX SIX " call f_ret\n call f_ret"))
	FN(f_ret2, "ret")
	FN(f_tail, "jmp f_ret2")
	FN(t_tail, LOOP("call f_tail"))
	FN(f_mid, "sub $8,%rsp\n call f_ret\n add $8,%rsp\n ret")
	FN(t_nest, LOOP("call f_mid")));
void t_call(void), t_w24(void), t_w48c2(void), t_tail(void), t_nest(void);

int main(void)
{
	t_call();
	t_w24();
	t_w48c2();
	t_tail();
	t_nest();
	puts("done");
	return 0;
}
