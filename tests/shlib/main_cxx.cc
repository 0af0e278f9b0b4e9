/* Catches what the shared object throws; its callback throws through it. */
#include <cstdio>
#include <stdexcept>

int shl_throw(int n);
int shl_catch(int (*f)(int), int n);

static int thrower(int n)
{
	if (n > 3)
		throw std::logic_error("program");
	return n;
}

int main()
{
	long s = 0;
	for (int i = 0; i < 20; i++) {
		try {
			s += shl_throw(i % 5);
		} catch (const std::exception &e) {
			s += 100;
		}
		s += shl_catch(thrower, i % 7);
	}
	std::printf("%ld\n", s);
	return 0;
}
