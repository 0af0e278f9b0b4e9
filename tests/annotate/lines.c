/* Lines with known behaviour, for profview annotate's tests (compiled -O0 -g):
 * the markers named in the comments are asserted. */
#include <stdio.h>

__attribute__((noinline)) void never(void) { puts("never"); }

__attribute__((noinline)) int work(int n)
{
	int s = 0;
	for (int i = 0; i < n; i++) { /* MARK:+ */
		s += i * 3; /* MARK:| */
	}
	if (n > 1000000) /* MARK:| */
		never(); /* MARK:# */
	return s;
}

int main(void)
{
	printf("%d\n", work(100));
	return 0;
}
