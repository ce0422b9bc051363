// testdata/a2l-{gcc,clang}.elf: `g++ -O2 -g -o a2l-gcc.elf a2l.cpp` (GCC 12), `clang++ -O2 -g` (Clang 14)
// here; goldens and rules in cmd/gotracy/symbols_a2l_test.go. Static, anonymous-namespace, clone,
// inlined static functions and a header reached through "..". Keep line numbers unchanged.
#include <cstdlib>
#include <cstring>
#include "sub/../helper.h"

namespace {
int Worker(int n) {
	int s = 0;
	for (int i = 0; i < n; i++) s += helper::mix(i, n);
	return s;
}
}

static int __attribute__((noinline)) scale(int *v, int n, int k) {
	if (n > 1000) { // a cold part
		std::abort();
	}
	for (int i = 0; i < n; i++) v[i] = helper::mix(v[i], k);
	return v[0];
}

static int __attribute__((noinline)) unused_arg(int a, int unused) { return helper::mix(a, 3) + (unused ? 0 : 1); }

template <class T> struct Box {
	T v;
	T get() const { return helper::mix(v, 7); }
};

int main(int argc, char **argv) {
	int v[8];
	for (int i = 0; i < 8; i++) v[i] = argc + i;
	Box<int> b{argc};
	auto lam = [&](int x) { return scale(v, x, b.get()); };
	int r = lam(argc) + Worker(argc * 3) + unused_arg(argc, 0);
	return r + (int)strlen(argv[0]);
}
