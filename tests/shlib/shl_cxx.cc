/* A shared object whose functions throw C++ exceptions through their
 * callers (one with a cleanup on the way), and catch what a callback
 * throws. */
#include <stdexcept>
#include <string>
#include <vector>

static int depth(int n)
{
	if (n == 0)
		throw std::runtime_error("bottom");
	return depth(n - 1) + 1;
}

int shl_throw(int n)
{
	std::vector<int> v(n + 1, 1); /* (a cleanup as the exception passes) */
	return depth(n) + (int)v.size();
}

int shl_catch(int (*f)(int), int n)
{
	try {
		return f(n);
	} catch (const std::exception &e) {
		return -(int)std::string(e.what()).size();
	}
}
