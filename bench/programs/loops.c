/* Tight compute-bound loops for bench/programs.py: each function is one
 * kind of loop, so each has its own cycles-per-instruction and its own
 * share of the time. Data stays in L1/L2; no libc in the hot path.
 *
 *   loops [REPS]   (the work is proportional to REPS) */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#define NOINLINE __attribute__((noinline, noipa))

enum { N = 4096 };
static uint32_t arr[N];
static double vec[N];

/* independent integer arithmetic: several operations per iteration that
 * the core can overlap */
NOINLINE uint64_t int_mix(uint64_t n)
{
	uint64_t a = 1, b = 2, c = 3;
	for (uint64_t i = 0; i < n; i++) {
		a += i ^ (b >> 3);
		b = b * 5 + (c & 0xff);
		c ^= a + (i << 2);
	}
	return a + b + c;
}

/* one long dependency chain through a multiply: latency-bound */
NOINLINE uint64_t mul_chain(uint64_t n, uint64_t x)
{
	for (uint64_t i = 0; i < n; i++)
		x = x * 0x9e3779b97f4a7c15ull + 1;
	return x;
}

/* floating-point divide chain: a long-latency unit */
NOINLINE double div_chain(uint64_t n, double x)
{
	for (uint64_t i = 0; i < n; i++)
		x = 1.0 / (x + 1.0) + 0.5;
	return x;
}

/* array sum: loads and adds, throughput-bound */
NOINLINE uint64_t array_sum(int reps)
{
	uint64_t s = 0;
	for (int r = 0; r < reps; r++)
		for (int i = 0; i < N; i++)
			s += arr[i];
	return s;
}

/* dot product of doubles (strict FP: one add chain) */
NOINLINE double dot(int reps)
{
	double s = 0;
	for (int r = 0; r < reps; r++)
		for (int i = 0; i < N; i++)
			s += vec[i] * vec[N - 1 - i];
	return s;
}

/* a loop with a data-dependent, well-predicted branch and a store */
NOINLINE uint32_t clamp_scan(int reps)
{
	uint32_t hits = 0;
	for (int r = 0; r < reps; r++)
		for (int i = 0; i < N; i++) {
			uint32_t v = arr[i];
			if (v > 0xf0000000u) /* rare */
				arr[i] = v >> 1, hits++;
			else
				hits += v & 1;
		}
	return hits;
}

/* nested loops over a small matrix (integer multiply-add) */
NOINLINE uint64_t matmul(int reps)
{
	enum { M = 32 };
	static uint32_t a[M][M], b[M][M], c[M][M];
	for (int i = 0; i < M; i++)
		for (int j = 0; j < M; j++)
			a[i][j] = (uint32_t)(i * 7 + j), b[i][j] = (uint32_t)(i ^ j);
	for (int r = 0; r < reps; r++)
		for (int i = 0; i < M; i++)
			for (int j = 0; j < M; j++) {
				uint32_t s = 0;
				for (int k = 0; k < M; k++)
					s += a[i][k] * b[k][j];
				c[i][j] = s + (uint32_t)r;
			}
	uint64_t t = 0;
	for (int i = 0; i < M; i++)
		t += c[i][i];
	return t;
}

int main(int argc, char **argv)
{
	long reps = argc > 1 ? atol(argv[1]) : 1;
	uint32_t x = 12345;
	for (int i = 0; i < N; i++) {
		x = x * 1103515245u + 12345u;
		arr[i] = x;
		vec[i] = (double)(x >> 8) / 16777216.0;
	}
	uint64_t h = 0;
	double d = 0;
	for (long r = 0; r < reps; r++) {
		h += int_mix(1000000);
		h += mul_chain(1000000, h);
		d += div_chain(150000, d);
		h += array_sum(400);
		d += dot(150);
		h += clamp_scan(200);
		h += matmul(20);
	}
	printf("%llu %.6f\n", (unsigned long long)h, d);
	return 0;
}
