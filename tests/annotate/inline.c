/* Code inlined at -O2: step inlined into run, mix and rot into step.
 * Of the 3000 steps, 1000 take mix (v % 3 == 0) and 2000 rot; each helper
 * calls a function of its own, so that no compiler merges their paths or
 * turns them into a select.  tests/lib/inline.py finds the lines by their
 * comments. */
#include <stdio.h>

volatile unsigned sink_v;
__attribute__((noinline)) void sink_a(unsigned v) { sink_v = v; }
__attribute__((noinline)) void sink_b(unsigned v) { sink_v = v + 1; }

static inline unsigned mix(unsigned h, unsigned v)
{
	h = (h ^ v) * 16777619u;
	sink_a(h); /* MIX SINK */
	return h;
}

static inline unsigned rot(unsigned h, unsigned v)
{
	h = (h << 5 | h >> 27) + v;
	sink_b(h); /* ROT SINK */
	return h;
}

static inline unsigned step(unsigned h, unsigned v)
{
	if (v % 3 == 0) /* STEP TEST */
		h = mix(h, v); /* CALL MIX */
	else
		h = rot(h, v); /* CALL ROT */
	return h;
}

__attribute__((noinline)) unsigned run(const unsigned *a, int n)
{
	unsigned h = 2166136261u;
	for (int i = 0; i < n; i++)
		h = step(h, a[i]); /* CALL STEP */
	return h;
}

int main(void)
{
	enum { N = 3000 };
	static unsigned a[N];
	for (int i = 0; i < N; i++)
		a[i] = (unsigned)i;
	printf("%u\n", run(a, N));
	return 0;
}
