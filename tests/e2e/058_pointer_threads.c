// ldflags: -lpthread
/* One call site through a pointer that reaches five functions, in a
 * different order in each of several threads run one after another: an
 * ended thread's nodes and tables go to the next thread, which makes its
 * own nodes in the same memory, in another order, so that nothing the
 * runtime remembered of a pointer's callees may outlive its thread. */
#include <pthread.h>
#include <stdio.h>

__attribute__((noinline)) static long f0(long x) { return x + 1; }
__attribute__((noinline)) static long f1(long x) { return x * 3; }
__attribute__((noinline)) static long f2(long x) { return x ^ 0x55; }
__attribute__((noinline)) static long f3(long x) { return x - 7; }
__attribute__((noinline)) static long f4(long x)
{
	for (int i = 0; i < 3; i++)
		x = x * 5 + i;
	return x;
}
long (*const table[])(long) = {f0, f1, f2, f3, f4};

__attribute__((noinline)) long through(long (*f)(long), long x) { return f(x); }

static void *run(void *arg)
{
	long k = (long)arg, s = k;
	/* the first target differs from thread to thread; then each goes
	 * through the table in its own stride */
	for (int i = 0; i < 200; i++)
		s = through(table[(k + i * (k + 1)) % 5], s) & 0xffff;
	return (void *)s;
}

int main(void)
{
	long total = 0;
	for (long k = 0; k < 5; k++) {
		pthread_t t;
		void *r;
		pthread_create(&t, NULL, run, (void *)k);
		pthread_join(t, &r);
		total += (long)r;
	}
	printf("%ld\n", total);
	return 0;
}
