/* --branch-sim (tests/run.py feature/branch_sim): a branch on random bits is
 * mispredicted about half the time, a branch on a short pattern almost
 * never, and the stub before each jump leaves every flag a jump can read
 * as it found it (each test below jumps on another flag).  A branch on
 * what memcmp returned mispredicts as memcmp's time; one on anything else
 * after the call, as its own function's.  A random sequence repeated with
 * a period of 16384 is learnt, as Zen 5 learns it (bench/probes/branch.c:
 * 1 % of such a branch mispredicted, 16 % at a period of 32768). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

#define PERIOD 16384
#define PASSES 48
static unsigned char bits[PERIOD];

__attribute__((noinline)) void long_period_branch(void)
{
	for (int k = 0; k < PASSES; k++)
		for (int i = 0; i < PERIOD; i++)
			if (bits[i])
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

/* each returns 1 if its jump is taken: cmp_result when the n bytes at a
 * and b differ (its jump tests memcmp's result, moved and the register it
 * came in cleared), cmp_other and cmp_zeroed when bit is not 0 (their
 * jumps test a value memcmp did not make; cmp_zeroed's is in %eax, which
 * a zeroing idiom cut from memcmp's result) */
int cmp_result(const void *a, const void *b, size_t n);
int cmp_other(const void *a, const void *b, size_t n, int bit);
int cmp_zeroed(const void *a, const void *b, size_t n, int bit);
__asm__(".text\n"
	".globl cmp_result\n.type cmp_result,@function\ncmp_result:\n"
	" push %rbx\n call memcmp@PLT\n mov %eax,%edx\n xor %eax,%eax\n test %edx,%edx\n je 1f\n"
	" mov $1,%eax\n1: pop %rbx\n ret\n.size cmp_result,.-cmp_result\n"
	".globl cmp_other\n.type cmp_other,@function\ncmp_other:\n"
	" push %rbx\n mov %ecx,%ebx\n call memcmp@PLT\n xor %eax,%eax\n test %ebx,%ebx\n je 1f\n"
	" mov $1,%eax\n1: pop %rbx\n ret\n.size cmp_other,.-cmp_other\n"
	".globl cmp_zeroed\n.type cmp_zeroed,@function\ncmp_zeroed:\n"
	" push %rbx\n mov %ecx,%ebx\n call memcmp@PLT\n xor %eax,%eax\n add %ebx,%eax\n test %eax,%eax\n"
	" je 1f\n mov $1,%eax\n1: pop %rbx\n ret\n.size cmp_zeroed,.-cmp_zeroed\n");

__attribute__((noinline)) int random_compares(void)
{
	static const char keys[2][8] = {"group-A", "group-B"};
	int differ = 0;
	for (int i = 0; i < N; i++) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		differ += cmp_result(keys[0], keys[x & 1], 7);
		differ -= cmp_other(keys[0], keys[0], 7, (int)(x >> 1) & 1);
		differ += cmp_zeroed(keys[0], keys[0], 7, (int)(x >> 2) & 1);
	}
	return differ;
}

int main(void)
{
	random_branch();
	pattern_branch();
	for (int i = 0; i < PERIOD; i++) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		bits[i] = x & 1;
	}
	long_period_branch();
	if (abs(random_compares() - N / 2) > N / 20)
		printf("random_compares: the bits were not random\n");
	long big = 0x7fffffffffffffffl;
	printf("%d%d %d%d %d%d%d %d%d %d%d\n", j_overflow(big, 1), j_overflow(1, 1), j_carry(-1, 1), j_carry(1, 1),
	       j_less(-5, 3), j_less(3, -5), j_less(big, -1), j_parity(3), j_parity(1), j_sign(-1), j_sign(1));
	return 0;
}
