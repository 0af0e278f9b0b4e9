/* An instrumented shared object's second object. */
int shl_b_mix(int x)
{
	return (x ^ (x >> 3)) & 15;
}

/* a string instruction the runtime counts the passes of */
static void copy(char *d, const char *src, unsigned long n)
{
	__asm__ volatile("rep movsb" : "+D"(d), "+S"(src), "+c"(n) : : "memory");
}

int shl_b_twice(int x)
{
	char a[64], b[64];
	for (int i = 0; i < 64; i++)
		a[i] = (char)i;
	copy(b, a, (unsigned long)(x % 64));
	int s = b[0];
	for (int i = 0; i < x; i++)
		s += shl_b_mix(i);
	return 2 * s;
}
