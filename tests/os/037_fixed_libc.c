/* Short C library functions that the goldencove model costs instead of
 * timing (tests/lib/ostiming.py, os/fixed_libc): the OS time of their
 * callers is the same in every run, memcpy's grows with its length, and
 * realloc of NULL costs a malloc. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static char src[8192], dst[8192];
static volatile size_t small_len = 64, large_len = 8192;

__attribute__((noinline)) size_t allocs(int n)
{
	size_t s = 0;
	for (int i = 0; i < n; i++) {
		char *p = malloc(small_len);
		p[0] = (char)i;
		s += strlen(src) + (size_t)p[0];
		free(p);
	}
	return s;
}

/* realloc(NULL, n) is a malloc, and costs as much (NULL through a
 * volatile: gcc calls malloc for a literal one) */
static char *volatile none;

__attribute__((noinline)) size_t reallocs(int n)
{
	size_t s = 0;
	for (int i = 0; i < n; i++) {
		char *p = realloc(none, small_len);
		p[0] = (char)i;
		p = realloc(p, large_len);
		s += (size_t)p[0];
		free(p);
	}
	return s;
}

__attribute__((noinline)) void small_copies(int n)
{
	for (int i = 0; i < n; i++)
		memcpy(dst, src, small_len);
}

__attribute__((noinline)) void large_copies(int n)
{
	for (int i = 0; i < n; i++)
		memcpy(dst, src, large_len);
}

int main(void)
{
	memset(src, 'a', 100);
	size_t s = allocs(1000) + reallocs(1000);
	small_copies(1000);
	large_copies(1000);
	printf("%zu %d\n", s, dst[99]);
	return 0;
}
