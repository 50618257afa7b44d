/* libx.c: a shared library for tests/unit/test-elf.c: two exported functions with a static
 * one between them (built with -fno-toplevel-reorder so the order holds), so that a stripped
 * copy, which keeps only .dynsym, must not name the static one after the exported one before
 * it. */
__attribute__((noinline)) int api_first(int x);
__attribute__((noinline)) int api_last(int x);
void *api_helper(void);

__attribute__((noinline)) int api_first(int x)
{
	__asm__ volatile("" ::: "memory");
	return x * 7 + 3;
}

__attribute__((noinline)) static int helper_mid(int x)
{
	__asm__ volatile("" ::: "memory");
	return api_first(x) ^ (x << 3);
}

__attribute__((noinline)) int api_last(int x)
{
	__asm__ volatile("" ::: "memory");
	return helper_mid(x) + 11;
}

/* the static function's address, for the test to find it in the mapping */
void *api_helper(void)
{
	return (void *)helper_mid;
}
