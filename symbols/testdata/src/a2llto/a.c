/* Clang -O2 -g -flto. The globals here and in b.c make LLVM create those
   two units first (a, b, then c, created when main inlines c_step), so
   scanning a's unit follows the abstract origin into c's and parses b's
   in passing. */
int b_work(int n);
int b_cold(int n);
int c_step(int x);

int a_runs;

int main(int argc, char **argv) {
	(void)argv;
	a_runs++;
	int s = b_work(argc) + b_cold(argc);
	for (int i = 0; i < argc * 100; i++)
		s += c_step(i);
	return s;
}
