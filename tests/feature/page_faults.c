/* Page faults charged where they are taken (runtime/faults.c): each
 * function below first touches PAGES pages of memory fresh from mmap, one
 * way or another; tests/run.py's feature/page_faults checks whose faults the
 * profile counts, and what they cost.
 *
 *   touch     stores into each page itself
 *   by_memset has memset (external, costed by the model) do it
 *   by_read   has read(2) from /dev/zero do it: the kernel's faults, in
 *             the system call's measured time, not counted
 *   in_thread touches pages in a thread of its own
 *   reuse     touches pages touch already faulted in: none
 *   many      touches MANY pages, more faults than the runtime's ring of
 *             them holds: the kernel's count makes up for the records
 *             it dropped */
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#define PAGES 256
#define MANY 3000
#define PAGE 4096

static char *fresh_pages(long n)
{
	char *p = mmap(NULL, n * PAGE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		return NULL;
	madvise(p, n * PAGE, MADV_NOHUGEPAGE); /* a fault a page */
	return p;
}

static char *fresh(void)
{
	return fresh_pages(PAGES);
}

__attribute__((noinline)) long touch(char *p)
{
	for (int i = 0; i < PAGES; i++)
		p[i * PAGE] = (char)i;
	return p[PAGE];
}

__attribute__((noinline)) long reuse(char *p)
{
	for (int i = 0; i < PAGES; i++)
		p[i * PAGE] += 1;
	return p[PAGE];
}

__attribute__((noinline)) long many(char *p)
{
	for (int i = 0; i < MANY; i++)
		p[i * PAGE] = 1;
	return p[PAGE];
}

__attribute__((noinline)) long by_memset(char *p)
{
	memset(p, 1, PAGES * PAGE);
	return p[PAGE];
}

__attribute__((noinline)) long by_read(char *p)
{
	int fd = open("/dev/zero", O_RDONLY);
	if (fd < 0)
		return -1;
	long n = read(fd, p, PAGES * PAGE);
	close(fd);
	return n == PAGES * PAGE ? p[PAGE] : -1;
}

__attribute__((noinline)) void *in_thread(void *arg)
{
	char *p = arg;
	for (int i = 0; i < PAGES; i++)
		p[i * PAGE] = 2;
	return NULL;
}

int main(void)
{
	char *a = fresh(), *b = fresh(), *c = fresh(), *d = fresh(), *e = fresh_pages(MANY);
	if (!a || !b || !c || !d || !e)
		return 1;
	long r = touch(a) + reuse(a) + by_memset(b) + by_read(c) + many(e) - 1;
	pthread_t t;
	if (pthread_create(&t, NULL, in_thread, d) || pthread_join(t, NULL))
		return 1;
	printf("%ld %d\n", r, d[PAGE]);
	return 0;
}
