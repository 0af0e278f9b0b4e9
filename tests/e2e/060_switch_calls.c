/* An interpreter's loop: a switch the compiler makes a jump table of (an
 * indirect jump, so that the blocks of the function have ways in that no
 * edge shows but through the table's targets), whose cases call functions
 * and go on in blocks after the calls and in blocks they fall into: each
 * such block is counted through the register the code before it left
 * the current node in, and every count must still be exact. */
#include <stdio.h>

__attribute__((noinline)) static long add(long a, long b) { return a + b; }
__attribute__((noinline)) static long mul(long a, long b) { return a * b % 1000003; }
__attribute__((noinline)) static long neg(long a) { return -a; }

static const unsigned char program[] = {0, 1, 2, 3, 4, 5, 6, 7, 1, 0, 3, 2, 5, 4, 7, 6, 2, 2, 0, 1};

__attribute__((noinline)) long run(long steps)
{
	long acc = 1, x = 3;
	for (long i = 0; i < steps; i++) {
		switch (program[i % sizeof(program)]) {
		case 0:
			acc = add(acc, x);
			if (acc & 1)
				x++;
			break;
		case 1:
			acc = mul(acc, x);
			x += acc & 3;
			if (x > 100)
				x = 3;
			break;
		case 2:
			acc = neg(acc);
			acc = add(acc, 7);
			break;
		case 3:
			x = add(x, 1);
			acc ^= x;
			break;
		case 4:
			acc = mul(acc, 3) + mul(x, 5);
			break;
		case 5:
			if (x & 2)
				acc = add(acc, neg(x));
			else
				acc = mul(acc, 7);
			break;
		case 6:
			acc += x;
			x = neg(x) & 0xff;
			break;
		default:
			acc = add(acc, acc >> 3);
			x = (x * 5) & 0x3ff;
			break;
		}
	}
	return acc ^ x;
}

int main(void)
{
	printf("%ld\n", run(200000));
	return 0;
}
