/* test-maps.c: /proc/TID/maps lines (parse_maps_line) and a process's maps parsed once for
 * lookups by address (maps_index_parse, maps_index_find), as the user-stack unwinder reads
 * them, and the syscall line's stack and program counter. */
#include "unit.h"

static void test_line(void **state)
{
	(void)state;
	struct maps_ent e;
	const char *l = "55d0c8a00000-55d0c8a02000 r-xp 00001000 08:01 1837042                    "
	                "/usr/bin/my prog (deleted)";
	assert_int_equal(parse_maps_line(l, strlen(l), &e), 0);
	assert_true(e.start == 0x55d0c8a00000ul && e.end == 0x55d0c8a02000ul);
	assert_true(e.r && !e.w && e.x && !e.shared);
	assert_true(e.off == 0x1000 && e.inode == 1837042);
	assert_int_equal(e.dev_major, 8);
	assert_int_equal(e.dev_minor, 1);
	assert_int_equal(e.path_len, strlen("/usr/bin/my prog (deleted)"));
	assert_memory_equal(e.path, "/usr/bin/my prog (deleted)", e.path_len);
	l = "7ffd1000-7ffd3000 rw-s 00000000 00:00 0";
	assert_int_equal(parse_maps_line(l, strlen(l), &e), 0);
	assert_true(e.w && e.shared && !e.x && e.path_len == 0);
	l = "ffffffffff600000-ffffffffff601000 --xp 00000000 00:00 0                  [vsyscall]";
	assert_int_equal(parse_maps_line(l, strlen(l), &e), 0);
	assert_true(!e.r && e.x);
	assert_memory_equal(e.path, "[vsyscall]", e.path_len);
	static const char *const bad[] = {
		"", "x", "1000-2000", "1000-2000 r-xp", "1000-2000 r-xp 0 08:01",
		"2000-1000 r-xp 00000000 08:01 1 /x",            /* start past end */
		"1000-1000 r-xp 00000000 08:01 1 /x",            /* empty */
		"1000-2000 rxxp 00000000 08:01 1 /x", "1000-2000 r-xp 0000000g 08:01 1 /x",
		"1000-2000 r-xp 00000000 0801 1 /x", "1000-2000 r-xp 00000000 08:01 x /x",
		"-2000 r-xp 00000000 08:01 1 /x", "1000- r-xp 00000000 08:01 1 /x",
		"11111111111111111-2000 r-xp 00000000 08:01 1 /x",
		"1000-2000 r-xp 00000000 08:01 1/x", "1000-2000  r-xp 00000000 08:01 1 /x",
	};
	for (size_t i = 0; i < ARRAY_SIZE(bad); i++) {
		if (parse_maps_line(bad[i], strlen(bad[i]), &e) != -EINVAL) {
			print_error("accepted \"%s\"\n", esc(bad[i]));
			fail();
		}
	}
	/* len bounds the line: what follows is not read */
	l = "1000-2000 r-xp 00000000 08:01 1 /x\n3000-4000";
	assert_int_equal(parse_maps_line(l, strcspn(l, "\n"), &e), 0);
	assert_int_equal(e.path_len, 2);
}

/* ix parsed from text: 0 with its entries, else the error and the line named. */
static int index_of(const char *text, struct maps_index *ix, size_t *line)
{
	*line = 0;
	return maps_index_parse(text, ix, line);
}

static void test_index(void **state)
{
	(void)state;
	const char *text =
		"400000-401000 r--p 00000000 08:01 7 /bin/t\n"
		"401000-402000 r-xp 00001000 08:01 7 /bin/t\n"
		"7f0000000000-7f0000021000 rw-p 00000000 00:00 0 \n"
		"7ffc00000000-7ffc00021000 rw-p 00000000 00:00 0                          [stack]\n"
		"ffffffffff600000-ffffffffff601000 --xp 00000000 00:00 0                  [vsyscall]";
	struct maps_index ix;
	size_t line;
	assert_int_equal(index_of(text, &ix, &line), 0);
	assert_int_equal(ix.n, 5);
	const struct maps_ent *e = maps_index_find(&ix, 0x401234);
	assert_non_null(e);
	assert_true(e->x && e->off == 0x1000 && e->start == 0x401000);
	/* each mapping's boundaries: start and end - 1 are in it; end is the next one's start
	 * (adjacent) or in no mapping (a gap) */
	static const struct { unsigned long addr, start; } at[] = {
		{ 0x400000, 0x400000 }, { 0x400fff, 0x400000 }, { 0x401000, 0x401000 },
		{ 0x401fff, 0x401000 }, { 0x402000, 0 }, { 0x3fffff, 0 }, { 0, 0 },
		{ 0x7f0000000000, 0x7f0000000000 }, { 0x7f0000020fff, 0x7f0000000000 },
		{ 0x7f0000021000, 0 }, { 0x7ffc00020ff8, 0x7ffc00000000 }, { 0x7ffc00021000, 0 },
		{ 0xffffffffff600000, 0xffffffffff600000 }, { 0xffffffffff600fff, 0xffffffffff600000 },
		{ 0xffffffffff601000, 0 }, { ~0ul, 0 },
	};
	for (size_t i = 0; i < ARRAY_SIZE(at); i++) {
		e = maps_index_find(&ix, at[i].addr);
		if ((e ? e->start : 0) != at[i].start) {
			print_error("%#lx: in the mapping at %#lx, want %#lx\n", at[i].addr,
			            e ? e->start : 0, at[i].start);
			fail();
		}
	}
	e = maps_index_find(&ix, 0x7ffc00000000);
	assert_memory_equal(e->path, "[stack]", e->path_len);
	assert_true(e->path >= text && e->path < text + strlen(text));   /* into the text */
	maps_index_free(&ix);
	assert_int_equal(ix.n, 0);
	maps_index_free(&ix);                  /* twice: nothing */

	assert_int_equal(index_of("", &ix, &line), 0);
	assert_int_equal(ix.n, 0);
	assert_null(maps_index_find(&ix, 0x1000));
	maps_index_free(&ix);
}

