/* Calls and returns on this core: what a call and its return cost, which a
 * block measurement cannot show (bench/blocks.py drops a block's final
 * call, jmp or ret).  Run by bench/probes.py; the Golden Cove model's
 * call_floor and ret_floor (rewriter/model.c) come from it.
 *
 * Each test is a loop of 1000 iterations of 10 copies, run 3000 times; the
 * fastest run is converted to core cycles by a chain of 100 000 dependent
 * register adds (1 cycle each) timed the same way, and divided by 10 000.
 *
 * `callret KEY [N]` runs one test N times (30 000) instead, for `perf record`:
 * where a sampling profiler finds the time of calls and returns
 * (bench/probes.py prints each function's share of the samples). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <x86intrin.h>

/* six independent ALU operations, a cycle's work on six ALUs */
#define SIX "lea (%rsi,%rdi),%r8\n lea (%rsi,%rdi),%r9\n lea (%rsi,%rdi),%r10\n" \
	    " lea (%rsi,%rdi),%r11\n lea (%rsi,%rdi),%rdx\n lea (%rsi,%rdi),%rax\n"

/* a function symbol, so that profinst instruments it */
#define FN(name, body) ".globl " #name "\n.type " #name ",@function\n" #name ":\n" body "\n.size " #name ",.-" #name "\n"
#define LOOP(name, body) FN(name, "mov $1000,%ecx\n1: .rept 10\n" body "\n.endr\n dec %ecx\n jnz 1b\n ret")

__asm__(".data\n.p2align 6\nself: .quad self\n.text\n"
	FN(f_ret, "ret")
	FN(f_lea, "lea 1(%rdi),%eax\n ret")
	FN(f_push, "push %rbx\n mov %rdi,%rbx\n lea 1(%rbx),%eax\n pop %rbx\n ret")
	FN(f_lea2, "lea 1(%rdi),%eax\n ret")
	FN(f_nest, "sub $8,%rsp\n call f_lea\n add $8,%rsp\n ret")
	FN(f_nest2, "push %rbx\n call f_lea\n call f_lea2\n pop %rbx\n ret")
	FN(f_deep, "sub $8,%rsp\n call f_nest\n add $8,%rsp\n ret")
	FN(f_hash, "mov %edi,%eax\n shr $16,%eax\n xor %edi,%eax\n imul $0x7feb352d,%eax,%eax\n"
		   " mov %eax,%edx\n shr $15,%edx\n xor %edx,%eax\n ret")
	FN(f_w12, SIX SIX " ret")
	FN(f_w24, SIX SIX SIX SIX " ret")
	FN(f_tail, "jmp f_ret")
	/* leaves whose results take a while: chains of 8 adds, of 3 imuls,
	 * of 3 loads (through a pointer to itself), and a divide */
	FN(f_add8, "mov %edi,%eax\n add $1,%eax\n add $1,%eax\n add $1,%eax\n add $1,%eax\n"
		   " add $1,%eax\n add $1,%eax\n add $1,%eax\n add $1,%eax\n ret")
	FN(f_imul3, "imul $3,%edi,%eax\n imul $3,%eax,%eax\n imul $3,%eax,%eax\n ret")
	FN(f_load3, "lea self(%rip),%rax\n mov (%rax),%rax\n mov (%rax),%rax\n mov (%rax),%rax\n ret")
	FN(f_div, "mov %edi,%eax\n xor %edx,%edx\n mov $7,%esi\n div %esi\n ret")
	FN(calib, "mov $1000,%ecx\n1: .rept 100\n add %rdx,%rax\n .endr\n dec %ecx\n jnz 1b\n ret")
	LOOP(t_ret, "call f_ret")
	LOOP(t_lea, "call f_lea")
	LOOP(t_lea_chain, "call f_lea\n mov %eax,%edi")
	LOOP(t_push, "call f_push")
	LOOP(t_nest, "call f_nest")
	LOOP(t_nest2, "call f_nest2")
	LOOP(t_deep, "call f_deep")
	LOOP(t_mix, "call f_lea\n call f_nest2\n call f_lea2")
	LOOP(t_add8, "call f_add8")
	LOOP(t_imul3, "call f_imul3")
	LOOP(t_load3, "call f_load3")
	LOOP(t_div, "call f_div")
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

void calib(void), t_ret(void), t_lea(void), t_lea_chain(void), t_push(void), t_nest(void), t_nest2(void),
	t_deep(void), t_mix(void), t_add8(void), t_imul3(void), t_load3(void), t_div(void), t_hash(void),
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

int main(int argc, char **argv)
{
	static const struct {
		const char *key, *name;
		void (*f)(void);
	} t[] = {
		{"ret", "call, ret (an empty function)", t_ret},
		{"lea", "call, lea, ret", t_lea},
		{"lea_chain", "call, lea, ret: a chain through the result", t_lea_chain},
		{"push", "call, push, mov, lea, pop, ret", t_push},
		{"nest", "call, call, ret, ret (nested)", t_nest},
		{"nest2", "call; call, ret; call, ret; ret (two leaves)", t_nest2},
		{"deep", "call, call, call, ret, ret, ret", t_deep},
		{"mix", "a leaf, a function calling two, a leaf", t_mix},
		{"add8", "call, 8 dependent adds, ret", t_add8},
		{"imul3", "call, 3 dependent imuls, ret", t_imul3},
		{"load3", "call, 3 dependent loads, ret", t_load3},
		{"div", "call, a 32-bit divide, ret", t_div},
		{"hash", "call, 7-instruction hash, ret", t_hash},
		{"hash_chain", "call, hash, ret: a chain through the result", t_hash_chain},
		{"hash_inline", "the hash inline: a chain", t_hash_inline},
		/* whether a call and its return cost their floors on top of the
		 * work around them or overlap with it */
		{"w12", "12 ALU ops, call, ret", t_w12},
		{"w24", "24 ALU ops, call, ret", t_w24},
		{"c24", "call, 24 ALU ops, ret", t_c24},
		{"w12c12", "12 ALU ops, call, 12 ALU ops, ret", t_w12c12},
		{"i24", "24 ALU ops inline", t_i24},
		{"jmp", "jmp to the next line (a taken jump)", t_jmp},
		{"tail", "call, jmp (a tail call), ret", t_tail},
	};
	for (unsigned i = 0; argc > 1 && i < sizeof t / sizeof *t; i++)
		if (!strcmp(argv[1], t[i].key)) {
			long n = argc > 2 ? atol(argv[2]) : 30000;
			for (long r = 0; r < n; r++)
				t[i].f();
			return 0;
		}
	if (argc > 1) {
		fprintf(stderr, "callret: no test %s\n", argv[1]);
		return 2;
	}
	double cyc_per_tick = 100000.0 / (double)fastest(calib);
	for (unsigned i = 0; i < sizeof t / sizeof *t; i++)
		printf("%-50s %6.2f cycles a copy\n", t[i].name, (double)fastest(t[i].f) * cyc_per_tick / 10000.0);
	return 0;
}
