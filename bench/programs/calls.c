/* Tiny functions called very often, for bench/programs.py: the cost is
 * mostly calls and returns, argument passing and short bodies. Every
 * function is kept out of line (noipa: no inlining, cloning or
 * interprocedural shortcuts), as gcc -O2 would otherwise fold them away.
 *
 *   calls [REPS]   (the work is proportional to REPS) */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#define NOINLINE __attribute__((noinline, noipa))

struct point {
	int x, y;
};

NOINLINE int add1(int x) { return x + 1; }
NOINLINE int max2(int a, int b) { return a > b ? a : b; }
NOINLINE uint32_t hash32(uint32_t x)
{
	x ^= x >> 16;
	x *= 0x7feb352du;
	x ^= x >> 15;
	return x;
}
NOINLINE int get_x(const struct point *p) { return p->x; }
NOINLINE void set_y(struct point *p, int v) { p->y = v; }
NOINLINE int dist1(const struct point *a, const struct point *b)
{
	int dx = a->x - b->x, dy = a->y - b->y;
	return (dx < 0 ? -dx : dx) + (dy < 0 ? -dy : dy);
}
NOINLINE long fib(int n) { return n < 2 ? n : fib(n - 1) + fib(n - 2); }
NOINLINE int twice(int (*f)(int), int x) { return f(f(x)); }
NOINLINE int mix3(int a, int b, int c) { return max2(a, b) + add1(c); }

int main(int argc, char **argv)
{
	long reps = argc > 1 ? atol(argv[1]) : 1;
	struct point p[16];
	for (int i = 0; i < 16; i++)
		p[i].x = i * 3, p[i].y = 100 - i;
	uint64_t s = 0;
	for (long r = 0; r < reps; r++) {
		for (int i = 0; i < 200000; i++) {
			s += (uint64_t)add1(i);
			s += (uint32_t)max2(i, (int)s);
			s ^= hash32((uint32_t)i + (uint32_t)s);
			struct point *q = &p[i & 15];
			set_y(q, get_x(q) + i);
			s += (uint64_t)dist1(q, &p[(i + 5) & 15]);
			s += (uint64_t)twice(add1, i);
			s += (uint64_t)mix3(i, i >> 1, i >> 2);
		}
		s += (uint64_t)fib(25);
	}
	printf("%llu\n", (unsigned long long)s);
	return 0;
}
