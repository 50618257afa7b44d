/* test-cpulist.c: the kernel CPU list syntax and CPU set operations. */
#include "unit.h"

static struct cgw_cpus set_of(const unsigned *cpus, size_t n)
{
	struct cgw_cpus c;
	memset(&c, 0, sizeof(c));
	for (size_t i = 0; i < n; i++)
		cpus_set(&c, cpus[i]);
	return c;
}

static size_t count(const struct cgw_cpus *c)
{
	size_t n = 0;
	for (unsigned i = 0; i < CGW_MAX_CPUS; i++)
		n += cpus_test(c, i);
	return n;
}

/* parse, then format, gives back the canonical list */
static void test_cpulist_round_trip(void **state)
{
	(void)state;
	static const struct {
		const char *in, *out;
		size_t n;            /* CPUs in the set */
		unsigned first, last;
	} cases[] = {
		{ "0-3,8,10-11", "0-3,8,10-11", 7, 0, 11 },
		{ "", "", 0, 0, 0 },
		{ "0", "0", 1, 0, 0 },
		{ "0-191", "0-191", 192, 0, 191 },
		/* seed 004: isolcpus / nohz_full of a 192-CPU host */
		{ "18-95,108-178", "18-95,108-178", 149, 18, 178 },
		/* used/group: 2 of every 4 */
		{ "0-15:2/4", "0-1,4-5,8-9,12-13", 8, 0, 13 },
		{ "0-7:1/2", "0,2,4,6", 4, 0, 6 },
		{ "0-3:4/4", "0-3", 4, 0, 3 },
		/* sysfs files end with a newline */
		{ "0-1\n", "0-1", 2, 0, 1 },
		{ "\n", "", 0, 0, 0 },
		/* not canonical in, canonical out */
		{ "3,2,1,0", "0-3", 4, 0, 3 },
		{ "0-2,3,4-5", "0-5", 6, 0, 5 },
		{ "5,5,5", "5", 1, 5, 5 },
		{ "1-1", "1", 1, 1, 1 },
		{ "8191", "8191", 1, 8191, 8191 },
		{ "0,8190-8191", "0,8190-8191", 3, 0, 8191 },
	};
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		struct cgw_cpus c;
		char out[256];
		print_message("# \"%s\"\n", esc(cases[i].in));
		assert_int_equal(cpulist_parse(cases[i].in, &c), 0);
		assert_int_equal(count(&c), cases[i].n);
		assert_string_equal(cpulist_format(&c, out, sizeof(out)), cases[i].out);
		if (cases[i].n) {
			assert_true(cpus_test(&c, cases[i].first));
			assert_true(cpus_test(&c, cases[i].last));
			if (cases[i].first)
				assert_false(cpus_test(&c, cases[i].first - 1));
			assert_false(cpus_test(&c, cases[i].last + 1));
		}
		/* and once more from the formatted text */
		struct cgw_cpus again;
		assert_int_equal(cpulist_parse(out, &again), 0);
		assert_memory_equal(&c, &again, sizeof(c));
	}
}

static void test_cpulist_members(void **state)
{
	(void)state;
	struct cgw_cpus c;
	assert_int_equal(cpulist_parse("18-95,108-178", &c), 0);
	static const struct { unsigned cpu; bool in; } probe[] = {
		{ 0, false }, { 17, false }, { 18, true }, { 95, true }, { 96, false },
		{ 107, false }, { 108, true }, { 178, true }, { 179, false }, { 191, false },
	};
	for (size_t i = 0; i < ARRAY_SIZE(probe); i++) {
		print_message("# cpu %u\n", probe[i].cpu);
		assert_int_equal(cpus_test(&c, probe[i].cpu), probe[i].in);
	}
}

