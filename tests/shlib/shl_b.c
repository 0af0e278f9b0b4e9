/* An instrumented shared object's second object. */
int shl_b_mix(int x)
{
	return (x ^ (x >> 3)) & 15;
}

int shl_b_twice(int x)
{
	int s = 0;
	for (int i = 0; i < x; i++)
		s += shl_b_mix(i);
	return 2 * s;
}
