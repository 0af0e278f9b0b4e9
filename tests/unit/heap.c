/* The allocator's costs (tests/run.py unit/heap): under a model that
 * costs glibc's paths (zen5), a malloc and free of one block over and over
 * stay in the thread's cache; 64 blocks of one size freed in a row
 * overflow it, and the mallocs that follow refill it from the bins;
 * free(NULL) costs a call; a realloc that grows a block copies it, one
 * that shrinks it keeps it.  Each kind of call is made by a function of
 * its own, which the profile charges with what those calls cost. */
#include <stdio.h>
#include <stdlib.h>

#define NOINLINE __attribute__((noinline, noipa))

static void *volatile sink;
static void *blk[64];

NOINLINE static void pairs(int n)
{
	for (int i = 0; i < n; i++) {
		void *p = malloc(40);
		sink = p;
		free(p);
	}
}

NOINLINE static void batch(int rounds)
{
	for (int r = 0; r < rounds; r++) {
		for (int i = 0; i < 64; i++)
			blk[i] = malloc(40);
		for (int i = 0; i < 64; i++)
			free(blk[i]);
	}
}

NOINLINE static void free_null(int n)
{
	for (int i = 0; i < n; i++)
		free(sink == blk ? blk : NULL);
}

/* 100 bytes grown to 4000 (a copy of the 112-byte chunk's 104 bytes),
 * then shrunk to 50 (kept: glibc cuts the chunk to 64 bytes), then
 * freed */
NOINLINE static void grow(int n)
{
	for (int i = 0; i < n; i++) {
		char *p = malloc(100);
		p = realloc(p, 4000);
		p = realloc(p, 50);
		sink = p;
		free(p);
	}
}

int main(void)
{
	pairs(10000);
	batch(1000);
	free_null(10000);
	grow(1000);
	puts("ok");
	return 0;
}
