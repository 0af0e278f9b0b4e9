/* Waits, each 20 ms long: a contended mutex, a condition, a blocking pipe
 * read, a barrier, a sleep, and the joins; and a read of a regular file,
 * which is work.  Under a cycle model the waits' time is measured and left
 * out (waited), unless profinst --charge-waits (tests/lib/exttime.py,
 * os/waits). */
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <unistd.h>

#define MS 20000
#define NB 8

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER, cmu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cv = PTHREAD_COND_INITIALIZER;
static pthread_barrier_t bar;
static int ready, fds[2];

__attribute__((noinline)) static void *lock_waiter(void *arg)
{
	pthread_mutex_lock(&mu); /* main holds it for 20 ms */
	pthread_mutex_unlock(&mu);
	return arg;
}

__attribute__((noinline)) static void *cond_waiter(void *arg)
{
	pthread_mutex_lock(&cmu);
	while (!ready)
		pthread_cond_wait(&cv, &cmu);
	pthread_mutex_unlock(&cmu);
	return arg;
}

__attribute__((noinline)) static void *pipe_reader(void *arg)
{
	char c = 0;
	if (read(fds[0], &c, 1) != 1)
		return NULL;
	return c == 'x' ? arg : NULL;
}

__attribute__((noinline)) static void *barrier_waiter(void *arg)
{
	pthread_barrier_wait(&bar);
	return arg;
}

__attribute__((noinline)) static long file_reader(const char *path)
{
	char buf[4096];
	long n = 0, r;
	int fd = open(path, O_RDONLY);
	while (fd >= 0 && (r = read(fd, buf, sizeof buf)) > 0)
		n += r;
	close(fd);
	return n;
}

__attribute__((noinline)) static void sleeper(void)
{
	usleep(MS);
}

int main(int argc, char **argv)
{
	(void)argc;
	pthread_t t[3 + NB];
	if (pipe(fds))
		return 1;
	pthread_barrier_init(&bar, NULL, NB + 1);
	pthread_mutex_lock(&mu);
	pthread_create(&t[0], NULL, lock_waiter, NULL);
	pthread_create(&t[1], NULL, cond_waiter, NULL);
	pthread_create(&t[2], NULL, pipe_reader, NULL);
	for (int i = 0; i < NB; i++)
		pthread_create(&t[3 + i], NULL, barrier_waiter, NULL);
	sleeper(); /* every thread waits meanwhile */
	pthread_mutex_unlock(&mu);
	pthread_mutex_lock(&cmu);
	ready = 1;
	pthread_cond_signal(&cv);
	pthread_mutex_unlock(&cmu);
	if (write(fds[1], "x", 1) != 1)
		return 1;
	pthread_barrier_wait(&bar);
	for (int i = 0; i < 3 + NB; i++)
		pthread_join(t[i], NULL);
	printf("%d\n", file_reader(argv[0]) > 0);
	return 0;
}
