/* A return's cost beyond a taken jump is charged to the caller, where the
 * front end resumes (as a sampling profiler sees it), not to the function
 * returning.  leaf is one block, `lea 1(%rdi),%eax; ret`: under
 * --cpu=goldencove it costs 1 cycle (a taken jump's least cost; two
 * micro-ops of six a cycle are less), and its return 1.75 cycles in all:
 * 0.75 go to main.  (Under zen5 the runtime charges a return's bubble to
 * the caller: tests/feature/frontend.c.)
 * tests/run.py (feature/ret_at_caller) checks the profile's exact figures. */
#include <stdio.h>

__asm__(".text\n"
	".globl leaf\n"
	".type leaf, @function\n"
	"leaf:\n"
	"	lea 1(%rdi), %eax\n"
	"	ret\n"
	".size leaf, .-leaf\n");
int leaf(int x);

int main(void)
{
	int s = 0;
	for (int i = 0; i < 1000000; i++)
		s = leaf(s);
	printf("%d\n", s);
	return 0;
}
