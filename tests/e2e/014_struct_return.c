/* Big structures returned through a hidden pointer, small ones in rax:rdx. */
#include <stdio.h>
struct big { long v[12]; };
struct pair { long a, b; };
__attribute__((noinline)) struct big make_big(long x)
{
	struct big b;
	for (int i = 0; i < 12; i++)
		b.v[i] = x * i;
	return b;
}
__attribute__((noinline)) struct pair make_pair(long x) { return (struct pair){x, x * x}; }
__attribute__((noinline)) double halve(double x) { return x / 2; }
int main(void)
{
	long s = 0;
	double d = 0;
	for (int i = 0; i < 50; i++) {
		struct big b = make_big(i);
		struct pair p = make_pair(i);
		s += b.v[11] + p.a + p.b;
		d += halve(i);
	}
	printf("%ld %.1f\n", s, d);
	return 0;
}
