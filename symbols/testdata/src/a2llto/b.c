/* Two functions in different text sections: the unit's ranges are a
   DW_FORM_rnglistx list, which binutils 2.40 ignores, and nothing refers
   to a DIE here, so once this unit is parsed in passing addr2line 2.40
   never decodes it. */
int b_calls;

__attribute__((noinline)) int b_work(int n) {
	int s = 0;
	b_calls++;
	for (int i = 0; i < n % 97; i++)
		s ^= i * 31 + n;
	return s;
}

__attribute__((noinline, cold)) int b_cold(int n) {
	int s = 1;
	for (int i = 0; i < n % 13; i++)
		s = s * 7 + i;
	return s;
}
