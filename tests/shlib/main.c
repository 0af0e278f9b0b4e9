/* A program that uses an instrumented shared object, linked with it or
 * (-DDLOPEN) loaded by dlopen from the path its first argument gives;
 * calls go both ways, and through pointers. */
#include <pthread.h>
#include <setjmp.h>
#include <stdio.h>
#ifdef DLOPEN
#include <dlfcn.h>
#endif

int shl_work(int n);
int shl_fib(int n);
int shl_sort_with(int *v, int n, int (*each)(int));
int shl_calls_back(int k);
int shl_tail(int x);
int shl_each(int n, int (*each)(int));

static int (*work)(int), (*each)(int, int (*)(int));
static jmp_buf out;

int prog_helper(int x)
{
	return x * 2 + 1;
}

static int plus_one(int x)
{
	return x + 1;
}

/* leaves shl_each by longjmp at its seventh call */
static int leave_at_six(int x)
{
	if (x == 6)
		longjmp(out, 1);
	return x;
}

static void *worker(void *arg)
{
	long s = 0;
	for (int r = 0; r < 5; r++)
		s += work(300 + (int)(long)arg);
	return (void *)s;
}

int main(int argc, char **argv)
{
#ifdef DLOPEN
	void *h = dlopen(argv[1], RTLD_NOW);
	if (!h) {
		printf("dlopen: %s\n", dlerror());
		return 1;
	}
	work = (int (*)(int))dlsym(h, "shl_work");
	each = (int (*)(int, int (*)(int)))dlsym(h, "shl_each");
	int (*fib)(int) = (int (*)(int))dlsym(h, "shl_fib");
	int (*sort_with)(int *, int, int (*)(int)) = (int (*)(int *, int, int (*)(int)))dlsym(h, "shl_sort_with");
	int (*calls_back)(int) = (int (*)(int))dlsym(h, "shl_calls_back");
	int (*tail)(int) = (int (*)(int))dlsym(h, "shl_tail");
#else
	(void)argc, (void)argv;
	work = shl_work;
	each = shl_each;
	int (*fib)(int) = shl_fib, (*calls_back)(int) = shl_calls_back, (*tail)(int) = shl_tail;
	int (*sort_with)(int *, int, int (*)(int)) = shl_sort_with;
#endif
	int v[300];
	for (int i = 0; i < 300; i++)
		v[i] = (i * 37) % 300;
	long s = 0;
	for (int r = 0; r < 20; r++)
		s += work(500 + r);
	s += fib(15);
	s += sort_with(v, 300, plus_one);
	s += calls_back(40);
	s += tail(30);
	for (int r = 0; r < 3; r++) {
		if (!setjmp(out))
			s += each(20, leave_at_six);
		else
			s += 1000;
	}
	pthread_t t[2];
	for (long i = 0; i < 2; i++)
		pthread_create(&t[i], NULL, worker, (void *)i);
	for (int i = 0; i < 2; i++) {
		void *r;
		pthread_join(t[i], &r);
		s += (long)r;
	}
#ifndef DLOPEN
	/* and directly, by name (through the PLT) */
	s += shl_work(7) + shl_fib(5) + shl_tail(3);
#endif
	printf("%ld %d %d\n", s, v[0], v[299]);
	return 0;
}
