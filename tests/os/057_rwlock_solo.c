/* A read-write lock's locks and unlocks, which the timing models that cost
 * them charge at their fixed cost while the process has one thread and the
 * lock is its own, and measure otherwise (tests/lib/exttime.py,
 * os/rwlock_solo): 1000 read locks and unlocks (reading) and 1000 write
 * locks and unlocks (writing) of a plain lock before any thread, 1000 read
 * locks and unlocks of one shared between processes (shared), then, after a
 * thread has run, 1000 write locks and unlocks of the plain one again
 * (after). */
#include <pthread.h>
#include <stdio.h>

static pthread_rwlock_t plain = PTHREAD_RWLOCK_INITIALIZER, pshared;
static volatile int n;

/* (a loop in each function: each is the locks' caller) */
#define PAIRS(lock, l)                                                                                                 \
	for (int i = 0; i < 1000; i++) {                                                                               \
		lock(l);                                                                                               \
		n++;                                                                                                   \
		pthread_rwlock_unlock(l);                                                                              \
	}

__attribute__((noinline, noipa)) static void reading(void) { PAIRS(pthread_rwlock_rdlock, &plain) }
__attribute__((noinline, noipa)) static void writing(void) { PAIRS(pthread_rwlock_wrlock, &plain) }
__attribute__((noinline, noipa)) static void shared(void) { PAIRS(pthread_rwlock_rdlock, &pshared) }
__attribute__((noinline, noipa)) static void after(void) { PAIRS(pthread_rwlock_wrlock, &plain) }

static void *worker(void *arg)
{
	n++;
	return arg;
}

int main(void)
{
	pthread_rwlockattr_t a;
	pthread_rwlockattr_init(&a);
	pthread_rwlockattr_setpshared(&a, PTHREAD_PROCESS_SHARED);
	pthread_rwlock_init(&pshared, &a);
	reading();
	writing();
	shared();
	pthread_t t;
	if (pthread_create(&t, NULL, worker, NULL) || pthread_join(t, NULL))
		return 1;
	after();
	printf("%d\n", n);
	return 0;
}
