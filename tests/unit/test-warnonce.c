/* test-warnonce.c: a repeated warning (warnonce.c) is said once, then counted, and said again
 * with its count when it changes or clears. */
#include "unit.h"

static void test_once_then_counted(void **state)
{
	(void)state;
	struct warn_once w = { 0 };
	char out[1024];
	assert_true(warn_step(&w, "cannot read /dev/kmsg: Input/output error", out, sizeof(out)));
	assert_string_equal(out, "cannot read /dev/kmsg: Input/output error");
	for (int i = 0; i < 57; i++)
		assert_false(warn_step(&w, "cannot read /dev/kmsg: Input/output error", out,
		                       sizeof(out)));
	assert_true(warn_step(&w, NULL, out, sizeof(out)));
	assert_string_equal(out, "cannot read /dev/kmsg: Input/output error: again 57 times; "
	                    "now cleared");
	assert_false(warn_step(&w, NULL, out, sizeof(out)));      /* nothing to clear */
	/* the same failure after it cleared is news again */
	assert_true(warn_step(&w, "cannot read /dev/kmsg: Input/output error", out, sizeof(out)));
	assert_true(warn_step(&w, NULL, out, sizeof(out)));
	assert_string_equal(out, "cannot read /dev/kmsg: Input/output error: now cleared");
}

static void test_changed(void **state)
{
	(void)state;
	struct warn_once w = { 0 };
	char out[1024];
	assert_true(warn_step(&w, "cannot save open incidents to /s: Permission denied", out,
	                      sizeof(out)));
	assert_false(warn_step(&w, "cannot save open incidents to /s: Permission denied", out,
	                       sizeof(out)));
	assert_false(warn_step(&w, "cannot save open incidents to /s: Permission denied", out,
	                       sizeof(out)));
	assert_true(warn_step(&w, "cannot save open incidents to /s: No space left on device", out,
	                      sizeof(out)));
	assert_string_equal(out, "cannot save open incidents to /s: Permission denied: again 2 "
	                    "times; now: cannot save open incidents to /s: No space left on device");
	assert_true(warn_step(&w, "x", out, sizeof(out)));     /* changed, never repeated */
	assert_string_equal(out, "x");
	assert_true(warn_step(&w, NULL, out, sizeof(out)));
	assert_string_equal(out, "x: now cleared");
}

/* A message longer than what is kept still compares whole (a hash of it). */
static void test_long(void **state)
{
	(void)state;
	struct warn_once w = { 0 };
	char a[4000], b[4000], out[512];
	memset(a, 'a', sizeof(a) - 1);
	a[sizeof(a) - 1] = '\0';
	memcpy(b, a, sizeof(a));
	b[sizeof(b) - 2] = 'b';
	assert_true(warn_step(&w, a, out, sizeof(out)));
	assert_false(warn_step(&w, a, out, sizeof(out)));
	assert_true(warn_step(&w, b, out, sizeof(out)));
	assert_true(strlen(out) < sizeof(out));
}

/* Many warnings of one pass (a scan: a file per line), each its own: said the first scan,
 * counted while it comes back every scan, cleared with its count the first scan without. */
static void test_set(void **state)
{
	(void)state;
	struct warn_set *ws = warn_set_new();
	struct capture c;
	char log[4096];
	capture_begin(&c);
	for (int scan = 0; scan < 4; scan++) {
		warn_set_say(ws, "/proc/cmdline: isolcpus=%s not understood", "x");
		if (scan < 2)
			warn_set_say(ws, "/proc/7/sched: %s", "se.exec_start is not a time");
		warn_set_end(ws);
	}
	capture_end(&c, log, sizeof(log));
	assert_string_equal(log,
		"cgwatch: /proc/cmdline: isolcpus=x not understood\n"
		"cgwatch: /proc/7/sched: se.exec_start is not a time\n"
		"cgwatch: /proc/7/sched: se.exec_start is not a time: again 1 time; now cleared\n");
	warn_set_free(ws);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_once_then_counted),
		cmocka_unit_test(test_changed),
		cmocka_unit_test(test_long),
		cmocka_unit_test(test_set),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
