/* Code that runs on a stack low in the address space, where the counting
 * runtime keeps no frame nodes (runtime/framenodes.c): a context on a
 * stack mapped at the address given (in hex: low, or high where Linux puts
 * stacks), calls before, on and after it, and a thread beside.  Both must
 * give the same profile.
 *
 *   low_stack ADDRESS */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <ucontext.h>

#define STACK (256 << 10)

static ucontext_t main_ctx, co_ctx;
static volatile long sink;

__attribute__((noipa)) static long leaf(long x)
{
	return x * 7 + 3;
}

__attribute__((noipa)) static long work(long n)
{
	long s = 0;
	for (long i = 0; i < n; i++)
		s += leaf(i);
	return s;
}

__attribute__((noipa)) static void on_low(void)
{
	for (int i = 0; i < 3; i++) {
		sink += work(100);
		swapcontext(&co_ctx, &main_ctx); /* back and forth */
	}
}

static void *beside(void *arg)
{
	(void)arg;
	for (int i = 0; i < 10; i++)
		sink += work(50);
	return NULL;
}

int main(int argc, char **argv)
{
	void *want = (void *)strtoul(argc > 1 ? argv[1] : "0x30000000", NULL, 16);
	void *st = mmap(want, STACK, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);
	if (st != want) {
		perror("mmap");
		return 1;
	}
	sink += work(10);
	getcontext(&co_ctx);
	co_ctx.uc_stack.ss_sp = st;
	co_ctx.uc_stack.ss_size = STACK;
	co_ctx.uc_link = &main_ctx;
	makecontext(&co_ctx, on_low, 0);
	for (int i = 0; i < 4; i++) { /* the last one comes back by uc_link */
		swapcontext(&main_ctx, &co_ctx);
		sink += work(20);
	}
	pthread_t t;
	if (pthread_create(&t, NULL, beside, NULL) || pthread_join(t, NULL))
		return 1;
	sink += work(30);
	printf("%ld\n", (long)sink);
	return 0;
}
