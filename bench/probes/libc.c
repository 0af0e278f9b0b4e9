/* What short libc functions cost on this machine, in the steady state of a
 * program calling them over and over (their work overlapping with the
 * caller's, as natively): the fixed costs the goldencove and zen5 models
 * charge for them instead of timing each call (rewriter/external.c).  Run
 * by bench/probes.py.
 *
 * Each test runs REPS calls, 300 times; the fastest is converted to core
 * cycles by a chain of dependent register adds timed the same way.  The
 * loop's own cost is measured the same way and taken off.  Sizes sweep so
 * that a per-byte cost can be fitted: cost(n) = a + b n. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <ctype.h>
#include <errno.h>
#include <pthread.h>
#include <x86intrin.h>

#define REPS 20000
#define NOINLINE __attribute__((noinline, noipa))

__asm__(".text\ncalib: mov $1000,%ecx\n1: .rept 100\n add %rdx,%rax\n .endr\n dec %ecx\n jnz 1b\n ret\n");
void calib(void);

/* memset writes a buffer of its own: src and dst stay equal, so that memcmp
 * and strcmp compare n bytes (measured on differing buffers they stop at
 * the first and cost the same at every n) */
static char src[1 << 16], dst[1 << 16], set_dst[1 << 16];
static volatile size_t sink;
static size_t n_arg;

NOINLINE static void t_empty(void)
{
	for (int i = 0; i < REPS; i++)
		sink = n_arg;
}
NOINLINE static void t_malloc_free(void)
{
	for (int i = 0; i < REPS; i++) {
		void *p = malloc(n_arg);
		sink = (size_t)p;
		free(p);
	}
}
/* malloc and free as a program's heap sees them: sizes from 16 to about
 * 4 n bytes, each block freed at a random later time (a pool of 4096 live
 * blocks, a random one replaced each time), not the same block over and
 * over as above */
#define POOL 4096
static void *pool[POOL];
NOINLINE static void t_malloc_free_mixed(void)
{
	static unsigned x = 1;
	for (int i = 0; i < REPS; i++) {
		x = x * 1103515245u + 12345u;
		unsigned k = (x >> 8) % POOL;
		free(pool[k]);
		pool[k] = malloc(16 + (x >> 20) % (4 * n_arg));
		sink = (size_t)pool[k];
	}
}
/* realloc(NULL, n) is malloc(n): how Lua's allocator allocates */
NOINLINE static void t_realloc_null_free(void)
{
	for (int i = 0; i < REPS; i++) {
		void *p = realloc(NULL, n_arg);
		sink = (size_t)p;
		free(p);
	}
}
NOINLINE static void t_realloc(void)
{
	void *p = NULL;
	for (int i = 0; i < REPS; i++) {
		p = realloc(p, n_arg + (i & 7) * 16);
		sink = (size_t)p;
	}
	free(p);
}
NOINLINE static void t_memcpy(void)
{
	for (int i = 0; i < REPS; i++) {
		memcpy(dst + (i & 63), src, n_arg);
		sink = i;
	}
}
NOINLINE static void t_memset(void)
{
	for (int i = 0; i < REPS; i++) {
		memset(set_dst + (i & 63), i, n_arg);
		sink = i;
	}
}
NOINLINE static void t_memcmp(void)
{
	for (int i = 0; i < REPS; i++)
		sink = (size_t)memcmp(dst, src, n_arg);
}
/* memcmp as a sort or a search calls it: the bytes differ at a random
 * place, which its branches cannot predict (pairs set up by main, packed
 * n bytes apart, so that up to 32 bytes they stay in the first level and
 * the difference is the branches', not the caches') */
