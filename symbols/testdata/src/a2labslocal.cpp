// A function template, inlined into its caller, with a local class whose
// virtual member is code of its own: GCC 12 defines that member inside
// the template's abstract instance.
#include <cstdio>
struct Factory {
	virtual int create(int) = 0;
	virtual ~Factory() {}
};
template <class F> static inline Factory *registerTest(F f) {
	struct Impl : Factory {
		F f;
		explicit Impl(F f) : f(f) {}
		int create(int x) override { return f(x) * 3 + x; }
	};
	return new Impl(f);
}
int main(int argc, char **) {
	Factory *p = registerTest([argc](int x) { return x * argc + (x >> 1); });
	int r = p->create(argc);
	std::printf("%d\n", r);
	delete p;
	return 0;
}
