// Templates and inline functions: COMDAT groups, vtables, virtual calls.
#include <cstdio>
#include <map>
#include <memory>
#include <string>
#include <vector>

struct Shape {
	virtual ~Shape() = default;
	virtual double area() const = 0;
};
struct Square : Shape {
	double s;
	explicit Square(double x) : s(x) {}
	double area() const override { return s * s; }
};
struct Circle : Shape {
	double r;
	explicit Circle(double x) : r(x) {}
	double area() const override { return 3.0 * r * r; }
};

template <typename T> T accumulate_all(const std::vector<T> &v)
{
	T s{};
	for (const T &x : v)
		s += x;
	return s;
}

int main()
{
	std::vector<std::unique_ptr<Shape>> shapes;
	for (int i = 0; i < 40; i++) {
		if (i % 3)
			shapes.emplace_back(new Square(i));
		else
			shapes.emplace_back(new Circle(i));
	}
	std::vector<double> areas;
	for (const auto &s : shapes)
		areas.push_back(s->area());
	std::map<std::string, int> words;
	const char *text[] = {"b", "a", "c", "a", "b", "a"};
	for (const char *w : text)
		words[w]++;
	std::vector<int> counts;
	for (const auto &kv : words)
		counts.push_back(kv.second);
	std::printf("%.1f %d %zu\n", accumulate_all(areas), accumulate_all(counts), words.size());
	return 0;
}
