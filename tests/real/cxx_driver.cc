#include <iostream>
#include <map>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>
#include <algorithm>
int main() {
  std::map<std::string, int> m;
  std::istringstream in("the quick brown fox jumps over the lazy dog the end");
  std::string w;
  while (in >> w) m[w]++;
  std::vector<std::pair<int, std::string>> v;
  for (auto &kv : m) v.push_back({kv.second, kv.first});
  std::sort(v.rbegin(), v.rend());
  int caught = 0;
  for (int i = 0; i < 100; i++) {
    try { if (i % 3 == 0) throw std::runtime_error("x" + std::to_string(i)); }
    catch (const std::exception &e) { caught += (int)e.what()[0]; }
  }
  std::ostringstream o;
  o << v[0].second << " " << v[0].first << " " << caught << " " << 3.25;
  std::cout << o.str() << std::endl;
  return 0;
}