/* Text the kernel never writes: refused whole, naming the line (nothing of it is used). */
static void test_index_refused(void **state)
{
	(void)state;
	static const struct { const char *text; size_t line; } bad[] = {
		{ "400000-401000 r--p 00000000 08:01 7 /bin/t\ngarbage\n", 2 },
		{ "garbage\n400000-401000 r--p 00000000 08:01 7 /bin/t\n", 1 },
		/* an empty line, inside or at the end */
		{ "400000-401000 r--p 00000000 08:01 7 /bin/t\n\n", 2 },
		/* out of order */
		{ "401000-402000 r-xp 00001000 08:01 7 /bin/t\n"
		  "400000-401000 r--p 00000000 08:01 7 /bin/t\n", 2 },
		/* overlapping: the second starts below the first's end */
		{ "400000-402000 r--p 00000000 08:01 7 /bin/t\n"
		  "401000-403000 r-xp 00001000 08:01 7 /bin/t\n", 2 },
		/* one inside another */
		{ "400000-410000 r--p 00000000 08:01 7 /bin/t\n"
		  "401000-402000 r-xp 00001000 08:01 7 /bin/t\n", 2 },
		/* the same line twice */
		{ "400000-401000 r--p 00000000 08:01 7 /bin/t\n"
		  "500000-501000 r--p 00000000 08:01 7 /bin/t\n"
		  "500000-501000 r--p 00000000 08:01 7 /bin/t\n", 3 },
	};
	for (size_t i = 0; i < ARRAY_SIZE(bad); i++) {
		struct maps_index ix;
		size_t line;
		int r = index_of(bad[i].text, &ix, &line);
		if (r != -EINVAL || line != bad[i].line || ix.n != 0 || ix.e != NULL) {
			print_error("\"%s\": %d at line %zu (%zu entries), want -EINVAL at line %zu\n",
			            esc(bad[i].text), r, line, ix.n, bad[i].line);
			fail();
		}
		maps_index_free(&ix);
	}
}

/* Many mappings (a process of thousands of threads: a stack and a guard page each), with gaps:
 * every lookup as a scan of the lines would answer. */
static void test_index_many(void **state)
{
	(void)state;
	enum { N = 5000 };
	size_t cap = N * 80, len = 0;
	char *text = malloc(cap);
	assert_non_null(text);
	unsigned long s[N], en[N], a = 0x10000;
	for (size_t i = 0; i < N; i++) {
		s[i] = a;
		en[i] = a + 0x1000 * (1 + i % 3);
		a = en[i] + (i % 2 ? 0x1000 : 0);     /* every other one adjacent to the next */
		len += (size_t)snprintf(text + len, cap - len, "%lx-%lx rw-p 00000000 00:00 0\n",
		                        s[i], en[i]);
	}
	struct maps_index ix;
	size_t line;
	assert_int_equal(index_of(text, &ix, &line), 0);
	assert_int_equal(ix.n, N);
	for (size_t i = 0; i < N; i++) {
		unsigned long probe[] = { s[i], en[i] - 1, en[i], s[i] - 1 };
		for (size_t k = 0; k < ARRAY_SIZE(probe); k++) {
			const struct maps_ent *e = maps_index_find(&ix, probe[k]);
			unsigned long want = 0;
			for (size_t j = 0; j < N && !want; j++)
				if (probe[k] >= s[j] && probe[k] < en[j])
					want = s[j];
			if ((e ? e->start : 0) != want) {
				print_error("%#lx: in the mapping at %#lx, want %#lx\n", probe[k],
				            e ? e->start : 0, want);
				fail();
			}
		}
	}
	maps_index_free(&ix);
	free(text);
}

static void test_syscall_sp_pc(void **state)
{
	(void)state;
	struct cgw_syscall sc;
	assert_int_equal(parse_syscall_line("58 0x7f0000001234 0x0 0x0 0x0 0x0 0x0 "
	                                    "0x7ffd0f00 0x7f1234567890\n", &sc), 1);
	assert_true(sc.sp == 0x7ffd0f00ul && sc.pc == 0x7f1234567890ul);
	assert_true(sc.arg[0] == 0x7f0000001234ul);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_line),
		cmocka_unit_test(test_index),
		cmocka_unit_test(test_index_refused),
		cmocka_unit_test(test_index_many),
		cmocka_unit_test(test_syscall_sp_pc),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