#define PAIRS 1024
static char pair_a[PAIRS * 2048], pair_b[PAIRS * 2048];
NOINLINE static void t_memcmp_rand(void)
{
	for (int i = 0; i < REPS; i++) {
		size_t at = (size_t)(i & (PAIRS - 1)) * n_arg;
		sink = (size_t)memcmp(pair_a + at, pair_b + at, n_arg);
	}
}
static void set_pairs(size_t n)
{
	unsigned x = 12345;
	memset(pair_a, 'a', PAIRS * n);
	memset(pair_b, 'a', PAIRS * n);
	for (int i = 0; i < PAIRS; i++) {
		x = x * 1103515245u + 12345u;
		pair_b[(size_t)i * n + (x >> 8) % n] = 'b'; /* the first byte that differs */
	}
}
NOINLINE static void t_strlen(void)
{
	src[n_arg] = 0;
	for (int i = 0; i < REPS; i++)
		sink = strlen(src + (i & 7));
	src[n_arg] = 'a';
}
NOINLINE static void t_strcmp(void)
{
	src[n_arg] = 0, dst[n_arg] = 0;
	for (int i = 0; i < REPS; i++)
		sink = (size_t)strcmp(dst, src);
	src[n_arg] = 'a', dst[n_arg] = 'a';
}
NOINLINE static void t_calloc_free(void)
{
	for (int i = 0; i < REPS; i++) {
		void *p = calloc(1, n_arg);
		sink = (size_t)p;
		free(p);
	}
}
NOINLINE static void t_strdup_free(void)
{
	src[n_arg] = 0;
	for (int i = 0; i < REPS; i++) {
		void *p = strdup(src);
		sink = (size_t)p;
		free(p);
	}
	src[n_arg] = 'a';
}
NOINLINE static void t_strncmp(void)
{
	for (int i = 0; i < REPS; i++)
		sink = (size_t)strncmp(dst, src, n_arg);
}
NOINLINE static void t_strcpy(void)
{
	src[n_arg] = 0;
	for (int i = 0; i < REPS; i++) {
		strcpy(dst + (i & 63), src);
		sink = i;
	}
	src[n_arg] = 'a';
	memset(dst, 'a', sizeof dst);
}
NOINLINE static void t_strncpy(void)
{
	for (int i = 0; i < REPS; i++) {
		strncpy(dst + (i & 63), src, n_arg);
		sink = i;
	}
}
/* the C library's thread-local tables and errno: what <ctype.h>'s macros
 * and errno call for, over and over (declared again without the headers'
 * const attribute, which would let the compiler call each once) */
extern const unsigned short **ctype_b_loc(void) __asm__("__ctype_b_loc");
extern const int32_t **ctype_tolower_loc(void) __asm__("__ctype_tolower_loc");
extern int *errno_location(void) __asm__("__errno_location");
NOINLINE static void t_ctype_b_loc(void)
{
	for (int i = 0; i < REPS; i++)
		sink = (size_t)ctype_b_loc();
}
NOINLINE static void t_ctype_tolower_loc(void)
{
	for (int i = 0; i < REPS; i++)
		sink = (size_t)ctype_tolower_loc();
}
NOINLINE static void t_errno_location(void)
{
	for (int i = 0; i < REPS; i++)
		sink = (size_t)errno_location();
}
NOINLINE static void t_strchr(void)
{
	src[n_arg] = 'b';
	for (int i = 0; i < REPS; i++)
		sink = (size_t)strchr(src + (i & 7), 'b');
	src[n_arg] = 'a';
}
/* strcoll in the C locale (no setlocale: the program's start), over
 * equal strings as strcmp above; strspn, strcspn and strpbrk over n bytes
 * they accept (or do not reject) before the stop */
NOINLINE static void t_strcoll(void)
{
	src[n_arg] = 0, dst[n_arg] = 0;
	for (int i = 0; i < REPS; i++)
		sink = (size_t)strcoll(dst, src);
	src[n_arg] = 'a', dst[n_arg] = 'a';
}
NOINLINE static void t_strspn(void)
{
	src[n_arg] = 'b';
	for (int i = 0; i < REPS; i++)
		sink = strspn(src + (i & 7), "ac");
	src[n_arg] = 'a';
}
NOINLINE static void t_strcspn(void)
{
	src[n_arg] = 'b';
	for (int i = 0; i < REPS; i++)
		sink = strcspn(src + (i & 7), "bc");
	src[n_arg] = 'a';
}
NOINLINE static void t_strpbrk(void)
{
	src[n_arg] = 'b';
	for (int i = 0; i < REPS; i++)
		sink = (size_t)strpbrk(src + (i & 7), "bc");
	src[n_arg] = 'a';
}
NOINLINE static void t_memchr(void)
{
	for (int i = 0; i < REPS; i++)
		sink = (size_t)memchr(src, 'b', n_arg);
}

