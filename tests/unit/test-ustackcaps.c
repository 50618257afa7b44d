/* test-ustackcaps.c: the user-stack sandbox's caps, each at its exact value and one step
 * either side, as docs/cgwatch.8 states them: a step of an unwind makes 200,000 reads at most
 * (ustack_read_budget), a process whose unwind looped or ended the unwinder is held out for
 * 600 s (ustack_hold_over), a report starts 8 unwinder processes at most (box_may_fork), and
 * a child silent for 4 read deadlines + 2 s is killed (box_silence_expired). The values are
 * written out rather than taken from the macros, so a changed cap fails here until the page
 * says it too. */
#include "unit.h"

/* Read number n of a step: the 200,000th fits, the 200,001st fails (and every one after). */
static void test_step_reads(void **state)
{
	(void)state;
	static const struct { unsigned long n; bool fits; } c[] = {
		{ 1, true }, { 199999, true }, { 200000, true }, { 200001, false }, { 200002, false },
	};
	assert_int_equal(STEP_READS_MAX, 200000);
	for (size_t i = 0; i < ARRAY_SIZE(c); i++) {
		unsigned long made = c[i].n - 1;        /* the reads before this one */
		bool fits = ustack_read_budget(&made, STEP_READS_MAX);
		if (fits != c[i].fits)
			print_message("read %lu of a step: %s\n", c[i].n, fits ? "fits" : "refused");
		assert_int_equal(fits, c[i].fits);
		assert_int_equal(made, c[i].n);         /* counted, fitting or not */
	}
}

/* Counted from none, one read at a time as the accessor makes them: exactly cap fit. */
static void test_read_budget_counts(void **state)
{
	(void)state;
	static const unsigned long caps[] = { 1, 2, 7, 20000 };
	for (size_t i = 0; i < ARRAY_SIZE(caps); i++) {
		unsigned long made = 0, fit = 0;
		for (unsigned long k = 0; k < caps[i] + 3; k++)
			fit += ustack_read_budget(&made, caps[i]);
		assert_int_equal(fit, caps[i]);
	}
}

/* A whole unwind's bound of 0 (a live unwind's: only a fuzzer's harness sets one) is none. */
static void test_read_budget_unbounded(void **state)
{
	(void)state;
	unsigned long made = 0;
	for (unsigned k = 0; k < 1000; k++)
		assert_true(ustack_read_budget(&made, 0));
	made = ~0ul;
	assert_true(ustack_read_budget(&made, 0));
}

/* A hold set at 1000 s: held until 1600 s exactly, when the process is tried again. */
static void test_hold(void **state)
{
	(void)state;
	static const struct { double now; bool over; } c[] = {
		{ 1000, false }, { 1599, false }, { 1599.999, false }, { 1600, true },
		{ 1600.001, true }, { 1601, true },
	};
	assert_int_equal(USTACK_HOLD_S, 600);
	for (size_t i = 0; i < ARRAY_SIZE(c); i++) {
		bool over = ustack_hold_over(c[i].now, 1000);
		if (over != c[i].over)
			print_message("held at 1000 s, at %.3f s: %s\n", c[i].now,
			              over ? "over" : "held");
		assert_int_equal(over, c[i].over);
	}
}

/* After the 7th child the 8th may start; after the 8th none does. */
static void test_box_tries(void **state)
{
	(void)state;
	static const struct { unsigned forked; bool may; } c[] = {
		{ 0, true }, { 7, true }, { 8, false }, { 9, false },
	};
	assert_int_equal(BOX_TRIES, 8);
	for (size_t i = 0; i < ARRAY_SIZE(c); i++) {
		bool may = box_may_fork(c[i].forked);
		if (may != c[i].may)
			print_message("%u children forked: %s\n", c[i].forked,
			              may ? "another may start" : "no more");
		assert_int_equal(may, c[i].may);
	}
	unsigned n = 0;                       /* as ustack_report's loop counts them */
	for (unsigned tries = 0; box_may_fork(tries); tries++)
		n++;
	assert_int_equal(n, 8);
}

/* Silent for 4 x read_timeout + 2 s: 10 s at the default 2 s, 2.2 s at the least (0.05 s),
 * 242 s at the most (60 s); killed at that exactly, not a millisecond before. */
static void test_silence(void **state)
{
	(void)state;
	static const struct { unsigned timeout_ms; double silent_ms; bool killed; } c[] = {
		{ 2000, 0, false }, { 2000, 9999, false }, { 2000, 9999.5, false },
		{ 2000, 10000, true }, { 2000, 10001, true },
		{ 50, 2199, false }, { 50, 2200, true }, { 50, 2201, true },
		{ 60000, 241999, false }, { 60000, 242000, true }, { 60000, 242001, true },
	};
	for (size_t i = 0; i < ARRAY_SIZE(c); i++) {
		double since = 123456.5;           /* mono_ms when the parent began waiting */
		bool killed = box_silence_expired(since + c[i].silent_ms, since, c[i].timeout_ms);
		if (killed != c[i].killed)
			print_message("read_timeout %u ms, silent %.1f ms: %s\n", c[i].timeout_ms,
			              c[i].silent_ms, killed ? "killed" : "waited for");
		assert_int_equal(killed, c[i].killed);
	}
	assert_near(box_silence_ms(2000), 10000, 0);
	assert_near(box_silence_ms(50), 2200, 0);
	assert_near(box_silence_ms(60000), 242000, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_step_reads),
		cmocka_unit_test(test_read_budget_counts),
		cmocka_unit_test(test_read_budget_unbounded),
		cmocka_unit_test(test_hold),
		cmocka_unit_test(test_box_tries),
		cmocka_unit_test(test_silence),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
