/* --branch-sim (tests/run.py unit/branch_sim): a branch on random bits is
 * mispredicted about half the time, a branch on a short pattern almost
 * never, and the stub before each jump leaves every flag a jump can read
 * as it found it (each test below jumps on another flag). */
#include <stdio.h>

#define N 100000

static unsigned long long x = 88172645463325252ull;
volatile int sink;

__attribute__((noinline)) void random_branch(void)
{
	for (int i = 0; i < N; i++) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		if (x & 1)
			sink = i;
	}
}

__attribute__((noinline)) void pattern_branch(void)
{
	for (int i = 0; i < N; i++)
		if (i % 7 < 3)
			sink = i;
}

/* each returns 1 if its jump is taken */
int j_overflow(long a, long b);
int j_carry(long a, long b);
int j_less(long a, long b);
int j_parity(long a);
int j_sign(long a);
__asm__(".text\n"
	".globl j_overflow\n.type j_overflow,@function\nj_overflow:\n"
	" mov $1,%eax\n add %rsi,%rdi\n jo 1f\n xor %eax,%eax\n1: ret\n.size j_overflow,.-j_overflow\n"
	".globl j_carry\n.type j_carry,@function\nj_carry:\n"
	" mov $1,%eax\n add %rsi,%rdi\n jc 1f\n xor %eax,%eax\n1: ret\n.size j_carry,.-j_carry\n"
	".globl j_less\n.type j_less,@function\nj_less:\n"
	" mov $1,%eax\n cmp %rsi,%rdi\n jl 1f\n xor %eax,%eax\n1: ret\n.size j_less,.-j_less\n"
	".globl j_parity\n.type j_parity,@function\nj_parity:\n"
	" mov $1,%eax\n test %rdi,%rdi\n jp 1f\n xor %eax,%eax\n1: ret\n.size j_parity,.-j_parity\n"
	".globl j_sign\n.type j_sign,@function\nj_sign:\n"
	" mov $1,%eax\n test %rdi,%rdi\n js 1f\n xor %eax,%eax\n1: ret\n.size j_sign,.-j_sign\n");

int main(void)
{
	random_branch();
	pattern_branch();
	long big = 0x7fffffffffffffffl;
	printf("%d%d %d%d %d%d%d %d%d %d%d\n", j_overflow(big, 1), j_overflow(1, 1), j_carry(-1, 1), j_carry(1, 1),
	       j_less(-5, 3), j_less(3, -5), j_less(big, -1), j_parity(3), j_parity(1), j_sign(-1), j_sign(1));
	return 0;
}
