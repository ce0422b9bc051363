#include <stdio.h>
#include <stdlib.h>
static inline int sq(int x) { return x * x; }
static int __attribute__((noinline)) sum(int n) { int s = 0; for (int i = 0; i < n; i++) s += sq(i); return s; }
static inline int twice(int x) { return sum(x) + sum(x+1); }
int main(int argc, char **argv) { int n = argc > 1 ? atoi(argv[1]) : 10; printf("%d\n", twice(n)); return 0; }