/* A lock and an unlock of a free plain mutex in a process of one thread
 * (what goldencove fixes for them there: PI_EXT_SOLO), as a pair: the
 * model splits it about evenly (the size does not matter) */
static pthread_mutex_t mtx = PTHREAD_MUTEX_INITIALIZER;
NOINLINE static void t_mutex_pair(void)
{
	for (int i = 0; i < REPS; i++) {
		pthread_mutex_lock(&mtx);
		pthread_mutex_unlock(&mtx);
	}
}

/* A read lock and an unlock, a write lock and an unlock, of a free
 * rwlock of the process's own in a process of one thread (PI_EXT_SOLO as
 * well: glibc takes it with one atomic instruction, which no other thread
 * can make wait) */
static pthread_rwlock_t rwl = PTHREAD_RWLOCK_INITIALIZER;
NOINLINE static void t_rdlock_pair(void)
{
	for (int i = 0; i < REPS; i++) {
		pthread_rwlock_rdlock(&rwl);
		pthread_rwlock_unlock(&rwl);
	}
}
NOINLINE static void t_wrlock_pair(void)
{
	for (int i = 0; i < REPS; i++) {
		pthread_rwlock_wrlock(&rwl);
		pthread_rwlock_unlock(&rwl);
	}
}

/* pthread_once on a control word whose initializer has run: the call
 * returns at once (what goldencove fixes for it then: PI_EXT_ONCE) */
static pthread_once_t once = PTHREAD_ONCE_INIT;
static void once_init(void) { sink++; }
NOINLINE static void t_once_done(void)
{
	for (int i = 0; i < REPS; i++)
		pthread_once(&once, once_init);
}

static double fastest(void (*f)(void))
{
	uint64_t b = ~0ull;
	for (int i = 0; i < 300; i++) {
		uint64_t t0 = __rdtsc();
		f();
		uint64_t t1 = __rdtsc();
		if (t1 - t0 < b)
			b = t1 - t0;
	}
	return (double)b;
}

int main(void)
{
	memset(src, 'a', sizeof src);
	memset(dst, 'a', sizeof dst);
	double cyc = 100000.0 / fastest(calib); /* core cycles per tick */
	static const struct {
		const char *name;
		void (*f)(void);
	} t[] = {{"malloc+free", t_malloc_free}, {"malloc+free, mixed", t_malloc_free_mixed},
		 {"realloc(NULL)+free", t_realloc_null_free}, {"realloc", t_realloc}, {"memcpy", t_memcpy},
		 {"memset", t_memset},           {"memcmp", t_memcmp},   {"memcmp rand", t_memcmp_rand},
		 {"strlen", t_strlen},           {"strcmp", t_strcmp},   {"calloc+free", t_calloc_free},
		 {"strdup+free", t_strdup_free}, {"strncmp", t_strncmp}, {"strcpy", t_strcpy},
		 {"strncpy", t_strncpy},         {"strchr", t_strchr},   {"memchr", t_memchr},
		 {"__ctype_b_loc", t_ctype_b_loc}, {"__ctype_tolower_loc", t_ctype_tolower_loc},
		 {"__errno_location", t_errno_location}, {"strcoll", t_strcoll}, {"strspn", t_strspn},
		 {"strcspn", t_strcspn},         {"strpbrk", t_strpbrk}, {"mutex lock+unlock", t_mutex_pair},
		 {"rwlock rd+unlock", t_rdlock_pair}, {"rwlock wr+unlock", t_wrlock_pair},
		 {"pthread_once, done", t_once_done}};
	static const size_t sizes[] = {8, 32, 128, 512, 2048};
	printf("%-19s", "n:");
	for (size_t k = 0; k < sizeof sizes / sizeof *sizes; k++)
		printf(" %8zu", sizes[k]);
	printf("   (cycles a call)\n");
	for (size_t i = 0; i < sizeof t / sizeof *t; i++) {
		printf("%-19s", t[i].name);
		for (size_t k = 0; k < sizeof sizes / sizeof *sizes; k++) {
			n_arg = sizes[k];
			if (t[i].f == t_memcmp_rand)
				set_pairs(n_arg);
			double e = fastest(t_empty), x = fastest(t[i].f);
			printf(" %8.1f", (x - e) * cyc / REPS);
		}
		printf("\n");
	}
	return 0;
}
