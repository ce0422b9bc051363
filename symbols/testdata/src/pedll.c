/* A MinGW DLL for the PE tests of package symbols: exported functions,
 * static helpers that -O2 inlines, and a recursive one that it does not. */

static int square(int x) { return x * x; }

static inline int sum_squares(const int *v, int n) {
	int s = 0;
	for (int i = 0; i < n; i++)
		s += square(v[i]);
	return s;
}

__attribute__((noinline)) static int collatz(int n) {
	int steps = 0;
	while (n > 1) {
		n = (n & 1) ? 3 * n + 1 : n / 2;
		steps++;
	}
	return steps;
}

__declspec(dllexport) int work(const int *v, int n) {
	return sum_squares(v, n) + collatz(n + 7);
}

__declspec(dllexport) int recurse(int n) {
	if (n <= 0)
		return 0;
	return n + recurse(n - 1) * 3 % 1000;
}

__declspec(dllexport) int mix(int a, int b) {
	int v[4] = {a, b, a ^ b, a + b};
	return work(v, 4) - recurse(b & 15);
}

int __stdcall DllMainCRTStartup(void *h, unsigned reason, void *reserved) {
	(void)h; (void)reason; (void)reserved;
	return 1;
}
