/* An exec that fails: the program goes on, and its profile holds what it
 * did after as well as before. */
#include <stdio.h>
#include <unistd.h>

__attribute__((noinline)) static int before(int x)
{
	return x * 3 + 1;
}

__attribute__((noinline)) static int after(int x)
{
	return x * 5 + 2;
}

int main(void)
{
	int s = 0;
	for (int i = 0; i < 1000; i++)
		s += before(i);
	char *argv[] = {"/nonexistent/program", NULL};
	execv(argv[0], argv);
	for (int i = 0; i < 2000; i++)
		s += after(i);
	printf("exec failed, went on: %d\n", s);
	return 0;
}
