/* Calls and returns on this core: what a call and its return cost, which a
 * block measurement cannot show (bench/blocks.py drops a block's final
 * call, jmp or ret).  Run by bench/probes.py; the Golden Cove model's
 * call_floor and ret_floor (rewriter/model.c) come from it.
 *
 * Each test is a loop of 1000 iterations of 10 copies, run 3000 times; the
 * fastest run is converted to core cycles by a chain of 100 000 dependent
 * register adds (1 cycle each) timed the same way, and divided by 10 000. */
#include <stdint.h>
#include <stdio.h>
#include <x86intrin.h>

/* six independent ALU operations, a cycle's work on six ALUs */
#define SIX "lea (%rsi,%rdi),%r8\n lea (%rsi,%rdi),%r9\n lea (%rsi,%rdi),%r10\n" \
	    " lea (%rsi,%rdi),%r11\n lea (%rsi,%rdi),%rdx\n lea (%rsi,%rdi),%rax\n"

#define LOOP(name, body) \
	#name ": mov $1000,%ecx\n1: .rept 10\n" body "\n.endr\n dec %ecx\n jnz 1b\n ret\n"

__asm__(".text\n"
	"f_ret: ret\n"
	"f_lea: lea 1(%rdi),%eax\n ret\n"
	"f_push: push %rbx\n mov %rdi,%rbx\n lea 1(%rbx),%eax\n pop %rbx\n ret\n"
	"f_nest: sub $8,%rsp\n call f_lea\n add $8,%rsp\n ret\n"
	"f_hash: mov %edi,%eax\n shr $16,%eax\n xor %edi,%eax\n imul $0x7feb352d,%eax,%eax\n"
	" mov %eax,%edx\n shr $15,%edx\n xor %edx,%eax\n ret\n"
	"f_w12: " SIX SIX " ret\n"
	"f_w24: " SIX SIX SIX SIX " ret\n"
	"f_tail: jmp f_ret\n"
	"calib: mov $1000,%ecx\n1: .rept 100\n add %rdx,%rax\n .endr\n dec %ecx\n jnz 1b\n ret\n"
	LOOP(t_ret, "call f_ret")
	LOOP(t_lea, "call f_lea")
	LOOP(t_lea_chain, "call f_lea\n mov %eax,%edi")
	LOOP(t_push, "call f_push")
	LOOP(t_nest, "call f_nest")
	LOOP(t_hash, "call f_hash")
	LOOP(t_hash_chain, "call f_hash\n mov %eax,%edi")
	LOOP(t_hash_inline, "mov %edi,%eax\n shr $16,%eax\n xor %edi,%eax\n imul $0x7feb352d,%eax,%eax\n"
			    " mov %eax,%edx\n shr $15,%edx\n xor %edx,%eax\n mov %eax,%edi")
	LOOP(t_w12, SIX SIX " call f_ret")
	LOOP(t_w24, SIX SIX SIX SIX " call f_ret")
	LOOP(t_c24, "call f_w24")
	LOOP(t_w12c12, SIX SIX " call f_w12")
	LOOP(t_i24, SIX SIX SIX SIX)
	LOOP(t_jmp, "jmp 2f\n .p2align 6\n 2:")
	LOOP(t_tail, "call f_tail"));

void calib(void), t_ret(void), t_lea(void), t_lea_chain(void), t_push(void), t_nest(void), t_hash(void),
	t_hash_chain(void), t_hash_inline(void), t_jmp(void), t_w12(void), t_w24(void), t_c24(void), t_w12c12(void),
	t_i24(void), t_tail(void);

static uint64_t fastest(void (*f)(void))
{
	uint64_t b = ~0ull;
	for (int i = 0; i < 3000; i++) {
		uint64_t t0 = __rdtsc();
		f();
		uint64_t t1 = __rdtsc();
		if (t1 - t0 < b)
			b = t1 - t0;
	}
	return b;
}

int main(void)
{
	static const struct {
		const char *name;
		void (*f)(void);
	} t[] = {
		{"call, ret (an empty function)", t_ret},
		{"call, lea, ret", t_lea},
		{"call, lea, ret: a chain through the result", t_lea_chain},
		{"call, push, mov, lea, pop, ret", t_push},
		{"call, call, ret, ret (nested)", t_nest},
		{"call, 7-instruction hash, ret", t_hash},
		{"call, hash, ret: a chain through the result", t_hash_chain},
		{"the hash inline: a chain", t_hash_inline},
		/* whether a call and its return cost their floors on top of the
		 * work around them or overlap with it */
		{"12 ALU ops, call, ret", t_w12},
		{"24 ALU ops, call, ret", t_w24},
		{"call, 24 ALU ops, ret", t_c24},
		{"12 ALU ops, call, 12 ALU ops, ret", t_w12c12},
		{"24 ALU ops inline", t_i24},
		{"jmp to the next line (a taken jump)", t_jmp},
		{"call, jmp (a tail call), ret", t_tail},
	};
	double cyc_per_tick = 100000.0 / (double)fastest(calib);
	for (unsigned i = 0; i < sizeof t / sizeof *t; i++)
		printf("%-50s %6.2f cycles a copy\n", t[i].name, (double)fastest(t[i].f) * cyc_per_tick / 10000.0);
	return 0;
}
