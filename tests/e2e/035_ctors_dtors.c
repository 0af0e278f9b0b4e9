// expect: init_table calls=1
// expect: fill calls=64
// expect: fini_report calls=1
// expect: at_exit calls=1 callers=<external:exit>
/* Constructors (.init_array) run before main and destructors (.fini_array)
 * and atexit handlers after it: all profiled, counted exactly; an atexit
 * handler runs under the exit() that calls it. */
#include <stdio.h>
#include <stdlib.h>
static int table[64];
static volatile long sink;
static volatile int size = 64; /* or clang computes the table at compile time */
__attribute__((noinline)) void fill(int i)
{
	table[i] = i * i;
}
__attribute__((constructor)) static void init_table(void)
{
	for (int i = 0; i < size; i++)
		fill(i);
}
__attribute__((destructor)) static void fini_report(void)
{
	long s = 0;
	for (int i = 0; i < 64; i++)
		s += table[i];
	sink = s;
}
static void at_exit(void)
{
	sink += table[3];
}
int main(void)
{
	atexit(at_exit);
	printf("%d\n", table[63]);
	exit(0);
}
