/* test-ksyms.c: kernel addresses named from a task's own /proc/TID/stack (source-ksyms.c),
 * taken only when its schedstat proves it did not run since its record was read. */
#include "unit.h"

static const uint64_t addrs[3] = { 0xffffffffc0a011fbull, 0xffffffffc0a0203aull,
                                   0xffffffff81a00010ull };
static const char stack[] = "[<0>] fuse_get_req+0x1fb/0x2e0 [fuse]\n"
                            "[<0>] __fuse_simple_request+0x3a/0x330 [fuse]\n"
                            "[<0>] do_syscall_64+0x10/0x90\n";

/* the record said 5000 ns of CPU over 7 arrivals */
static bool name_with(struct cgw_ksyms *k, const char *schedstat, const char *st, size_t n)
{
	return ksyms_from_stackfile(k, addrs, n, st, (ssize_t)strlen(st), schedstat,
	                            schedstat ? (ssize_t)strlen(schedstat) : -ENOENT, 5000, 7);
}

static void test_taken_when_still(void **state)
{
	(void)state;
	struct cgw_ksyms *k = ksyms_new();
	assert_non_null(k);
	assert_false(ksyms_named(k, addrs, 3));
	assert_true(name_with(k, "5000 123 7\n", stack, 3));
	assert_true(ksyms_named(k, addrs, 3));
	const char *text, *name;
	assert_true(ksyms_lookup(k, addrs[1], &text, &name));
	assert_string_equal(text, "__fuse_simple_request+0x3a/0x330 [fuse]");
	assert_string_equal(name, "__fuse_simple_request");
	assert_true(ksyms_lookup(k, addrs[2], &text, &name));
	assert_string_equal(name, "do_syscall_64");
	assert_false(ksyms_lookup(k, 0xffffffff81000000ull, &text, &name));
	assert_string_equal(text, "?");
	size_t sf, ks;
	ksyms_counts(k, &sf, &ks);
	assert_int_equal(sf, 3);
	assert_int_equal(ks, 0);
	/* named again: nothing added twice */
	assert_true(name_with(k, "5000 123 7\n", stack, 3));
	ksyms_counts(k, &sf, &ks);
	assert_int_equal(sf, 3);
	ksyms_free(k);
}

/* it ran (CPU time or arrivals moved), the stack has another depth, or nothing tells: the
 * file may show another stack, and no name is taken from it */
static void test_refused(void **state)
{
	(void)state;
	struct cgw_ksyms *k = ksyms_new();
	assert_non_null(k);
	assert_false(name_with(k, "5001 123 7\n", stack, 3));     /* one ns more CPU */
	assert_false(name_with(k, "4999 123 7\n", stack, 3));
	assert_false(name_with(k, "5000 123 8\n", stack, 3));     /* one arrival more */
	assert_false(name_with(k, "5000 123 6\n", stack, 3));
	assert_false(name_with(k, "0 0 0\n", stack, 3));          /* no CONFIG_SCHED_INFO */
	assert_false(name_with(k, NULL, stack, 3));               /* unreadable */
	assert_false(name_with(k, "junk\n", stack, 3));
	assert_false(name_with(k, "5000 123 7\n", stack, 2));     /* record with fewer frames */
	assert_false(name_with(k, "5000 123 7\n", "[<0>] fuse_get_req+0x1fb/0x2e0 [fuse]\n"
	                       "[<0>] do_syscall_64+0x10/0x90\n", 3));
	assert_false(name_with(k, "5000 123 7\n", "not a stack\n", 3));
	assert_false(ksyms_from_stackfile(k, addrs, 3, stack, -ETIMEDOUT, "5000 123 7\n", 11,
	                                  5000, 7));
	assert_false(ksyms_named(k, addrs, 1));
	size_t sf, ks;
	ksyms_counts(k, &sf, &ks);
	assert_int_equal(sf, 0);
	ksyms_free(k);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_taken_when_still),
		cmocka_unit_test(test_refused),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
