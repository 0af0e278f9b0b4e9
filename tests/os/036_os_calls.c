/* OS calls under a cycle model: reads and writes (charged, in the OS
 * column), a sleep and a poll (waits: measured, left out unless
 * --charge-waits), raw syscall instructions, and qsort calling back into
 * instrumented code (the comparator nests under <external:qsort>). */
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static int cmp(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;
	return (x > y) - (x < y);
}

__attribute__((noinline)) void sorter(int *v, int n)
{
	qsort(v, (size_t)n, sizeof(int), cmp);
}

__attribute__((noinline)) long copier(const char *path)
{
	char buf[4096];
	long total = 0;
	int in = open(path, O_RDONLY), out = open("/dev/null", O_WRONLY);
	if (in < 0 || out < 0)
		return -1;
	for (int round = 0; round < 20; round++) {
		ssize_t n;
		lseek(in, 0, SEEK_SET);
		while ((n = read(in, buf, sizeof(buf))) > 0)
			total += write(out, buf, (size_t)n);
	}
	close(in);
	close(out);
	return total;
}

__attribute__((noinline)) void sleeper(void)
{
	struct timespec ts = {0, 30 * 1000 * 1000};
	nanosleep(&ts, NULL);
	poll(NULL, 0, 20);
}

__attribute__((noinline)) long raw_getpid(int times)
{
	long s = 0;
	for (int i = 0; i < times; i++) {
		long r;
		__asm__ volatile("syscall" : "=a"(r) : "0"(39L) : "rcx", "r11", "memory");
		s += r & 1;
	}
	return s;
}

int main(int argc, char **argv)
{
	int v[2000];
	for (int i = 0; i < 2000; i++)
		v[i] = (i * 7919) % 2000;
	sorter(v, 2000);
	long copied = copier(argv[0]);
	sleeper();
	long odd = raw_getpid(2000);
	printf("%d %d %d %d\n", v[0], v[1999], copied > 0, odd == 0 || odd == 2000);
	return argc > 1 ? 3 : 0;
}
