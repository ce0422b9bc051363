#include <vector>
#include <map>
#include <string>
#include <algorithm>
#include <iostream>
namespace outer { namespace inner {
template <typename T> struct Box { T v; T get() const { return v * 2; } };
template <typename T> T accumulate(const std::vector<T>& xs) { T s{}; for (auto& x : xs) s += Box<T>{x}.get(); return s; }
class Widget { public: virtual ~Widget() {} virtual int run(int x) { return x + 1; } };
class Gadget : public Widget { public: int run(int x) override { std::map<int,std::string> m; m[x] = "a"; return (int)m.size() + x; } };
}}
int main(int argc, char**) {
  std::vector<int> v(argc * 100); std::vector<double> d(argc * 10, 1.5);
  std::sort(v.begin(), v.end());
  outer::inner::Gadget g; outer::inner::Widget* w = &g;
  std::cout << outer::inner::accumulate(v) << outer::inner::accumulate(d) << w->run(argc) << [](int a){ return a*3; }(argc) << "\n";
}
