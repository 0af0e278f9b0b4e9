/* Calls through a pointer into a shared library: counted and timed as
 * externals under their caller, named by the symbol the program linked. */
// expect: <external:strlen> calls=1010
// expect: <external:strchr> calls=10 callers=search
#include <stdio.h>
#include <string.h>

/* opaque to the compiler: it cannot call strlen directly */
size_t (*volatile len_of)(const char *) = strlen;

__attribute__((noinline)) size_t measure(const char *s)
{
	size_t n = 0;
	for (int i = 0; i < 1000; i++)
		n += len_of(s + (i & 3));
	return n;
}

/* a tail call through the pointer (jmp *%rax at -O2): the function
 * returns with the external */
__attribute__((noinline, noclone)) size_t tail_len(const char *s)
{
	return len_of(s);
}

/* the address taken at run time, through the GOT */
__attribute__((noinline)) size_t search(const char *s, char *(*volatile *pp)(const char *, int))
{
	size_t n = 0;
	for (int i = 0; i < 10; i++)
		n += (size_t)((*pp)(s, 'a' + i) != NULL);
	return n;
}

int main(void)
{
	static char *(*volatile finder)(const char *, int);
	finder = strchr;
	size_t t = 0;
	for (int i = 0; i < 10; i++)
		t += tail_len("tail");
	printf("%zu %zu %zu\n", measure("hello, world"), search("abcdefg", &finder), t);
	return 0;
}
