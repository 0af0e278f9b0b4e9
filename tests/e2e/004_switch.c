/* Switch statements compiled to jump tables. */
#include <stdio.h>
__attribute__((noinline)) int op(int k, int x)
{
	switch (k) {
	case 0: return x + 1;
	case 1: return x * 7;
	case 2: return x - 3;
	case 3: return x ^ 0x55;
	case 4: return x << 2;
	case 5: return x / 3;
	case 6: return -x;
	case 7: return x % 11;
	default: return 0;
	}
}
__attribute__((noinline)) const char *name(unsigned c)
{
	switch (c % 12) {
	case 0: return "zero"; case 1: return "one"; case 2: return "two";
	case 3: return "three"; case 4: return "four"; case 5: return "five";
	case 6: return "six"; case 7: return "seven"; case 8: return "eight";
	case 9: return "nine"; case 10: return "ten"; default: return "eleven";
	}
}
int main(void)
{
	int x = 1;
	for (int i = 0; i < 300; i++)
		x = op(i % 9, x) & 0xffff;
	unsigned n = 0;
	for (unsigned i = 0; i < 50; i++)
		n += (unsigned)name(i)[0];
	printf("%d %u %s\n", x, n, name(7));
	return 0;
}
