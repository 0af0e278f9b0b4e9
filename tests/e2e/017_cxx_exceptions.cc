// C++ exceptions thrown through many instrumented frames, with RAII
// destructors running on the way, caught at several depths.
#include <cstdio>
#include <stdexcept>
#include <string>

static int live;

struct Guard {
	int id;
	explicit Guard(int i) : id(i) { live++; }
	~Guard() { live--; }
};

__attribute__((noinline)) int dive(int depth, int throw_at)
{
	Guard g(depth);
	if (depth == throw_at)
		throw std::runtime_error("depth " + std::to_string(depth));
	if (depth == 0)
		return 1;
	return dive(depth - 1, throw_at) + 1;
}

__attribute__((noinline)) int catcher(int n)
{
	try {
		return dive(n, n / 2);
	} catch (const std::runtime_error &e) {
		return -(int)e.what()[6];
	}
}

__attribute__((noinline)) int rethrower(int n)
{
	Guard g(-1);
	try {
		return dive(n, 3);
	} catch (...) {
		throw;
	}
}

int main()
{
	long s = 0;
	for (int i = 4; i < 30; i++)
		s += catcher(i);
	for (int i = 0; i < 10; i++) {
		try {
			s += rethrower(i + 4);
		} catch (const std::exception &e) {
			s += 1000;
		}
	}
	try {
		s += dive(5, 9);
	} catch (...) {
		s = -1;
	}
	std::printf("%ld live=%d\n", s, live);
	return live;
}
