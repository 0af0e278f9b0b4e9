/* An instrumented shared object's first object: loops, a static helper,
 * recursion, a tail call, calls to its other object (through its PLT:
 * -fPIC), a qsort whose comparison is its own (a callback from the C
 * library), a callback into the program through a pointer, and calls of
 * a function the program defines (resolved at load). */
#include <stdlib.h>

int prog_helper(int x);          /* the program's */
int shl_b_mix(int x);            /* shl_b.c's */
int shl_b_twice(int x);

static int square_mod(int i)
{
	return (i * i) % 7;
}

int shl_work(int n)
{
	int s = 0;
	for (int i = 0; i < n; i++)
		s += square_mod(i) + (i & 3 ? shl_b_mix(i) : 0);
	return s;
}

int shl_fib(int n)
{
	return n < 2 ? n : shl_fib(n - 1) + shl_fib(n - 2);
}

static int by_value(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;
	return (x > y) - (x < y);
}

int shl_sort_with(int *v, int n, int (*each)(int))
{
	int s = 0;
	for (int i = 0; i < n; i++)
		s += each(v[i]);
	qsort(v, (size_t)n, sizeof(int), by_value);
	return s;
}

int shl_calls_back(int k)
{
	int s = 0;
	for (int i = 0; i < k; i++)
		s += prog_helper(i);
	return s;
}

/* a tail call to the other object */
int shl_tail(int x)
{
	return shl_b_twice(x + 1);
}

/* calls each(i) for i below n, through the other object: each may leave
 * by longjmp, past this object's frames */
int shl_each(int n, int (*each)(int))
{
	int s = 0;
	for (int i = 0; i < n; i++)
		s += shl_b_mix(i) + each(i);
	return s;
}
