/* The allocator's costs (tests/run.py feature/heap): under a model that
 * costs glibc's paths (zen5), a malloc and free of one block over and over
 * stay in the thread's cache; 64 blocks of one size freed in a row
 * overflow it, and the mallocs that follow refill it from the bins;
 * free(NULL) costs a call; a realloc that grows a block copies it, one
 * that shrinks it keeps it.  Each kind of call is made by a function of
 * its own, which the profile charges with what those calls cost.  A
 * thread has an allocator's cache of its own: blocks another thread freed
 * into its cache do not serve it. */
#include <pthread.h>
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

/* a thread fills its cache with 7 blocks of 200 bytes; the next one
 * takes 7 such blocks, which its own cache does not have */
NOINLINE static void *give7(void *arg)
{
	void *b[7];
	for (int i = 0; i < 7; i++)
		b[i] = malloc(200);
	for (int i = 0; i < 7; i++)
		free(b[i]);
	return arg;
}

NOINLINE static void *take7(void *arg)
{
	void *b[7];
	for (int i = 0; i < 7; i++)
		b[i] = malloc(200);
	for (int i = 0; i < 7; i++)
		sink = b[i];
	return arg;
}

static void in_thread(void *(*f)(void *))
{
	pthread_t t;
	if (pthread_create(&t, NULL, f, NULL) || pthread_join(t, NULL))
		exit(2);
}

int main(void)
{
	pairs(10000);
	batch(1000);
	free_null(10000);
	grow(1000);
	in_thread(give7);
	in_thread(take7);
	puts("ok");
	return 0;
}