static void test_cpulist_bad_einval(void **state)
{
	(void)state;
	static const char *const bad[] = {
		"3-1", "a", "1,,2", "1-", "-1", ",1", "1,", "0-3,a", "0x3", "1 2", "1-2-3",
		"0-15:2", "0-15:2/", "0-15:0/4", "0-15:2/0", "0-15:5/4", "0-15:/4", "3:1/2",
		"8192", "0-8192", "99999999999999999999",
	};
	for (size_t i = 0; i < ARRAY_SIZE(bad); i++) {
		struct cgw_cpus c;
		print_message("# \"%s\"\n", esc(bad[i]));
		assert_int_equal(cpulist_parse(bad[i], &c), -EINVAL);
	}
}

/* Formatting stops at a whole element and always NUL-terminates. */
static void test_cpulist_format_truncates(void **state)
{
	(void)state;
	struct cgw_cpus c;
	char out[32];
	assert_int_equal(cpulist_parse("0-3,8,10-11", &c), 0);
	static const struct { size_t cap; const char *want; } cases[] = {
		{ 12, "0-3,8,10-11" }, { 11, "0-3,8" }, { 6, "0-3,8" }, { 5, "0-3" },
		{ 4, "0-3" }, { 3, "" }, { 1, "" },
	};
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		memset(out, 'X', sizeof(out));
		print_message("# cap %zu\n", cases[i].cap);
		assert_ptr_equal(cpulist_format(&c, out, cases[i].cap), out);
		assert_string_equal(out, cases[i].want);
		assert_int_equal(out[cases[i].cap], 'X');
	}
}

static void test_cpus_set_test_empty(void **state)
{
	(void)state;
	struct cgw_cpus c;
	memset(&c, 0, sizeof(c));
	assert_true(cpus_empty(&c));
	cpus_set(&c, CGW_MAX_CPUS);          /* out of range: ignored */
	cpus_set(&c, 100000);
	assert_true(cpus_empty(&c));
	assert_false(cpus_test(&c, CGW_MAX_CPUS));
	cpus_set(&c, CGW_MAX_CPUS - 1);
	assert_false(cpus_empty(&c));
	assert_true(cpus_test(&c, CGW_MAX_CPUS - 1));
	assert_false(cpus_test(&c, CGW_MAX_CPUS - 2));
	cpus_set(&c, 63);
	cpus_set(&c, 64);
	assert_true(cpus_test(&c, 63));
	assert_true(cpus_test(&c, 64));
	assert_false(cpus_test(&c, 65));
	assert_false(cpus_test(&c, 0));
	char out[64];
	assert_string_equal(cpulist_format(&c, out, sizeof(out)), "63-64,8191");
}

/* housekeeping = online & ~isolated, as topology computes it for seed 004's host */
static void test_cpus_or_andnot(void **state)
{
	(void)state;
	struct cgw_cpus online, isolated, nohz, hk, u;
	char out[128];
	assert_int_equal(cpulist_parse("0-191", &online), 0);
	assert_int_equal(cpulist_parse("18-95,108-178", &isolated), 0);
	assert_int_equal(cpulist_parse("18-95,110-180", &nohz), 0);

	hk = online;
	cpus_andnot(&hk, &isolated);
	assert_string_equal(cpulist_format(&hk, out, sizeof(out)), "0-17,96-107,179-191");

	u = isolated;
	cpus_or(&u, &nohz);
	assert_string_equal(cpulist_format(&u, out, sizeof(out)), "18-95,108-180");
	/* the source is untouched */
	assert_string_equal(cpulist_format(&nohz, out, sizeof(out)), "18-95,110-180");

	/* a set minus itself is empty; or with empty changes nothing */
	struct cgw_cpus e = isolated;
	cpus_andnot(&e, &isolated);
	assert_true(cpus_empty(&e));
	u = isolated;
	cpus_or(&u, &e);
	assert_memory_equal(&u, &isolated, sizeof(u));

	static const unsigned a[] = { 1, 64, 8191 }, b[] = { 64, 2 };
	struct cgw_cpus sa = set_of(a, 3), sb = set_of(b, 2);
	cpus_andnot(&sa, &sb);
	assert_string_equal(cpulist_format(&sa, out, sizeof(out)), "1,8191");
}

