/* --cache-sim (tests/run.py feature/cache_sim): a pointer chase waits for each
 * load's miss, from memory the first time a line is seen and from the
 * level that holds it after; a chase within the first level, a stream, and
 * a gather through a streamed index wait for nothing; a gather whose
 * second load waits for its first overlaps the misses of its steps, as
 * many as the core keeps in flight; a histogram's read-modify-writes and
 * a scatter's stores, at places read from a stream, overlap their misses
 * too, nothing waiting for them; the load stubs keep the flags and
 * every register, %r11 and loads through %r13 and %rbp included. */
#include <stdio.h>
#include <stdlib.h>

struct node {
	struct node *next;
	long pad[7]; /* a node a line */
};

/* a cycle through n nodes (a power of 2) in a scrambled order, the same
 * in every run: node i points to node a * i + c mod n, a full-period
 * linear congruential step (c odd, a - 1 a multiple of 4).  Its stores go
 * through the nodes in order, at addresses no load gave, so the
 * simulation does not see them: the walks see each line first. */
static struct node *ring(size_t n)
{
	struct node *v = aligned_alloc(64, n * sizeof *v);
	if (!v)
		exit(2);
	for (size_t i = 0; i < n; i++)
		v[i].next = &v[(1103515245u * i + 12345u) & (n - 1)];
	return v;
}

__attribute__((noinline)) struct node *walk(struct node *p, long hops)
{
	while (hops--)
		p = p->next;
	return p;
}

/* the same loop, named for the large ring */
__attribute__((noinline)) struct node *walk_big(struct node *p, long hops)
{
	while (hops--)
		p = p->next;
	return p;
}

__attribute__((noinline)) long stream(const long *a, long n)
{
	long s = 0;
	for (long i = 0; i < n; i++)
		s += a[i];
	return s;
}

__attribute__((noinline)) long gather(const long *a, const int *idx, long n)
{
	long s = 0;
	for (long i = 0; i < n; i++)
		s += a[idx[i]];
	return s;
}

/* each step's second load waits for its first, a random line of the ring,
 * but no step waits for another */
__attribute__((noinline)) long gather_far(const struct node *v, const int *idx, const unsigned char *small, long n)
{
	long s = 0;
	for (long i = 0; i < n; i++)
		s += small[(unsigned long)v[idx[i & 65535]].next & 255];
	return s;
}

/* a histogram of n keys read from a stream, and a scatter of n values to
 * the places the stream says: nothing waits for their accesses' misses */
__attribute__((noinline)) void count(unsigned *tab, const unsigned *key, long n)
{
	for (long i = 0; i < n; i++)
		tab[key[i]]++;
}

__attribute__((noinline)) void scatter(unsigned *tab, const unsigned *key, long n)
{
	for (long i = 0; i < n; i++)
		tab[key[i]] = (unsigned)i;
}

/* (q < 5) + 2 * **p, with the load of *p between the compare and setl; and
 * a load through %r13 with %r11 as index, and one through %rbp: each
 * returns what it loaded, and %r11 must come back as it was. */
long f_flags(long **p, long q);
long f_r13(long *a);
long f_rbp(long **p);
__asm__(".text\n"
	".globl f_flags\n.type f_flags,@function\nf_flags:\n"
	" mov (%rdi),%rax\n cmp $5,%rsi\n mov (%rax),%rcx\n setl %dl\n movzbl %dl,%edx\n"
	" lea (%rdx,%rcx,2),%rax\n ret\n.size f_flags,.-f_flags\n"
	".globl f_r13\n.type f_r13,@function\nf_r13:\n"
	" push %r13\n mov %rdi,%r13\n mov $7,%r11\n mov (%r13),%rcx\n mov %rcx,%r11\n"
	" mov 8(%r13,%r11,8),%rax\n cmp %rcx,%r11\n jne 1f\n pop %r13\n ret\n"
	"1: mov $-1,%rax\n pop %r13\n ret\n.size f_r13,.-f_r13\n"
	".globl f_rbp\n.type f_rbp,@function\nf_rbp:\n"
	" push %rbp\n mov (%rdi),%rbp\n mov 0(%rbp),%rax\n pop %rbp\n ret\n.size f_rbp,.-f_rbp\n");

int main(void)
{
	struct node *small = ring(256);    /* 16 KiB: the first level */
	struct node *big = ring(65536);    /* 4 MiB: past the second level */
	long *arr = calloc(1 << 20, sizeof(long));
	int *idx = malloc((1 << 20) * sizeof(int));
	if (!arr || !idx)
		return 2;
	for (int i = 0; i < 1 << 20; i++)
		idx[i] = (i * 7) & 1023;
	int *order = malloc(65536 * sizeof(int));
	unsigned char *bytes = calloc(256, 1);
	if (!order || !bytes)
		return 2;
	int ok = walk(small, 100000) != NULL;
	ok &= walk_big(big, 200000) != NULL;
	/* the big ring's order, as indices: a gather through it misses as
	 * walk_big does */
	struct node *p = big;
	for (int i = 0; i < 65536; i++, p = p->next)
		order[i] = (int)(p - big);
	ok &= gather_far(big, order, bytes, 200000) == 0;
	ok &= stream(arr, 1 << 20) == 0;
	ok &= gather(arr, idx, 1 << 20) == 0;
	/* 4 MiB of counters (past the second level, within the third); each
	 * function runs twice, count first, and the test checks the sums */
	unsigned *tab = calloc(1 << 20, sizeof(unsigned)), *key = malloc((1 << 20) * sizeof(unsigned));
	if (!tab || !key)
		return 2;
	unsigned long long x = 88172645463325252ull;
	for (int i = 0; i < 1 << 20; i++) {
		x ^= x << 13, x ^= x >> 7, x ^= x << 17;
		key[i] = (unsigned)(x & ((1 << 20) - 1));
	}
	count(tab, key, 1 << 20);
	count(tab, key, 1 << 20);
	scatter(tab, key, 1 << 20);
	scatter(tab, key, 1 << 20);
	ok &= tab[key[(1 << 20) - 1]] == (1 << 20) - 1; /* the last store wins */
	long v = 21, *pv = &v, w[10] = {7, 0, 0, 0, 0, 0, 0, 0, 99, 0};
	ok &= f_flags(&pv, 4) == 43 && f_flags(&pv, 5) == 42;
	ok &= f_r13(w) == 99;
	ok &= f_rbp(&pv) == 21;
	printf("%s\n", ok ? "ok" : "WRONG");
	return 0;
}
