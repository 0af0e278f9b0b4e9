/* Calls into code made at run time (as a JIT makes it): in no file's
 * mapping, they are <unknown> under their caller, counted exactly. */
// expect: <unknown> calls=500 callers=run_jit
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>

/* lea 1(%rdi),%eax; ret */
static const unsigned char code[] = {0x8d, 0x47, 0x01, 0xc3};

__attribute__((noinline)) int run_jit(int (*f)(int))
{
	int acc = 0;
	for (int i = 0; i < 500; i++)
		acc = f(acc);
	return acc;
}

int main(void)
{
	void *m = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (m == MAP_FAILED)
		return 1;
	memcpy(m, code, sizeof(code));
	if (mprotect(m, 4096, PROT_READ | PROT_EXEC))
		return 1;
	printf("%d\n", run_jit((int (*)(int))m));
	return 0;
}
