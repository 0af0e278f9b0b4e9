/* setjmp/longjmp out of nested calls: skipped frames are closed. */
#include <setjmp.h>
#include <stdio.h>
static jmp_buf env;
__attribute__((noinline)) void deep(int n)
{
	if (n == 0)
		longjmp(env, 7);
	deep(n - 1);
}
__attribute__((noinline)) int work(int i)
{
	int x = 0;
	for (int k = 0; k < i; k++)
		x += k;
	return x;
}
int main(void)
{
	int total = 0;
	for (int i = 0; i < 10; i++) {
		int r = setjmp(env);
		if (r == 0)
			deep(i);
		total += r + work(i);
	}
	printf("%d\n", total);
	return 0;
}
