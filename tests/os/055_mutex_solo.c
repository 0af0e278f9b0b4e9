/* A mutex's lock and unlock, which the timing models that cost them charge
 * at their fixed cost while the process has one thread and the mutex is a
 * plain one of its own, and measure otherwise (tests/lib/exttime.py,
 * os/mutex_solo): 1000 pairs on a plain mutex before any thread (solo),
 * on one shared between processes (shared) and on a recursive one taken
 * twice (nested, which stays plain), then, after a thread has run, 1000
 * pairs on the plain mutex again (after). */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>

static pthread_mutex_t plain = PTHREAD_MUTEX_INITIALIZER, pshared, rec;
static volatile int n;

/* (a loop in each function: each is the locks' caller) */
#define PAIRS(m)                                                                                                       \
	for (int i = 0; i < 1000; i++) {                                                                               \
		pthread_mutex_lock(m);                                                                                 \
		n++;                                                                                                   \
		pthread_mutex_unlock(m);                                                                               \
	}

__attribute__((noinline, noipa)) static void solo(void) { PAIRS(&plain) }
__attribute__((noinline, noipa)) static void shared(void) { PAIRS(&pshared) }
__attribute__((noinline, noipa)) static void nested(void)
{
	pthread_mutex_lock(&rec);
	PAIRS(&rec)
	pthread_mutex_unlock(&rec);
}
__attribute__((noinline, noipa)) static void after(void) { PAIRS(&plain) }

static void *worker(void *arg)
{
	n++;
	return arg;
}

int main(void)
{
	pthread_mutexattr_t a;
	pthread_mutexattr_init(&a);
	pthread_mutexattr_setpshared(&a, PTHREAD_PROCESS_SHARED);
	pthread_mutex_init(&pshared, &a);
	pthread_mutexattr_init(&a);
	pthread_mutexattr_settype(&a, PTHREAD_MUTEX_RECURSIVE);
	pthread_mutex_init(&rec, &a);
	solo();
	shared();
	nested();
	pthread_t t;
	if (pthread_create(&t, NULL, worker, NULL) || pthread_join(t, NULL))
		return 1;
	after();
	printf("%d\n", n);
	return 0;
}
