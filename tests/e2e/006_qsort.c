/* qsort (uninstrumented libc) calling back into instrumented code. */
#include <stdio.h>
#include <stdlib.h>
static int cmp(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;
	return (x > y) - (x < y);
}
int main(void)
{
	int v[200];
	unsigned s = 12345;
	for (int i = 0; i < 200; i++) {
		s = s * 1103515245u + 12345u;
		v[i] = (int)(s >> 16) % 1000;
	}
	qsort(v, 200, sizeof(int), cmp);
	printf("%d %d %d\n", v[0], v[100], v[199]);
	return 0;
}
