/* Floating-point arguments, in vector registers, through the entry of a
 * function in contexts made as the program runs: each thread's first
 * calls make its nodes (and a thread that follows one that ended reuses
 * its tables), and none of that may touch the arguments.  Run under
 * valgrind, whose CPU has no AVX-512: the C library's memset and memcpy
 * then use %xmm0-15, which the runtime's helpers do not save. */
#include <pthread.h>
#include <stdio.h>

__attribute__((noipa)) static double scale(double x, double y, int k)
{
	return x * y + k;
}

__attribute__((noipa)) static double mix(double a, double b, double c, double d)
{
	return scale(a, b, 1) - scale(c, d, 2);
}

static void *run(void *arg)
{
	long i = (long)arg;
	double r = mix(1.5 + i, 2.5, 3.25, 0.5 * i);
	return (void *)(long)(r * 100);
}

int main(void)
{
	long sum = 0;
	for (long i = 0; i < 8; i++) {
		pthread_t t;
		void *r;
		if (pthread_create(&t, NULL, run, (void *)i) || pthread_join(t, &r))
			return 1;
		sum += (long)r;
	}
	printf("%.2f %ld\n", mix(0.25, 4.0, 1.0, 1.0), sum);
	return 0;
}
