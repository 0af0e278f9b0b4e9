/* Leaf functions keeping locals in the red zone below %rsp. */
#include <stdio.h>
__attribute__((noinline)) int leaf(int a, int b)
{
	volatile int t[16];
	for (int i = 0; i < 16; i++)
		t[i] = a * i + b;
	int s = 0;
	for (int i = 0; i < 16; i++)
		s += t[i] ^ i;
	return s;
}
int main(void)
{
	long s = 0;
	for (int i = 0; i < 200; i++)
		s += leaf(i, 3);
	printf("%ld\n", s);
	return 0;
}
