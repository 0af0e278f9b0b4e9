/* The runtime keeps none of the program's file descriptors (runtime/
 * faults.c): under a model that charges page faults every thread has a
 * perf event of its own, and THREADS of them, all alive at once, leave
 * the program as many files to open under a low RLIMIT_NOFILE as it has
 * natively.  tests/run.py's feature/fd_limit compares the count printed with
 * the native one's, and checks that each thread's event still counted its
 * faults (in touch), and that a child forked afterwards counts its own.
 *
 *   ./fd_limit        prints "opened N", N the files it could open */
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#define THREADS 100
#define LIMIT 64 /* fewer descriptors than threads */
#define PAGES 16
#define PAGE 4096

static pthread_barrier_t ready, done;

__attribute__((noinline)) void touch(char *p)
{
	for (int i = 0; i < PAGES; i++)
		p[i * PAGE] = 1;
}

static char *fresh(void)
{
	char *p = mmap(NULL, PAGES * PAGE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		return NULL;
	madvise(p, PAGES * PAGE, MADV_NOHUGEPAGE); /* a fault a page */
	return p;
}

static void *run(void *arg)
{
	touch(arg);
	pthread_barrier_wait(&ready); /* all alive while main opens files */
	pthread_barrier_wait(&done);
	return NULL;
}

int main(void)
{
	struct rlimit r;
	getrlimit(RLIMIT_NOFILE, &r);
	r.rlim_cur = LIMIT;
	if (setrlimit(RLIMIT_NOFILE, &r))
		return 1;
	pthread_barrier_init(&ready, NULL, THREADS + 1);
	pthread_barrier_init(&done, NULL, THREADS + 1);
	pthread_t t[THREADS];
	for (int i = 0; i < THREADS; i++) {
		char *p = fresh();
		if (!p || pthread_create(&t[i], NULL, run, p))
			return 1;
	}
	pthread_barrier_wait(&ready);
	int fds[LIMIT], n = 0;
	while (n < LIMIT && (fds[n] = open("/dev/null", O_RDONLY)) >= 0)
		n++;
	printf("opened %d\n", n);
	fflush(stdout);
	while (n)
		close(fds[--n]);
	pthread_barrier_wait(&done);
	for (int i = 0; i < THREADS; i++)
		pthread_join(t[i], NULL);
	/* a child's faults are its own event's */
	char *p = fresh();
	pid_t pid = p ? fork() : -1;
	if (pid == 0) {
		touch(p);
		exit(0);
	}
	int st;
	return pid > 0 && waitpid(pid, &st, 0) == pid && WIFEXITED(st) && !WEXITSTATUS(st) ? 0 : 1;
}
