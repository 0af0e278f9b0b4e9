/* A computed-goto interpreter (address-taken labels). */
#include <stdio.h>
__attribute__((noinline)) long run(const unsigned char *code, int n)
{
	static void *tab[] = {&&op_inc, &&op_dbl, &&op_dec, &&op_end};
	long acc = 0;
	int pc = 0;
	(void)n;
	goto *tab[code[pc++]];
op_inc:
	acc++;
	goto *tab[code[pc++]];
op_dbl:
	acc *= 2;
	goto *tab[code[pc++]];
op_dec:
	acc--;
	goto *tab[code[pc++]];
op_end:
	return acc;
}
int main(void)
{
	unsigned char prog[64];
	for (int i = 0; i < 63; i++)
		prog[i] = (unsigned char)(i % 3);
	prog[63] = 3;
	long s = 0;
	for (int r = 0; r < 20; r++)
		s += run(prog, 64) % 1000003;
	printf("%ld\n", s);
	return 0;
}
