/* test-maps.c: /proc/TID/maps lines (parse_maps_line, maps_find), as the user-stack unwinder
 * reads them, and the syscall line's stack and program counter. */
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

static void test_find(void **state)
{
	(void)state;
	const char *text =
		"400000-401000 r--p 00000000 08:01 7 /bin/t\n"
		"401000-402000 r-xp 00001000 08:01 7 /bin/t\n"
		"7f0000000000-7f0000021000 rw-p 00000000 00:00 0 \n"
		"7ffc00000000-7ffc00021000 rw-p 00000000 00:00 0                          [stack]\n";
	struct maps_ent e;
	assert_int_equal(maps_find(text, 0x401234, &e), 0);
	assert_true(e.x && e.off == 0x1000 && e.start == 0x401000);
	assert_int_equal(maps_find(text, 0x400fff, &e), 0);
	assert_true(!e.x && e.start == 0x400000);
	assert_int_equal(maps_find(text, 0x402000, &e), -ENOENT);
	assert_int_equal(maps_find(text, 0x7ffc00020ff8, &e), 0);
	assert_memory_equal(e.path, "[stack]", e.path_len);
	assert_int_equal(maps_find("", 0x1000, &e), -ENOENT);
	assert_int_equal(maps_find("400000-401000 r--p 00000000 08:01 7 /bin/t\ngarbage\n",
	                           0x400000, &e), -EINVAL);
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
		cmocka_unit_test(test_find),
		cmocka_unit_test(test_syscall_sp_pc),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
