/* Callbacks from the C library, many of them: qsort's and bsearch's
 * comparisons, some nested (a comparison that sorts, so that a callback's
 * callback runs under another external's node), and some left by a
 * longjmp out of qsort, whose trampoline record stays in the table until a
 * later callback from below finds its frame gone.  Every comparison is a
 * call from outside; the second and later of each context take the entry
 * helper's and the trampoline's assembly, the others their C half. */
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>

static jmp_buf out;
static long compared, limit;

static int by_value(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;
	if (++compared == limit)
		longjmp(out, 1);
	return (x > y) - (x < y);
}

/* rows of four by the sum of their least and greatest: each comparison
 * sorts copies of its two rows */
static int by_span(const void *a, const void *b)
{
	int x[4], y[4];
	for (int i = 0; i < 4; i++) {
		x[i] = ((const int *)a)[i];
		y[i] = ((const int *)b)[i];
	}
	qsort(x, 4, sizeof(int), by_value);
	qsort(y, 4, sizeof(int), by_value);
	int sx = x[0] + x[3], sy = y[0] + y[3];
	return (sx > sy) - (sx < sy);
}

int main(void)
{
	static int v[600], rows[48][4];
	unsigned s = 2024;
	long found = 0, left = 0;
	for (int round = 0; round < 12; round++) {
		for (int i = 0; i < 600; i++) {
			s = s * 1103515245u + 12345u;
			v[i] = (int)(s >> 16) % 5000;
		}
		/* every third round, a comparison part of the way in leaves */
		limit = round % 3 == 1 ? compared + 100 + 37 * round : -1;
		if (setjmp(out)) {
			left++;
			continue;
		}
		qsort(v, 600, sizeof(int), by_value);
		for (int k = 0; k < 5000; k += 7)
			found += bsearch(&k, v, 600, sizeof(int), by_value) != NULL;
	}
	for (int i = 0; i < 48; i++)
		for (int j = 0; j < 4; j++) {
			s = s * 1103515245u + 12345u;
			rows[i][j] = (int)(s >> 16) % 1000;
		}
	limit = -1;
	qsort(rows, 48, sizeof(rows[0]), by_span);
	printf("%ld %ld %ld %d %d\n", compared, found, left, rows[0][0], rows[47][3]);
	return 0;
}
