/* Very small functions called very often, for bench/overhead.py: a few
 * cycles of work a call, so that the instrumented program's time is
 * mostly what each call and return costs it. Leaf calls in this file and
 * in another object (tinycalls_ext.c), a short chain of calls crossing
 * between the two, and a recursive function. Every function is kept out
 * of line (noipa: no inlining, cloning or interprocedural shortcuts, which
 * gcc -O2 would otherwise take).
 *
 *   tinycalls [REPS]   (the work is proportional to REPS; prints a sum) */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "tinycalls.h"

NOINLINE uint32_t tc_rot(uint32_t x) { return (x << 7) | (x >> 25); }
NOINLINE uint32_t tc_min(uint32_t a, uint32_t b) { return a < b ? a : b; }
NOINLINE uint32_t tc_leaf(uint32_t x) { return x * 2654435761u + 1; }
/* the chain: tc_chain1 -> tc_chain2 -> ext_chain3 (the other object) ->
 * tc_leaf (back in this one) */
NOINLINE uint32_t tc_chain2(uint32_t x) { return ext_chain3(x ^ 0x55u) + 3; }
NOINLINE uint32_t tc_chain1(uint32_t x) { return tc_chain2(x + 1) ^ x; }
/* recursive: depth n, one add a level */
NOINLINE uint32_t tc_tri(uint32_t n) { return n ? n + tc_tri(n - 1) : 0; }

int main(int argc, char **argv)
{
	long reps = argc > 1 ? atol(argv[1]) : 1;
	uint32_t s = 1, t = 0;
	for (long r = 0; r < reps; r++) {
		for (uint32_t i = 0; i < 100000; i++) {
			s = tc_rot(s) + i;
			t += tc_min(s, i);
			s ^= ext_step(s);
			t += ext_add(t, i);
			s += tc_chain1(s);
			t ^= tc_tri(i & 7);
		}
	}
	printf("%u %u\n", s, t);
	return 0;
}
