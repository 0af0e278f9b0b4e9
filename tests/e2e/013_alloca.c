/* alloca and variable-length arrays move %rsp inside a function. */
#include <alloca.h>
#include <stdio.h>
#include <string.h>
__attribute__((noinline)) int use_alloca(int n)
{
	char *p = alloca((size_t)n + 1);
	memset(p, 'a' + n % 26, (size_t)n);
	p[n] = 0;
	return (int)strlen(p) + p[0];
}
__attribute__((noinline)) int use_vla(int n)
{
	int v[n];
	for (int i = 0; i < n; i++)
		v[i] = i * i;
	int s = 0;
	for (int i = 0; i < n; i++)
		s += v[i];
	return s;
}
int main(void)
{
	long s = 0;
	for (int i = 1; i < 60; i++)
		s += use_alloca(i) + use_vla(i);
	printf("%ld\n", s);
	return 0;
}
