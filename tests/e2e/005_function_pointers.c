/* Calls through function pointers, including to static functions. */
#include <stdio.h>
static int add(int a, int b) { return a + b; }
static int sub(int a, int b) { return a - b; }
static int mul(int a, int b) { return a * b; }
int (*const ops[])(int, int) = {add, sub, mul};
__attribute__((noinline)) int apply(int (*f)(int, int), int a, int b) { return f(a, b); }
int main(void)
{
	int acc = 1;
	for (int i = 0; i < 90; i++)
		acc = apply(ops[i % 3], acc, i) & 0xfff;
	printf("%d\n", acc);
	return 0;
}
