/* rep-prefixed string instructions: their cost depends on %rcx at run time. */
#include <stdio.h>
#include <string.h>
__attribute__((noinline)) void copy(char *d, const char *s, unsigned long n)
{
	__asm__ volatile("rep movsb" : "+D"(d), "+S"(s), "+c"(n) : : "memory");
}
__attribute__((noinline)) int compare(const char *a, const char *b, unsigned long n)
{
	unsigned char eq;
	__asm__ volatile("repe cmpsb\n\tsete %0" : "=r"(eq), "+D"(a), "+S"(b), "+c"(n) : : "memory", "cc");
	return eq;
}
__attribute__((noinline)) unsigned long find(const char *s, unsigned long n, char c)
{
	unsigned long left = n;
	__asm__ volatile("repne scasb" : "+D"(s), "+c"(left) : "a"(c) : "memory", "cc");
	return n - left;
}
int main(void)
{
	char a[64], b[64];
	memset(a, 'x', sizeof(a));
	unsigned long t = 0;
	for (unsigned long n = 0; n < 20; n++) {
		copy(b, a, n);
		b[n / 2] = 'y';
		t += (unsigned long)compare(a, b, n) + find(a, n, 'x') + find(b, n, 'y');
	}
	printf("%lu\n", t);
	return 0;
}
