/* A different program: its debug file must never be used for inline.c's binary. */
#include <stdio.h>
int other(int x) { return x * 7 + 1; }
int main(void) { printf("%d\n", other(6)); return 0; }