/* /sys/devices/virtual/workqueue/cpumask: hex words, most significant first, comma-separated */
static void test_cpumask_hex(void **state)
{
	(void)state;
	static const struct { const char *in; const char *list; } ok[] = {
		{ "3\n", "0-1" },
		{ "ff\n", "0-7" },
		{ "00000000,0003ffff\n", "0-17" },
		{ "0003ffff,f0000000,00000000\n", "60-81" },
		{ "ffffffff,ffffffff,ffffffff,ffffffff,ffffffff,ffffffff\n", "0-191" },
		{ "0", "" },
	};
	for (size_t i = 0; i < ARRAY_SIZE(ok); i++) {
		struct cgw_cpus c;
		char out[256];
		assert_int_equal(parse_cpumask_hex(ok[i].in, &c), 0);
		assert_string_equal(cpulist_format(&c, out, sizeof(out)), ok[i].list);
	}
	struct cgw_cpus c;
	assert_int_equal(parse_cpumask_hex("", &c), -EINVAL);
	assert_int_equal(parse_cpumask_hex("0-3", &c), -EINVAL);
	assert_int_equal(parse_cpumask_hex("xyz", &c), -EINVAL);
}

/* Every number of a CPU list or mask is a CPU below CGW_MAX_CPUS: a hostile number anywhere
 * in a list ("X", "0-X", "0-7:X/4", "0-7:1/X") does not parse, nor does "-0" (a '-' there is
 * a range with no start); a mask setting CPU 8192 is -ERANGE (before, the bit was dropped and
 * the mask taken as valid). */
static void test_cpus_hostile_numbers(void **state)
{
	(void)state;
	static const char *const forms[] = { "%s", "0-%s", "0-7:%s/4", "0-7:1/%s", "1,%s" };
	for (size_t f = 0; f < ARRAY_SIZE(forms); f++)
		for (size_t h = 0; h < ARRAY_SIZE(hostile_nums) + 1; h++) {
			const char *v = h < ARRAY_SIZE(hostile_nums) ? hostile_nums[h] : "-0";
			char in[128];
			snprintf(in, sizeof(in), forms[f], v);
			struct cgw_cpus c;
			print_message("# \"%s\"\n", in);
			assert_int_equal(cpulist_parse(in, &c), -EINVAL);
		}
	struct cgw_cpus c;
	assert_int_equal(cpulist_parse("8191", &c), 0);
	assert_true(cpus_test(&c, 8191));
	/* hex mask: 2048 zero digits are CPUs 0-8191; a 1 before them is CPU 8192 */
	char mask[2100];
	memset(mask, '0', 2048);
	mask[2048] = '\n';
	mask[2049] = '\0';
	assert_int_equal(parse_cpumask_hex(mask, &c), 0);
	assert_true(cpus_empty(&c));
	mask[0] = '8';                        /* CPU 8191 */
	assert_int_equal(parse_cpumask_hex(mask, &c), 0);
	assert_true(cpus_test(&c, 8191));
	memmove(mask + 1, mask, 2050);
	mask[0] = '1';                        /* 1 then 8 then zeros: CPUs 8191 and 8192 */
	assert_int_equal(parse_cpumask_hex(mask, &c), -ERANGE);
	assert_int_equal(parse_cpumask_hex("-5", &c), -EINVAL);
	assert_int_equal(parse_cpumask_hex("0x10", &c), -EINVAL);
	assert_int_equal(parse_cpumask_hex("nan", &c), -EINVAL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_cpumask_hex),
		cmocka_unit_test(test_cpus_hostile_numbers),
		cmocka_unit_test(test_cpulist_round_trip),
		cmocka_unit_test(test_cpulist_members),
		cmocka_unit_test(test_cpulist_bad_einval),
		cmocka_unit_test(test_cpulist_format_truncates),
		cmocka_unit_test(test_cpus_set_test_empty),
		cmocka_unit_test(test_cpus_or_andnot),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
