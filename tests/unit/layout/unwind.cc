// Unwind tables to carry through the rewrite: C++ functions with call
// sites that throw, catch and clean up (each an FDE and an LSDA), and a
// cold part (an FDE of its own in .text.unlikely).  No headers: it
// compiles in a blink.
extern "C" int puts(const char *);

struct Guard {
	int *n;
	~Guard() { ++*n; }
};

struct Error {
	int code;
};

__attribute__((noinline)) int may_throw(int x)
{
	if (x > 3)
		throw Error{x};
	return x * 2;
}

__attribute__((noinline)) int cleans_up(int x, int *n)
{
	Guard g{n};
	return may_throw(x) + may_throw(x + 1);
}

__attribute__((noinline)) int catches(int x)
{
	int n = 0;
	try {
		return cleans_up(x, &n);
	} catch (const Error &e) {
		puts("error");
		return -n - e.code;
	} catch (...) {
		return -100;
	}
}

__attribute__((cold, noinline)) void report(int x)
{
	if (x < -10)
		throw Error{x};
	puts("odd");
}

int sum(const int *v, int n)
{
	int s = 0;
	for (int i = 0; i < n; i++) {
		if (__builtin_expect(v[i] < 0, 0))
			report(v[i]);
		s += catches(v[i]);
	}
	return s;
}
