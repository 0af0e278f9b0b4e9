/* One call site through a pointer that reaches 256 small functions in
 * turn (an interpreter's dispatch to its built-in functions, a table of
 * handlers): what a call through a pointer costs when its target is
 * another function than last time, nearly every time.
 *
 *   polycalls ROUNDS      (each round: 256 calls through the site)
 */
#include <stdio.h>
#include <stdlib.h>

#define F(i) __attribute__((noinline)) static long f##i(long x) { return x * (2 * i + 1) + i; }
#define F4(i) F(i##0) F(i##1) F(i##2) F(i##3)
#define F16(i) F4(i##0) F4(i##1) F4(i##2) F4(i##3)
#define F64(i) F16(i##0) F16(i##1) F16(i##2) F16(i##3)
F64(1) F64(2) F64(3) F64(4)

#define P(i) f##i,
#define P4(i) P(i##0) P(i##1) P(i##2) P(i##3)
#define P16(i) P4(i##0) P4(i##1) P4(i##2) P4(i##3)
#define P64(i) P16(i##0) P16(i##1) P16(i##2) P16(i##3)
static long (*const table[])(long) = {P64(1) P64(2) P64(3) P64(4)};
#define N (sizeof(table) / sizeof(table[0]))

__attribute__((noinline)) long through(long (*f)(long), long x)
{
	return f(x);
}

int main(int argc, char **argv)
{
	long rounds = argc > 1 ? atol(argv[1]) : 1000, s = 1;
	for (long r = 0; r < rounds; r++)
		for (unsigned i = 0; i < N; i++)
			s = through(table[(i * 97) % N], s); /* (97: odd, every entry once a round) */
	printf("%ld\n", s);
	return 0;
}
