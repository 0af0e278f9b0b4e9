// callgrind: no
// profiles: 2
// expect: child_work calls=3
// expect: parent_work calls=2
/* fork: the child writes its own profile, covering it from the fork on. */
#include <stdio.h>
#include <sys/wait.h>
#include <unistd.h>
__attribute__((noinline)) long child_work(long n)
{
	long s = 0;
	for (long i = 0; i < n; i++)
		s += i & 3;
	return s;
}
__attribute__((noinline)) long parent_work(long n) { return child_work(0) + n; }
int main(void)
{
	fflush(stdout);
	pid_t pid = fork();
	if (pid == 0) {
		long s = child_work(10) + child_work(20) + child_work(30);
		printf("child %ld\n", s);
		return 0;
	}
	int st;
	waitpid(pid, &st, 0);
	printf("parent %ld %d\n", parent_work(1) + parent_work(2), WEXITSTATUS(st));
	return 0;
}
