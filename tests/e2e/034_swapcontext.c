// expect: produce calls=1
// expect: step calls=500 callers=produce
// expect: produce callers=<root>
// expect: consume calls=500
/* Coroutines on their own stacks (makecontext/swapcontext): the shadow
 * stack follows the switches, so frames suspended on one stack are not
 * taken for dead while another runs, and every call is counted. */
#include <stdio.h>
#include <stdlib.h>
#include <ucontext.h>
static ucontext_t main_ctx, gen_ctx;
static volatile long value;
static int done;
__attribute__((noinline)) long step(long i)
{
	return i * i % 1009;
}
__attribute__((noinline)) void produce(void)
{
	for (long i = 0; i < 500; i++) {
		value = step(i);
		swapcontext(&gen_ctx, &main_ctx);
	}
	done = 1;
}
__attribute__((noinline)) long consume(long v)
{
	return v + 1;
}
int main(void)
{
	static char stack[1 << 16];
	getcontext(&gen_ctx);
	gen_ctx.uc_stack.ss_sp = stack;
	gen_ctx.uc_stack.ss_size = sizeof(stack);
	gen_ctx.uc_link = &main_ctx;
	makecontext(&gen_ctx, produce, 0);
	long sum = 0;
	while (!done) {
		swapcontext(&main_ctx, &gen_ctx);
		if (!done)
			sum += consume(value);
	}
	printf("%ld\n", sum);
	return 0;
}
