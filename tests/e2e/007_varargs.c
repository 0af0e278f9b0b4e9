/* Variadic functions: %al carries the vector register count. */
#include <stdarg.h>
#include <stdio.h>
__attribute__((noinline)) double sum(int n, ...)
{
	va_list ap;
	double s = 0;
	va_start(ap, n);
	for (int i = 0; i < n; i++)
		s += va_arg(ap, double);
	va_end(ap);
	return s;
}
__attribute__((noinline)) long isum(int n, ...)
{
	va_list ap;
	long s = 0;
	va_start(ap, n);
	for (int i = 0; i < n; i++)
		s += va_arg(ap, long);
	va_end(ap);
	return s;
}
int main(void)
{
	double d = 0;
	long l = 0;
	for (int i = 0; i < 20; i++) {
		d += sum(4, 1.5, 2.5, (double)i, 0.25);
		l += isum(9, 1L, 2L, 3L, 4L, 5L, 6L, 7L, 8L, (long)i);
	}
	printf("%.2f %ld\n", d, l);
	return 0;
}
