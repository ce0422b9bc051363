namespace helper {
static inline int mix(int a, int b) {
	int r = a * 31 + b;
	return r ^ (r >> 3);
}
}
