// callgrind: no
// profiles: 2
// expect: first_image calls=7
// expect: second_image calls=11
/* An instrumented program that execs an instrumented program (itself, told
 * to be the second image): each image writes its own profile, the exec'd
 * one under its pid and ".x1", and neither overwrites the other. */
#include <stdio.h>
#include <string.h>
#include <unistd.h>
__attribute__((noinline)) int first_image(int x) { return x * 3 + 1; }
__attribute__((noinline)) int second_image(int x) { return x * 5 + 2; }
int main(int argc, char **argv)
{
	int s = 0;
	if (argc > 1 && !strcmp(argv[1], "second")) {
		for (int i = 0; i < 11; i++)
			s += second_image(i);
		printf("second image %d\n", s);
		return 0;
	}
	for (int i = 0; i < 7; i++)
		s += first_image(i);
	printf("first image %d\n", s);
	fflush(stdout);
	execl("/proc/self/exe", argv[0], "second", (char *)0);
	return 1;
}
