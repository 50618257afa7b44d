/* test-unit-cpus.c: parse_unit_cpus, the daemon's CPUs from cgwatch.service and its drop-ins:
 * [Service] only, lists with spaces and commas, repeated lines merged, an empty one resetting,
 * values systemd would ignore counted and left out. */
#include "unit.h"

static const char *list(const struct cgw_cpus *c)
{
	static char buf[256];
	return cpulist_format(c, buf, sizeof(buf));
}

static void apply(struct unit_cpus *u, const char *text, int want_bad)
{
	assert_int_equal(parse_unit_cpus(text, strlen(text), u), want_bad);
}

static void test_unit_cpus(void **state)
{
	(void)state;
	struct unit_cpus u = { 0 };
	apply(&u, "[Unit]\nCPUAffinity=7\n[Service]\nType=notify\nCPUAffinity=0-1 4\n"
	          "  CPUAffinity = 6,8\n# CPUAffinity=9\n[Install]\nCPUAffinity=10\n", 0);
	assert_true(u.affinity_set);
	assert_false(u.allowed_set);
	assert_string_equal(list(&u.affinity), "0-1,4,6,8");
	/* a drop-in: reset, then set; AllowedCPUs too */
	apply(&u, "[Service]\nCPUAffinity=\nCPUAffinity=2\nAllowedCPUs=0-3\n", 0);
	assert_string_equal(list(&u.affinity), "2");
	assert_string_equal(list(&u.allowed), "0-3");
	/* values systemd ignores: the rest kept */
	apply(&u, "[Service]\nCPUAffinity=numa\nCPUAffinity=a-b\nCPUAffinity=3-1\n"
	          "AllowedCPUs=1:2\nCPUAffinity=5\n", 4);
	assert_string_equal(list(&u.affinity), "2,5");
	assert_string_equal(list(&u.allowed), "0-3");
	apply(&u, "[Service]\nAllowedCPUs=\n", 0);
	assert_false(u.allowed_set);
	/* no newline at the end, CRLF, and a line without '=' */
	struct unit_cpus v = { 0 };
	apply(&v, "[Service]\r\nCPUAffinity=1\r\nbogus\r\nAllowedCPUs=0-1", 0);
	assert_string_equal(list(&v.affinity), "1");
	assert_string_equal(list(&v.allowed), "0-1");
}

int main(void)
{
	const struct CMUnitTest tests[] = { cmocka_unit_test(test_unit_cpus) };
	return cmocka_run_group_tests(tests, NULL, NULL);
}
