// callgrind: no
// expect: prepare calls=4
/* exec: the profile of the image that execs is written before it goes. */
#include <stdio.h>
#include <unistd.h>
__attribute__((noinline)) int prepare(int x) { return x * x + 1; }
int main(void)
{
	int s = 0;
	for (int i = 0; i < 4; i++)
		s += prepare(i);
	printf("before exec %d\n", s);
	fflush(stdout);
	execl("/bin/echo", "echo", "after exec", (char *)0);
	return 1;
}
